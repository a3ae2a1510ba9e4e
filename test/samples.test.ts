// Every sample feed, and the real-world files with their sample profiles, validate against the demo tenant.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { memoryOutput } from '../src/cli/output.js';
import { sandboxFlags, useSandbox } from './helpers/sandbox.js';

const fixture = useSandbox();

import { REALWORLD } from './helpers/shared.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'samples-'));
  // The samples' products name the sample categories: imported first, as docs/import.md does (their
  // images from this sandbox's asset host, not the embedded sandbox's port the sample names).
  const categories = join(dir, 'categories.csv');
  const text = await readFile('samples/categories.csv', 'utf8');
  await writeFile(categories, text.replaceAll('http://127.0.0.1:4010/assets', fixture.sb.assetsUrl));
  const out = memoryOutput();
  const home = process.cwd();
  process.chdir(dir);
  try {
    const code = await main(
      [
        'import',
        categories,
        '--entity',
        'categories',
        '--quiet',
        ...sandboxFlags(fixture.sb, { rateLimit: 'off' }),
      ],
      out,
    );
    expect(code).toBe(0);
  } finally {
    process.chdir(home);
  }
});

async function validate(args: string[]) {
  const report = join(dir, `report-${Math.random().toString(36).slice(2)}.jsonl`);
  const out = memoryOutput();
  const connection = [...sandboxFlags(fixture.sb)];
  const code = await main(['validate', ...args, '--json', '--report', report, ...connection], out);
  const summary = out.stdout.length ? JSON.parse(out.stdout[0]!) : undefined;
  const lines =
    code === 2
      ? []
      : (await readFile(report, 'utf8'))
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l));
  return { code, summary, lines, stderr: out.stderr };
}

const entities = (lines: Array<{ entity: string }>) => {
  const counts: Record<string, number> = {};
  for (const l of lines) counts[l.entity] = (counts[l.entity] ?? 0) + 1;
  return counts;
};

describe('samples/', () => {
  it.each([
    [
      'products CSV with languages and image URLs',
      ['samples/products.csv', '--profile', 'samples/profiles/products.json'],
      4,
    ],
    [
      'one row per variant',
      ['samples/variants-per-row.csv', '--profile', 'samples/profiles/variants-per-row.json'],
      5,
    ],
    ['category tree', ['samples/categories.csv', '--entity', 'categories'], 5],
    ['XLSX, Products sheet', ['samples/catalog.xlsx', '--sheet', 'Products'], 3],
    [
      'XLSX, Categories sheet',
      ['samples/catalog.xlsx', '--sheet', 'Categories', '--entity', 'categories'],
      2,
    ],
    [
      'NDJSON with nested names',
      ['samples/products.ndjson', '--profile', 'samples/profiles/products-ndjson.json'],
      3,
    ],
  ])('%s: every row valid', async (_, args, rows) => {
    const { code, summary, stderr } = await validate(args);
    expect(stderr.filter((l) => !l.startsWith('Using the embedded'))).toEqual([]);
    expect(code).toBe(0);
    expect(summary).toMatchObject({
      rows,
      outcomes: { valid: rows, invalid: 0, skipped: 0 },
      topErrors: [],
      warnings: [],
    });
  });

  it('custom entity whose denominator has a space: every row valid', async () => {
    const { code, summary } = await validate([
      'samples/store-locations.csv',
      '--entity',
      'custom:Store Locations',
    ]);
    expect(code).toBe(0);
    expect(summary).toMatchObject({ rows: 3, outcomes: { valid: 3, invalid: 0 }, warnings: [] });
  });

  it("the supplier's price update keeps its one deliberate mistake (the demo shows it)", async () => {
    const { code, summary, lines } = await validate(['samples/supplier-update.csv', '--entity', 'variants']);
    expect(code).toBe(1);
    expect(summary).toMatchObject({ rows: 4, outcomes: { valid: 3, invalid: 1, skipped: 0 }, warnings: [] });
    expect(lines.filter((l) => l.outcome === 'invalid')).toEqual([
      expect.objectContaining({
        location: 'line 4',
        ref: 'SMP-CHINO-NAVY-32',
        column: 'frmt_price',
        value: '59,9O',
        message: 'column "frmt_price": must be a number, got "59,9O"',
      }),
    ]);
  });

  it('groups the per-variant rows under two products', async () => {
    const { lines } = await validate([
      'samples/variants-per-row.csv',
      '--profile',
      'samples/profiles/variants-per-row.json',
    ]);
    expect(lines.map((l) => l.ref)).toEqual([
      'SMP-CHINO-SAND-32',
      'SMP-CHINO-SAND-34',
      'SMP-CHINO-NAVY-32',
      'SMP-CAP-RED',
      'SMP-CAP-BLUE',
    ]);
  });
});

