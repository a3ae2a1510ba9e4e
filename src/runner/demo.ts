// The newcomer's tour: a sandbox tenant in this process, then the three jobs users run — validate the
// sample feeds (one supplier file has a mistake), import them (categories, products with variants and
// images, a custom entity), import again to show that nothing unchanged is written, and export the
// whole catalog to a spreadsheet. Everything it writes goes under one folder.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../config/index.js';
import { loadProfile } from '../mappers/profile.js';
import type { Profile } from '../mappers/profile-types.js';
import { startSandbox } from '../sandbox/index.js';
import { exportCatalog } from './export/index.js';
import { type ImportSummary, importFile } from './import/run.js';
import { validateFile } from './validate.js';

/** The samples ship next to `src/` and `dist/`. */
export const SAMPLES_DIR = fileURLToPath(new URL('../../samples/', import.meta.url));
/** The asset host the samples' image URLs name. */
const SAMPLE_ASSETS = 'http://127.0.0.1:4010/assets/';

interface Feed {
  file: string;
  title: string;
  profile?: string;
  entity?: string;
}

const FEEDS: Feed[] = [
  { file: 'categories.csv', title: 'a category tree', entity: 'categories' },
  { file: 'products.csv', title: 'products in three languages, with images', profile: 'products.json' },
  { file: 'variants-per-row.csv', title: 'one row per variant', profile: 'variants-per-row.json' },
  { file: 'products.ndjson', title: 'an NDJSON feed', profile: 'products-ndjson.json' },
  {
    file: 'store-locations.csv',
    title: "a custom entity ('Store Locations')",
    entity: 'custom:Store Locations',
  },
];
/** A supplier's nightly update with one mistake in it. */
const UPDATE: Feed = { file: 'supplier-update.csv', title: "a supplier's price update", entity: 'variants' };

export interface DemoOptions {
  /** Where the outputs go (default `out`). */
  outDir?: string;
  /** One line of the tour. */
  say: (line: string) => void;
}

