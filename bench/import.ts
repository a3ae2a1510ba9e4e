// `npx tsx bench/import.ts` (or `npm run bench import`): what an import costs, measured against the
// sandbox and its request counters, side by side in one run.
//   1. request budget: N rows of which k changed and c new -> requests <= ceil(N/100) + k + c + a few,
//      next to a naive importer (one GET by ref + one write per row) on the same feed;
//   2. pacing under the real 50 / 10 s limit: achieved rate while work remains, and 429s received;
//   3. concurrency 8 vs 1 with 20 ms latency, on a 100%-changed feed (rows/s);
//   4. 10,000 rows naming 2,000 distinct image URLs: DAM registrations on the first and second run;
//   5. an unchanged re-import with the import state, without and with an image URL on every row, and of
//      300 products with 600 variants, category paths and images; requests per service (Catalog, DAM).
// BENCH_IMPORT_LARGE=1 measures the budget at 10,000 and 100,000 rows (default 10,000 and 20,000);
// BENCH_IMPORT_SIZES=1000,5000 picks other sizes; BENCH_IMPORT_PARTS=1,3 runs only some parts.
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { recordPath } from '../src/api/catalog.js';
import { type Connection, connect } from '../src/config/index.js';
import type { Profile } from '../src/mappers/profile-types.js';
import { mapConcurrent } from '../src/runner/import/concurrent.js';
import { type ImportSummary, importFile } from '../src/runner/import/run.js';
import { seedBulkProducts } from '../src/sandbox/catalog/index.js';
import type { SandboxOptions } from '../src/sandbox/context.js';
import { type SandboxHandle, startSandbox } from '../src/sandbox/index.js';

const PRODUCTS: Profile = { entity: 'products' };

interface SandboxStats {
  total: number;
  byMethod: Record<string, number>;
  byStatus: Record<string, number>;
  byService: Record<string, number>;
}

async function sandboxStats(sb: SandboxHandle): Promise<SandboxStats> {
  return (await (await fetch(`${sb.origin}/_sandbox/stats`)).json()) as SandboxStats;
}

async function resetStats(sb: SandboxHandle): Promise<void> {
  await fetch(`${sb.origin}/_sandbox/stats/reset`, { method: 'POST' });
}

function connectTo(
  sb: SandboxHandle,
  options: { concurrency?: number; rateLimit?: { requests: number; windowSeconds: number } | null } = {},
): Promise<Connection> {
  return connect({
    settings: {
      catalogUrl: sb.catalogUrl,
      damUrl: sb.damUrl,
      apiKey: sb.apiKey,
      rateLimit: options.rateLimit ?? null,
      ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    },
    env: {},
  });
}

async function importOnce(
  sb: SandboxHandle,
  source: string,
  options: {
    concurrency?: number;
    rateLimit?: { requests: number; windowSeconds: number } | null;
    assetCacheFile?: string;
    stateDir?: string;
    profile?: Profile;
  } = {},
): Promise<ImportSummary> {
  const connection = await connectTo(sb, options);
  const profile = options.profile ?? PRODUCTS;
  try {
    return await importFile({
      source,
      profile,
      // As the CLI reads it: the `$metadata` of the profile's entity only.
      model: await connection.tenant.model([profile.entity]),
      catalog: connection.catalog,
      dam: () => connection.dam,
      concurrency: options.concurrency ?? 8,
      counters: () => connection.snapshot(),
      ...(options.assetCacheFile !== undefined && { assetCacheFile: options.assetCacheFile }),
      ...(options.stateDir !== undefined && { stateDir: options.stateDir, tenant: 'bench' }),
    });
  } finally {
    await connection.close();
  }
}

/** A row of the feed: the bulk product `id` as seeded (unchanged), with a new title (changed), or a new ref. */
interface FeedRow {
  ref: string;
  title: string;
  weight: number;
  image?: string;
}