describe('real-world feeds with the sample profiles', () => {
  it('WooCommerce CSV: parents are products, variations their variants, a simple product has its own', async () => {
    const { code, summary, lines } = await validate([
      `${REALWORLD}/woocommerce_sample_products.csv`,
      '--profile',
      'samples/profiles/woocommerce.json',
    ]);
    expect(code).toBe(0);
    expect(summary.outcomes).toEqual({ valid: 25, invalid: 0, skipped: 0 });
    // A row's line names its last draft: the 15 priced rows without a Parent (simple, external) draft
    // their product and its variant (ownVariant); the 2 variable parents and the grouped one, a product.
    expect(entities(lines)).toEqual({ products: 3, variants: 22 });
  });

  it('Bagisto XLSX: parent_sku links the variants', async () => {
    const { code, summary, lines } = await validate([
      `${REALWORLD}/bagisto_products.xlsx`,
      '--profile',
      'samples/profiles/bagisto.json',
    ]);
    expect(code).toBe(0);
    expect(summary.outcomes).toEqual({ valid: 11, invalid: 0, skipped: 0 });
    // A row's line names its last draft: the 4 simple products without a parent draft their product and
    // its variant (ownVariant on "price"); the grouped, bundle and configurable ones (a status, no price),
    // a product; the configurable's 4 children, variants.
    expect(entities(lines)).toEqual({ products: 3, variants: 8 });
  });

  it('DummyJSON array: each item a product with one variant', async () => {
    const { code, summary } = await validate([
      `${REALWORLD}/dummyjson_products.json`,
      '--profile',
      'samples/profiles/dummyjson.json',
    ]);
    expect(code).toBe(0);
    expect(summary.outcomes).toEqual({ valid: 194, invalid: 0, skipped: 0 });
  });

  it('Google Retail NDJSON: string prices and enum availability mapped', async () => {
    const { code, summary } = await validate([
      `${REALWORLD}/google-retail_products.ndjson`,
      '--profile',
      'samples/profiles/google-retail.json',
    ]);
    expect(code).toBe(0);
    expect(summary.outcomes).toEqual({ valid: 316, invalid: 0, skipped: 0 });
  });

  it('Vendure CSV: fillDown carries the product to its variant rows, and a real duplicate SKU is found', async () => {
    const { code, summary, lines } = await validate([
      `${REALWORLD}/vendure_mock-data_products.csv`,
      '--profile',
      'samples/profiles/vendure.json',
    ]);
    expect(code).toBe(1);
    expect(summary.outcomes).toEqual({ valid: 86, invalid: 2, skipped: 0 });
    expect(summary.topErrors).toEqual([
      { message: 'column "sku": duplicate reference: first used on line 87', count: 2, first: 'line 88' },
    ]);
    expect(
      lines
        .filter((l: { outcome: string }) => l.outcome === 'invalid')
        .map((l: { location: string }) => l.location),
    ).toEqual(['line 88', 'line 89']);
  });

  it('without a profile, a real-world file is mostly unknown columns and rows without a reference', async () => {
    const { code, summary } = await validate([`${REALWORLD}/woocommerce_sample_products.csv`]);
    expect(code).toBe(1);
    expect(summary.outcomes.invalid).toBe(25);
    expect(summary.topErrors[0]).toEqual({
      message: 'the reference prod_ref is missing: every row needs one',
      count: 25,
      first: 'line 2',
    });
    // One grouped line for every column that matches no field (the count, the first five by name).
    expect(summary.warnings).toHaveLength(1);
    expect(summary.warnings[0]).toMatch(
      /^\d+ columns \("ID", "Type", "SKU", .* more\) do not match a field of products: ignored$/,
    );
  });
});
