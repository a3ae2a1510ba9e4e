// `import --plan` gives the outcome the import gives, row by row and in the counts, on every sample and
// sample profile: each plan is made on the tenant as it is, then the same import is run for real.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { AS_DONE, counts, importRun as importSample } from '../helpers/plan-run.js';
import { useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';

// The demo tenant: the samples name its categories (CAT-SHIRTS, ...).
const fixture = useSandbox();
let dir: string;
let n = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plan-'));
});

/**
 * The samples' image URLs name the asset host at its default port (a user's sandbox); here they are
 * pointed at this sandbox's asset host, so the DAM really fetches them, as it would for the user.
 */
const SAMPLE_ASSETS = 'http://127.0.0.1:4010/assets';

async function withLocalAssets(args: string[]): Promise<string[]> {
  const [source, ...rest] = args;
  const copy = join(dir, `${++n}-${basename(source!)}`);
  const local = (text: string) => text.replaceAll(SAMPLE_ASSETS, fixture.sb.assetsUrl);
  if (source!.endsWith('.xlsx')) {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(source!);
    workbook.eachSheet((sheet) =>
      sheet.eachRow((row) =>
        row.eachCell((cell) => {
          if (typeof cell.value === 'string') cell.value = local(cell.value);
        }),
      ),
    );
    await workbook.xlsx.writeFile(copy);
    return [copy, ...rest];
  }
  const text = await readFile(source!, 'utf8');
  if (!text.includes(SAMPLE_ASSETS)) return args;
  await writeFile(copy, local(text));
  return [copy, ...rest];
}

/** The import (or its plan) of a sample, its image URLs pointed at this sandbox. */
async function importRun(given: string[], plan: boolean) {
  return importSample(fixture, dir, await withLocalAssets(given), plan);
}

// In the order a catalog is built: categories before the products in them, products before variants.
const SAMPLES: Array<[string, string[]]> = [
  ['category tree', ['samples/categories.csv', '--entity', 'categories']],
  ['XLSX, Categories sheet', ['samples/catalog.xlsx', '--sheet', 'Categories', '--entity', 'categories']],
  ['products CSV', ['samples/products.csv', '--profile', 'samples/profiles/products.json']],
  [
    'one row per variant',
    ['samples/variants-per-row.csv', '--profile', 'samples/profiles/variants-per-row.json'],
  ],
  ['XLSX, Products sheet', ['samples/catalog.xlsx', '--sheet', 'Products']],
  ['NDJSON', ['samples/products.ndjson', '--profile', 'samples/profiles/products-ndjson.json']],
  ['custom entity', ['samples/store-locations.csv', '--entity', 'custom:Store Locations']],
  ['supplier update', ['samples/supplier-update.csv', '--entity', 'variants']],
  [
    'WooCommerce',
    [`${REALWORLD}/woocommerce_sample_products.csv`, '--profile', 'samples/profiles/woocommerce.json'],
  ],
  ['Bagisto', [`${REALWORLD}/bagisto_products.xlsx`, '--profile', 'samples/profiles/bagisto.json']],
  ['Vendure', [`${REALWORLD}/vendure_mock-data_products.csv`, '--profile', 'samples/profiles/vendure.json']],
  ['DummyJSON', [`${REALWORLD}/dummyjson_products.json`, '--profile', 'samples/profiles/dummyjson.json']],
  [
    'Google Retail',
    [`${REALWORLD}/google-retail_products.ndjson`, '--profile', 'samples/profiles/google-retail.json'],
  ],
  // Again, now that everything exists: the plan must see updates and unchanged rows too.
  ['products CSV, again', ['samples/products.csv', '--profile', 'samples/profiles/products.json']],
  [
    'one row per variant, again',
    ['samples/variants-per-row.csv', '--profile', 'samples/profiles/variants-per-row.json'],
  ],
];

/** Rows with a command each, on the products the samples made: the plan must see what each one does. */
const COMMANDS = [
  '_command,prod_ref,prod_title,prod_brand',
  'NEW,CMD-NEW,Fresh,',
  'NEW,SMP-LINEN-SHIRT,Linen shirt,',
  'UPDATE,SMP-WOOL-SCARF,Wool scarf,New brand',
  'UPDATE,CMD-MISSING,Nobody,',
  'MERGE,SMP-CANVAS-TOTE,Canvas tote,',
  'DELETE,SMP-LEATHER-BELT,,',
  'DELETE,CMD-NEVER-THERE,,',
  'IGNORE,CMD-IGNORED,Ignored,',
].join('\n');

describe('--plan is exact', () => {
  it.each(SAMPLES)('%s: the plan gives the import its counts and row outcomes', async (_, args) => {
    const plan = await importRun(args, true);
    const real = await importRun(args, false);
    expect(counts(plan.outcomes), JSON.stringify(real.lines.slice(0, 2))).toEqual(counts(real.outcomes));
    expect(plan.lines.map((l) => [l.location, l.ref, AS_DONE[l.outcome] ?? l.outcome])).toEqual(
      real.lines.map((l) => [l.location, l.ref, l.outcome]),
    );
    expect(plan.code).toBe(real.code);
  });

  it('_command rows: NEW, UPDATE, MERGE, DELETE and IGNORE, on records that exist and records that do not', async () => {
    const feed = join(dir, 'commands.csv');
    await writeFile(feed, COMMANDS);
    const plan = await importRun([feed], true);
    const real = await importRun([feed], false);
    expect(counts(plan.outcomes)).toEqual(counts(real.outcomes));
    expect(plan.lines.map((l) => AS_DONE[l.outcome] ?? l.outcome)).toEqual(real.lines.map((l) => l.outcome));
    // Each kind of outcome is there, so the comparison means something.
    expect(new Set(real.lines.map((l) => l.outcome)), JSON.stringify(real.lines)).toEqual(
      new Set(['created', 'failed', 'updated', 'unchanged', 'deleted', 'skipped']),
    );
  });
});