/** Streams rows to a CSV file (bounded memory at any N). */
async function writeFeed(file: string, rows: Iterable<FeedRow>, withImages = false): Promise<void> {
  const out = createWriteStream(file);
  const write = (text: string) =>
    out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await write(
    withImages ? 'prod_ref,prod_title,prod_weight,prod_images\n' : 'prod_ref,prod_title,prod_weight\n',
  );
  for (const r of rows) {
    await write(`${r.ref},${r.title},${r.weight}${withImages ? `,${r.image}` : ''}\n`);
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
}

/** The bulk seed's values (src/sandbox/seed/bulk.ts): ref, English title and weight by id. */
const seeded = (id: number): FeedRow => ({
  ref: `BULK-${String(id).padStart(7, '0')}`,
  title: `Product ${id}`,
  weight: (id % 100) / 10,
});

/** N rows over the seeded ids: every `1/changedShare`-th row changed, the last `created` rows new. */
function* feedRows(firstId: number, n: number, changed: number, created: number): Generator<FeedRow> {
  const existing = n - created;
  const every = changed > 0 ? existing / changed : Number.POSITIVE_INFINITY;
  let nextChanged = 0;
  let changedSoFar = 0;
  for (let i = 0; i < existing; i++) {
    const row = seeded(firstId + i);
    if (changedSoFar < changed && i >= nextChanged) {
      row.title = `Renamed ${firstId + i}`;
      changedSoFar += 1;
      nextChanged += every;
    }
    yield row;
  }
  for (let i = 0; i < created; i++)
    yield { ref: `NEW-${String(i).padStart(7, '0')}`, title: `New ${i}`, weight: 1 };
}

async function startBench(options: SandboxOptions = {}): Promise<SandboxHandle> {
  return startSandbox({ port: 0, seed: 'empty', ...options });
}

// -- 1. request budget ---------------------------------------------------------------------------

/** One GET by ref and one write per row: the importer the design is measured against. */
async function naiveImport(sb: SandboxHandle, rows: Iterable<FeedRow>, concurrency: number): Promise<void> {
  const connection = await connectTo(sb, { concurrency });
  try {
    const chunk: FeedRow[] = [];
    const flush = async () => {
      await mapConcurrent(chunk, concurrency, async (row) => {
        let id: number | undefined;
        for await (const r of connection.catalog.listIn<Record<string, unknown>>(
          '/Products',
          'prod_ref',
          [row.ref],
          {
            query: { $select: 'prod_id,prod_ref' },
          },
        )) {
          id = r.prod_id as number;
        }
        const body = { prod_ref: row.ref, prod_title: { en: row.title }, prod_weight: row.weight };
        if (id === undefined) await connection.catalog.create('/Products', body);
        else
          await connection.catalog.patch(recordPath('/Products', id), {
            prod_title: body.prod_title,
            prod_weight: row.weight,
          });
      });
      chunk.length = 0;
    };
    for (const row of rows) {
      chunk.push(row);
      if (chunk.length >= 500) await flush();
    }
    await flush();
  } finally {
    await connection.close();
  }
}

async function requestBudget(dir: string): Promise<void> {
  const sizes = process.env.BENCH_IMPORT_SIZES
    ? process.env.BENCH_IMPORT_SIZES.split(',').map(Number)
    : process.env.BENCH_IMPORT_LARGE
      ? [10_000, 100_000]
      : [10_000, 20_000];
  // What reading the tenant's $metadata costs: the constant of the budget.
  const probe = await startBench();
  let metadata = 0;
  try {
    const connection = await connectTo(probe);
    await connection.tenant.model([PRODUCTS.entity]);
    metadata = connection.snapshot().requests;
    await connection.close();
  } finally {
    await probe.close();
  }
  console.log(
    `1. Request budget (rate limit off): requests sent vs ceil(N/100) + k + c + ${metadata} ($metadata) + 2, and a naive importer`,
  );
  console.log('   N        changed  k        c      sent     budget   naive    naive/ours  s (ours / naive)');
  for (const n of sizes) {
    for (const share of [0, 0.02, 1]) {
      const created = Math.round(n * 0.005);
      const changed = Math.round((n - created) * share);
      const sb = await startBench();
      try {
        const { firstId } = seedBulkProducts(sb.services.catalog, n - created);
        const file = join(dir, `budget-${n}-${share}.csv`);
        await writeFeed(file, feedRows(firstId, n, changed, created));
        await resetStats(sb);
        const started = Date.now();
        const summary = await importOnce(sb, file);
        const seconds = (Date.now() - started) / 1000;
        const ours = (await sandboxStats(sb)).total;
        const bad = summary.outcomes.failed + summary.outcomes.invalid;
        if (bad > 0 || summary.outcomes.updated !== changed || summary.outcomes.created !== created) {
          console.log(`   ! outcomes ${JSON.stringify(summary.outcomes)}`);
        }
        const budget = Math.ceil(n / 100) + changed + created + metadata + 2;

        // The naive importer on a fresh copy of the same tenant and feed. It sends 2 requests per row
        // whatever changed, so it is measured once per N (on the 2% feed) to keep the bench short.
        if (share !== 0.02) {
          console.log(
            `   ${pad(n, 8)} ${pad(`${share * 100}%`, 8)} ${pad(changed, 8)} ${pad(created, 6)} ${pad(ours, 8)} ${pad(budget, 8)} ${pad('(2N)', 8)} ${pad(((2 * n) / ours).toFixed(1), 11)} ${seconds.toFixed(1)}${ours <= budget ? '' : '  OVER BUDGET'}`,
          );
          rmSync(file, { force: true });
          continue;
        }
        const naiveSb = await startBench();
        let naive = 0;
        let naiveSeconds = 0;
        try {
          const seededNaive = seedBulkProducts(naiveSb.services.catalog, n - created);
          await resetStats(naiveSb);
          const naiveStarted = Date.now();
          await naiveImport(naiveSb, feedRows(seededNaive.firstId, n, changed, created), 8);
          naive = (await sandboxStats(naiveSb)).total;
          naiveSeconds = (Date.now() - naiveStarted) / 1000;
        } finally {
          await naiveSb.close();
        }
        console.log(
          `   ${pad(n, 8)} ${pad(`${share * 100}%`, 8)} ${pad(changed, 8)} ${pad(created, 6)} ${pad(ours, 8)} ${pad(budget, 8)} ${pad(naive, 8)} ${pad((naive / ours).toFixed(1), 11)} ${seconds.toFixed(1)} / ${naiveSeconds.toFixed(1)}${ours <= budget ? '' : '  OVER BUDGET'}`,
        );
        rmSync(file, { force: true });
      } finally {
        await sb.close();
      }
    }
  }
}

// -- 2. pacing under the real rate limit ---------------------------------------------------------

async function pacing(dir: string): Promise<void> {
  const limit = { requests: 50, windowSeconds: 10 };
  const rows = 290; // 3 lookups + 290 PATCHes: about a minute at 5 requests/s
  const sb = await startBench({ rateLimit: limit });
  try {
    const { firstId } = seedBulkProducts(sb.services.catalog, rows);
    const file = join(dir, 'pacing.csv');
    await writeFeed(file, feedRows(firstId, rows, rows, 0));
    // The model is read before the clock starts: only the import's own requests are timed.
    await resetStats(sb);
    const started = Date.now();
    const summary = await importOnce(sb, file, { rateLimit: limit });
    const seconds = (Date.now() - started) / 1000;
    const s = await sandboxStats(sb);
    const rate = s.total / seconds;
    const target = limit.requests / limit.windowSeconds;
    console.log('\n2. Pacing with the sandbox limit of 50 requests / 10 s (client limiter 50/10 s)');
    console.log(
      `   ${s.total} requests in ${seconds.toFixed(1)} s = ${rate.toFixed(2)} req/s = ${((rate / target) * 100).toFixed(0)}% of the limit (target >= 90%); 429 received: ${s.byStatus['429'] ?? 0}; rows updated ${summary.outcomes.updated}`,
    );
    rmSync(file, { force: true });
  } finally {
    await sb.close();
  }
}

// -- 3. concurrency --------------------------------------------------------------------------------

async function concurrency(dir: string): Promise<void> {
  const rows = 400;
  const results: Record<number, number> = {};
  for (const c of [1, 8]) {
    const sb = await startBench({ latencyMs: 20 });
    try {
      const { firstId } = seedBulkProducts(sb.services.catalog, rows);
      const file = join(dir, `concurrency-${c}.csv`);
      await writeFeed(file, feedRows(firstId, rows, rows, 0));
      const started = Date.now();
      const summary = await importOnce(sb, file, { concurrency: c });
      results[c] = summary.outcomes.updated / ((Date.now() - started) / 1000);
      rmSync(file, { force: true });
    } finally {
      await sb.close();
    }
  }
  console.log('\n3. Concurrency, 20 ms latency, rate limit off, 100%-changed feed of 400 rows');
  console.log(
    `   concurrency 1: ${results[1]!.toFixed(0)} rows/s; concurrency 8: ${results[8]!.toFixed(0)} rows/s; ratio ${(results[8]! / results[1]!).toFixed(1)}x (target >= 5x)`,
  );
}

// -- 4. images registered once ------------------------------------------------------------------------

async function images(dir: string): Promise<void> {
  const rows = 10_000;
  const distinct = 2_000;
  const sb = await startBench({ processingMs: 10 });
  try {
    const file = join(dir, 'images.csv');
    const feed = function* (): Generator<FeedRow> {
      for (let i = 0; i < rows; i++) {
        yield {
          ref: `IMG-${i}`,
          title: `Item ${i}`,
          weight: 1,
          image: `${sb.assetsUrl}/bench-${i % distinct}.jpg`,
        };
      }
    };
    await writeFeed(file, feed(), true);
    const cacheFile = join(dir, 'assets-cache.json');
    const counts: Array<{ registrations: number; posts: number; created: number }> = [];
    for (let run = 0; run < 2; run++) {
      await resetStats(sb);
      const summary = await importOnce(sb, file, { assetCacheFile: cacheFile });
      const posts = (await sandboxStats(sb)).byMethod.POST ?? 0;
      counts.push({
        registrations: posts - summary.outcomes.created,
        posts,
        created: summary.outcomes.created,
      });
    }
    console.log('\n4. 10,000 rows naming 2,000 distinct image URLs (cache file kept between runs)');
    console.log(
      `   first run: ${counts[0]!.registrations} DAM registrations (${counts[0]!.created} products created); second run: ${counts[1]!.registrations} DAM registrations, ${counts[1]!.posts} POSTs in all`,
    );
  } finally {
    await sb.close();
  }
}

// -- 5. unchanged re-import with images ----------------------------------------------------------------

/** One row per variant: 2 a product, a category path, the product's image and the variant's own. */
const WITH_VARIANTS: Profile = {
  entity: 'products',
  variants: true,
  columns: {
    Handle: 'prod_ref',
    Title: 'prod_title',
    Category: { field: 'cat_refs', categoryPath: { separator: ' > ' } },
    Image: 'prod_images',
    SKU: 'frmt_ref',
    Price: 'frmt_price',
    'Variant image': 'frmt_image',
  },
};

interface Case {
  label: string;
  /** The feed's CSV lines, header first; or a file as it is. */
  lines?: (assets: string) => Generator<string>;
  file?: string;
  profile?: Profile;
  sandbox?: SandboxOptions;
}

/** WooCommerce's sample export (the shared folder's real-world feeds), when the folder is there. */
function wooCommerce(): Case | undefined {
  const shared = [process.env.CATALOG_IO_SHARED, join(process.cwd(), '..', 'shared'), '/work/shared'].find(
    (d) => d && existsSync(join(d, 'data', 'realworld')),
  );
  if (!shared) return undefined;
  return {
    label: 'WooCommerce sample export (18 products, 7 variants, paths, images)',
    file: join(shared, 'data', 'realworld', 'woocommerce_sample_products.csv'),
    profile: JSON.parse(readFileSync(join(process.cwd(), 'samples', 'profiles', 'woocommerce.json'), 'utf8')),
    // The demo tenant (its hand-made `Clothing` category), the feed's image URLs answered offline.
    sandbox: { seed: 'demo', remoteAssets: 'synthetic' },
  };
}

const CASES: Case[] = [
  {
    label: '1,000 products, no images',
    *lines() {
      yield 'prod_ref,prod_title,prod_weight';
      for (let i = 0; i < 1_000; i++) yield `UN-${i},Item ${i},1`;
    },
  },
  {
    label: '1,000 products, an image URL on every row',
    *lines(assets) {
      yield 'prod_ref,prod_title,prod_weight,prod_images';
      for (let i = 0; i < 1_000; i++) yield `UN-${i},Item ${i},1,${assets}/un-${i}.jpg`;
    },
  },
  {
    label: '300 products with 600 variants, category paths and images',
    profile: WITH_VARIANTS,
    *lines(assets) {
      yield 'Handle,Title,Category,Image,SKU,Price,Variant image';
      for (let p = 0; p < 300; p++) {
        const category = `Clothing > Group ${p % 12} > Line ${p % 36}`;
        for (const size of ['S', 'M'])
          yield `PV-${p},Item ${p},${category},${assets}/pv-${p}.jpg,PV-${p}-${size},${10 + (p % 7)},${assets}/pv-${p}-${size}.jpg`;
      }
    },
  },
];

async function unchangedWithImages(dir: string): Promise<void> {
  const lines: string[] = [];
  const woo = wooCommerce();
  for (const [n, c] of [...CASES, ...(woo ? [woo] : [])].entries()) {
    const sb = await startBench({ processingMs: 10, ...c.sandbox });
    try {
      const file = c.file ?? join(dir, `unchanged-${n}.csv`);
      if (c.lines) await writeFile(file, `${[...c.lines(sb.assetsUrl)].join('\n')}\n`);
      const options = {
        assetCacheFile: join(dir, `unchanged-${n}.json`),
        stateDir: join(dir, `state-${n}`),
        ...(c.profile && { profile: c.profile }),
      };
      // 1 creates (and registers), 2 looks up what 1 wrote, 3 is the unchanged re-import measured.
      await importOnce(sb, file, options);
      await imagesDone(sb);
      await importOnce(sb, file, options);
      await resetStats(sb);
      const summary = await importOnce(sb, file, options);
      const s = await sandboxStats(sb);
      // Each run reads the tenant's $metadata (a CLI run too, unless given --schemas): set apart here.
      const probe = await connectTo(sb);
      await probe.tenant.model([(c.profile ?? PRODUCTS).entity]);
      const metadata = probe.snapshot().requests;
      await probe.close();
      s.byMethod.GET = (s.byMethod.GET ?? 0) - metadata;
      s.byService.catalog = (s.byService.catalog ?? 0) - metadata;
      s.total -= metadata;
      const methods = Object.entries(s.byMethod).map(([m, k]) => `${k} ${m}`);
      lines.push(
        `   ${pad(`${c.label}:`, 70)} ${s.total} requests: Catalog API ${s.byService.catalog ?? 0}, DAM API ${s.byService.dam ?? 0} (${methods.join(', ')}); ${summary.outcomes.unchanged} rows unchanged, ${summary.assets.cached} image URLs cached`,
      );
    } finally {
      await sb.close();
    }
  }
  console.log(
    '\n5. Unchanged re-import with the import state and the asset cache (the third run of each feed)',
  );
  for (const line of lines) console.log(line);
  if (!woo)
    console.log(
      '   (WooCommerce sample export: the shared folder was not found; CATALOG_IO_SHARED names it)',
    );
}

/** Waits until no image is processing (the worker's last change comes before the next run's mark). */
async function imagesDone(sb: SandboxHandle): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const res = await fetch(`${sb.damUrl}/images?$filter=${encodeURIComponent("status eq 'Up'")}&$top=1`, {
      headers: { 'X-API-KEY': sb.apiKey },
    });
    if (((await res.json()) as { '@count': number })['@count'] === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function pad(value: string | number, width: number): string {
  return String(value).padEnd(width);
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
  try {
    const parts = (process.env.BENCH_IMPORT_PARTS ?? '1,2,3,4,5').split(',');
    if (parts.includes('1')) await requestBudget(dir);
    if (parts.includes('2')) await pacing(dir);
    if (parts.includes('3')) await concurrency(dir);
    if (parts.includes('4')) await images(dir);
    if (parts.includes('5')) await unchangedWithImages(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await run();
}
