// The dry run predicts the import, row by row, on real feeds: every file of ../shared/data/realworld/
// (with the profile `profile init` drafts, used as written) and every sample (with its profile), each
// on a fresh sandbox whose DAM answers public URLs with generated assets (`remoteAssets: 'synthetic'`):
// `validate` -> `import --plan` -> `import`. A row validate calls invalid is a row the import does not
// write, and the other way round; the plan's would-create/would-update are the import's created/updated.
// The share of records each file lands is printed as a table, and held to 90% per file.
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { disagreements, LANDED, type Trial, type TrialOptions, tryFeed } from '../helpers/feed-trial.js';
import { REALWORLD } from '../helpers/shared.js';

const home = process.cwd();
let dir: string;
const table: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agreement-'));
  // Run folders, locks and the import state go to `.catalog-io/` of the working folder: this one.
  process.chdir(dir);
});

afterAll(() => {
  process.chdir(home);
  if (table.length === 0) return;
  const head = `${'file'.padEnd(52)} ${'rows'.padStart(5)} ${'invalid'.padStart(7)} ${'landed'.padStart(6)} ${'share'.padStart(6)}`;
  console.log(
    ['records each feed lands (profile init -> import, no hand edits):', head, ...table].join('\n'),
  );
});

/**
 * Files below 90% of records landed, and why (each row's reason is in its trial's report). Listed so a
 * file that gets better fails the test until it is taken off.
 */
const BELOW_TARGET: Record<string, string> = {
  // 3 of 4: line 3 is a store-view override of line 2's SKU (`store_view_code` fixturestore, only `name`
  // set); the tenant keeps no values per store view, so profile init's scopeColumn skips it, with the reason.
  'magento2_products_multiple_stores.csv': 'a store-view override row is skipped',
};

/** The `profile init --entity` of a file that is not a product feed. */
const ENTITY: Record<string, string> = { 'sylius-import-export_taxonomies.xlsx': 'categories' };

async function trial(file: string, options: Omit<TrialOptions, 'dir'>, sb?: SandboxHandle): Promise<Trial> {
  const own = sb ?? (await startSandbox({ port: 0, remoteAssets: 'synthetic' }));
  try {
    return await tryFeed(own, file, { dir, ...options });
  } finally {
    if (!sb) await own.close();
  }
}

function landed(t: Trial): { rows: number; landed: number; invalid: number } {
  const lines = t.imported.lines;
  return {
    rows: lines.length,
    landed: lines.filter((l) => LANDED.has(l.outcome)).length,
    invalid: t.validate.lines.filter((l) => l.outcome === 'invalid').length,
  };
}

function tabulate(name: string, t: Trial): number {
  const { rows, landed: n, invalid } = landed(t);
  const share = rows === 0 ? 0 : n / rows;
  table.push(
    `${name.padEnd(52)} ${String(rows).padStart(5)} ${String(invalid).padStart(7)} ${String(n).padStart(6)} ${`${(share * 100).toFixed(1)}%`.padStart(6)}`,
  );
  return share;
}

/** The three reports cover the same rows, and agree on each. */
function expectAgreement(t: Trial): void {
  expect(t.validate.lines.length, 'validate wrote a line per row').toBe(t.imported.lines.length);
  expect(t.plan.lines.length, 'the plan wrote a line per row').toBe(t.imported.lines.length);
  expect(t.imported.lines.length, t.imported.stderr.join('\n')).toBeGreaterThan(0);
  expect(disagreements(t)).toEqual([]);
}

const files = (await readdir(REALWORLD)).filter((f) => f !== 'README.md').sort();

describe('real-world feeds: profile init, validate, plan and import agree row by row', () => {
  it('finds the 20 data files', () => {
    expect(files).toHaveLength(20);
  });

  it.each(files)('%s', async (file) => {
    const t = await trial(join(REALWORLD, file), { entity: ENTITY[file] ?? 'products' });
    expect(t.init.code, t.init.stderr.join('\n')).toBe(0);
    expectAgreement(t);
    const share = tabulate(file, t);
    if (BELOW_TARGET[file] === undefined)
      expect(share, 'share of records landed').toBeGreaterThanOrEqual(0.9);
    else expect(share, `${file} is listed below the target: remove it`).toBeLessThan(0.9);
  });
});

describe('samples with their profiles: validate, plan and import agree row by row', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    // One tenant, the samples in the order docs/import.md gives: categories before the products naming them.
    sb = await startSandbox({ port: 0, remoteAssets: 'synthetic' });
  });
  afterAll(async () => {
    await sb.close();
  });

  const samples: Array<[string, string, Omit<TrialOptions, 'dir'>]> = [
    ['categories.csv', 'samples/categories.csv', { profile: false, feed: ['--entity', 'categories'] }],
    ['products.csv', 'samples/products.csv', { profile: 'samples/profiles/products.json' }],
    [
      'variants-per-row.csv',
      'samples/variants-per-row.csv',
      { profile: 'samples/profiles/variants-per-row.json' },
    ],
    ['products.ndjson', 'samples/products.ndjson', { profile: 'samples/profiles/products-ndjson.json' }],
    [
      'store-locations.csv',
      'samples/store-locations.csv',
      { profile: false, feed: ['--entity', 'custom:Store Locations'] },
    ],
    [
      'supplier-update.csv',
      'samples/supplier-update.csv',
      { profile: false, feed: ['--entity', 'variants'] },
    ],
    // validate reads one sheet: each sheet is tried as its own feed.
    [
      'catalog.xlsx, sheet Categories',
      'samples/catalog.xlsx',
      { profile: false, reader: ['--sheet', 'Categories'], feed: ['--entity', 'categories'] },
    ],
    [
      'catalog.xlsx, sheet Products',
      'samples/catalog.xlsx',
      { profile: false, reader: ['--sheet', 'Products'] },
    ],
    [
      'woocommerce.json',
      `${REALWORLD}/woocommerce_sample_products.csv`,
      { profile: 'samples/profiles/woocommerce.json' },
    ],
    ['bagisto.json', `${REALWORLD}/bagisto_products.xlsx`, { profile: 'samples/profiles/bagisto.json' }],
    [
      'dummyjson.json',
      `${REALWORLD}/dummyjson_products.json`,
      { profile: 'samples/profiles/dummyjson.json' },
    ],
    [
      'google-retail.json',
      `${REALWORLD}/google-retail_products.ndjson`,
      { profile: 'samples/profiles/google-retail.json' },
    ],
    [
      'vendure.json',
      `${REALWORLD}/vendure_mock-data_products.csv`,
      { profile: 'samples/profiles/vendure.json' },
    ],
  ];

  it.each(samples)('%s', async (name, file, options) => {
    // Samples name the embedded sandbox's asset host (port 4010): here, this sandbox's.
    let source = resolve(home, file);
    if (file.startsWith('samples/') && !file.endsWith('.xlsx')) {
      source = join(dir, name);
      const text = await readFile(join(home, file), 'utf8');
      await writeFile(source, text.replaceAll('http://127.0.0.1:4010/assets', sb.assetsUrl));
    }
    const profile = options.profile ? join(home, options.profile) : false;
    const t = await trial(source, { ...options, profile, name: `sample-${name}` }, sb);
    expectAgreement(t);
    tabulate(`sample ${name}`, t);
  });
});