export interface DemoResult {
  outDir: string;
  catalogFile: string;
  reports: string[];
  /** Writes sent by the second import of the same feeds (0 when all is well). */
  writesOnReimport: number;
}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const say = options.say;
  const outDir = path.resolve(options.outDir ?? 'out');
  const feedsDir = path.join(outDir, 'feeds');
  const reportsDir = path.join(outDir, 'reports');
  mkdirSync(feedsDir, { recursive: true });
  mkdirSync(reportsDir, { recursive: true });

  const sandbox = await startSandbox({ port: 0, seed: 'demo', processingMs: 20 });
  const connection = await connect({
    settings: {
      catalogUrl: sandbox.catalogUrl,
      damUrl: sandbox.damUrl,
      apiKey: sandbox.apiKey,
      rateLimit: null,
    },
  });
  const reports: string[] = [];
  try {
    say(`1. A sandbox tenant is running at ${sandbox.catalogUrl} (languages en, fr, es; demo catalog).`);
    const model = await connection.tenant.model();
    const feeds = [...FEEDS, UPDATE].map((f) => ({
      ...f,
      path: copyFeed(f.file, feedsDir, `${sandbox.assetsUrl}/`),
    }));
    const profiles = new Map<Feed, Profile>();
    for (const f of [...FEEDS, UPDATE]) {
      profiles.set(
        f,
        f.profile ? await loadProfile(path.join(SAMPLES_DIR, 'profiles', f.profile)) : { entity: f.entity! },
      );
    }
    const profileOf = (f: Feed) => profiles.get(f)!;

    say('');
    say('2. Validate the feeds against the tenant’s schemas (nothing is written):');
    for (const feed of feeds) {
      const report = path.join(reportsDir, `validate-${path.parse(feed.file).name}.csv`);
      const result = await validateFile({
        source: feed.path,
        model,
        profile: profileOf(originalOf(feed)),
        reportFile: report,
      });
      reports.push(report);
      say(
        `   ${feed.file.padEnd(22)} ${result.rows} rows: ${result.outcomes.valid} valid, ${result.outcomes.invalid} invalid — ${feed.title}`,
      );
      if (result.outcomes.invalid > 0) {
        const line = readFileSync(report, 'utf8')
          .split(/\r?\n/)
          .find((l) => l.includes(',invalid,'));
        say(`     the report says: ${line}`);
      }
    }

    say('');
    say('3. Import them: images are registered in the DAM first, then records are created by reference:');
    for (const feed of feeds.filter((f) => f.file !== UPDATE.file)) {
      const summary = await runImport(
        feed.path,
        profileOf(originalOf(feed)),
        path.join(reportsDir, `import-${path.parse(feed.file).name}.csv`),
      );
      reports.push(path.join(reportsDir, `import-${path.parse(feed.file).name}.csv`));
      say(`   ${feed.file.padEnd(22)} ${outcomeText(summary)}${assetText(summary)}`);
    }

    say('');
    say('4. Import the same feeds again: every row is unchanged, so no write is sent:');
    let writesOnReimport = 0;
    for (const feed of feeds.filter((f) => f.file !== UPDATE.file)) {
      const summary = await runImport(feed.path, profileOf(originalOf(feed)));
      const writes = writesOf(summary);
      writesOnReimport += writes;
      say(
        `   ${feed.file.padEnd(22)} ${outcomeText(summary)} — ${summary.requests.total} lookups, ${writes} writes`,
      );
    }

    say('');
    say('5. The supplier’s update: valid rows are written (only the changed fields), the bad row never is:');
    const updateFeed = feeds.find((f) => f.file === UPDATE.file)!;
    const updateReport = path.join(reportsDir, 'import-supplier-update.csv');
    const update = await runImport(updateFeed.path, profileOf(UPDATE), updateReport);
    reports.push(updateReport);
    say(`   ${UPDATE.file.padEnd(22)} ${outcomeText(update)}`);

    say('');
    say('6. Export the whole catalog, every language, to one spreadsheet:');
    const catalogFile = path.join(outDir, 'catalog.xlsx');
    const exported = await exportCatalog({
      catalog: connection.catalog,
      model,
      tenant: 'demo',
      out: catalogFile,
      cwd: outDir,
    });
    say(`   ${exported.entities.map((e) => `${e.entity} ${e.rows}`).join(', ')}`);

    say('');
    say('Where everything is:');
    say(`   the catalog          ${path.relative(process.cwd(), catalogFile)}`);
    say(`   per-row reports      ${path.relative(process.cwd(), reportsDir)}/`);
    say(
      `   the feeds imported   ${path.relative(process.cwd(), feedsDir)}/ (copies of samples/, image URLs pointed at this sandbox)`,
    );
    say(
      'Next: `npx catalog-io import <your file> --plan` against the embedded sandbox, or set CATALOG_URL for a real tenant.',
    );
    return { outDir, catalogFile, reports, writesOnReimport };
  } finally {
    await connection.close();
    await sandbox.close();
  }

  async function runImport(source: string, profile: Profile, reportFile?: string): Promise<ImportSummary> {
    const before = connection.snapshot();
    const summary = await importFile({
      source,
      profile,
      model: await connection.tenant.model(),
      catalog: connection.catalog,
      dam: () => connection.dam,
      ...(reportFile && { reportFile }),
    });
    // Requests of this import only: the connection counts for the whole tour.
    const after = connection.snapshot();
    const byMethod: Record<string, number> = {};
    for (const [m, n] of Object.entries(after.byMethod)) byMethod[m] = n - (before.byMethod[m] ?? 0);
    return {
      ...summary,
      requests: { ...summary.requests, total: after.requests - before.requests, byMethod },
    };
  }
}

/** Copies a sample feed with its image URLs pointed at this sandbox's asset host. */
function copyFeed(file: string, dir: string, assetsUrl: string): string {
  const target = path.join(dir, file);
  writeFileSync(
    target,
    readFileSync(path.join(SAMPLES_DIR, file), 'utf8').replaceAll(SAMPLE_ASSETS, assetsUrl),
  );
  return target;
}

function originalOf(feed: Feed & { path: string }): Feed {
  return [...FEEDS, UPDATE].find((f) => f.file === feed.file)!;
}

function writesOf(summary: ImportSummary): number {
  const m = summary.requests.byMethod;
  return (m.POST ?? 0) + (m.PATCH ?? 0) + (m.DELETE ?? 0);
}

function outcomeText(summary: ImportSummary): string {
  return Object.entries(summary.outcomes)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${n} ${o}`)
    .join(', ');
}

function assetText(summary: ImportSummary): string {
  const a = summary.assets;
  return a.registered + a.reused > 0
    ? ` (${a.registered} images registered${a.reused ? `, ${a.reused} reused` : ''})`
    : '';
}
