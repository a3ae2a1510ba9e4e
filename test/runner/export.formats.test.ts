// `catalog-io export` against a real sandbox over loopback: the XLSX a person opens (types, languages,
// sheets), CSV and NDJSON, --languages, --filter, --select, the injection guard and --raw, exit codes.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'catalog-io-export-formats-'));
const home = process.cwd();
beforeAll(async () => {
  // The export history is written under the working directory: keep it out of the checkout.
  process.chdir(dir);
  const { sb } = fixture;
  const post = async (path: string, body: unknown) => {
    const res = await call(sb.catalogUrl, path, { method: 'POST', key: sb.apiKey, body });
    expect(res.status, res.text).toBe(201);
  };
  await post('/Variants', { frmt_ref: 'ZERO-EAN', prod_id: 1, frmt_ean: '0012345678905', frmt_price: 12.5 });
  await post('/Products', {
    prod_ref: 'FORMULA-1',
    prod_title: { en: '=HYPERLINK("http://x","click")', fr: '+33 1 23', es: '@sum' },
    prod_brand: '-minus brand',
  });
});
afterAll(() => {
  process.chdir(home);
  rmSync(dir, { recursive: true, force: true });
});

async function run(...args: string[]) {
  const { sb } = fixture;
  const out = memoryOutput();
  const code = await main(
    ['export', ...args, '--catalog-url', sb.catalogUrl, '--api-key', sb.apiKey, '--rate-limit', 'off'],
    out,
  );
  return { code, out };
}

function csvRows(file: string): Array<Record<string, string>> {
  const text = readFileSync(file, 'utf8');
  return Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

describe('export to XLSX', () => {
  it('writes one sheet per entity with typed cells and every language as its own column', async () => {
    const file = join(dir, 'catalog.xlsx');
    const { code, out } = await run('--out', file);
    expect(out.stderr.join('\n')).not.toContain('[INTERNAL]');
    expect(code).toBe(0);

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    expect(workbook.worksheets.map((s) => s.name)).toEqual([
      'products',
      'variants',
      'categories',
      'custom Store Locations',
      'custom Suppliers',
      'attribute-sets',
      'layouts',
    ]);

    const products = workbook.getWorksheet('products')!;
    const header = (products.getRow(1).values as unknown[]).slice(1);
    expect(header[0]).toBe('prod_ref');
    expect(header).toEqual(
      expect.arrayContaining(['prod_title', 'prod_title_fr', 'prod_title_es', 'cat_ids', 'cat_refs']),
    );
    // Each language column sits right after its base column; the ref column right after its ids.
    expect(header.indexOf('prod_title_fr')).toBe(header.indexOf('prod_title') + 1);
    expect(header.indexOf('cat_refs')).toBe(header.indexOf('cat_ids') + 1);
    expect(products.getRow(1).font?.bold).toBe(true);
    expect(products.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });

    const byRef = sheetRecords(products);
    const linen = byRef.get('LINEN-SHIRT')!;
    expect(linen.prod_title).toBe('Linen shirt');
    expect(linen.prod_title_fr).toBe('Chemise en lin');
    expect(linen.prod_title_es).toBe('Camisa de lino');
    expect(linen.prod_weight).toBe(0.25);
    expect(typeof linen.prod_id).toBe('number');
    expect(linen.prod_is_new).toBe(true);
    expect(linen.prod_date).toBeInstanceOf(Date);
    expect((linen.prod_date as Date).toISOString()).toBe('2024-03-01T08:00:00.000Z');
    expect(linen.prod_tags).toBe('linen|summer');
    expect(linen.cat_refs).toBe('CAT-SHIRTS');
    // Assets as DAM names, per language.
    expect(linen.prod_images).toBe('linen-shirt-front.jpg|linen-shirt-back.jpg');
    expect(linen.prod_images_fr).toBe('linen-shirt-fr.jpg');
    // Text that looks like a formula stays text in XLSX.
    expect(byRef.get('FORMULA-1')!.prod_title).toBe('=HYPERLINK("http://x","click")');

    const variants = sheetRecords(workbook.getWorksheet('variants')!, 'frmt_ref');
    const zero = variants.get('ZERO-EAN')!;
    expect(zero.frmt_ean).toBe('0012345678905');
    expect(zero.prod_ref).toBe('LINEN-SHIRT');
    expect(zero.frmt_price).toBe(12.5);
    // frmt_color has only en and fr in this tenant: no es column.
    const variantHeader = (workbook.getWorksheet('variants')!.getRow(1).values as unknown[]).slice(1);
    expect(variantHeader).toContain('frmt_color_fr');
    expect(variantHeader).not.toContain('frmt_color_es');

    const categories = sheetRecords(workbook.getWorksheet('categories')!, 'cat_ref');
    expect(categories.get('CAT-TOPS')!.cat_parent_ref).toBe('CAT-CLOTHING');

    // The attribute set by name beside its id: ids mean nothing in another tenant.
    expect(header.indexOf('typ_name')).toBe(header.indexOf('typ_id') + 1);

    // The v2 attribute sets with their layouts as JSON, and one layout document a row.
    const sets = sheetRecords(workbook.getWorksheet('attribute-sets')!, 'name');
    expect([...sets.keys()]).toEqual(expect.arrayContaining(['Default', 'Apparel', 'Footwear']));
    expect(sets.get('Default')!.default).toBe(true);
    const apparel = sets.get('Apparel')!;
    expect(typeof apparel.identifier).toBe('number');
    expect(JSON.parse(apparel.ProductLayout as string)).toHaveProperty('sections');
    expect(byRef.get('LINEN-SHIRT')!.typ_name).toBe(
      [...sets.values()].find((s) => s.identifier === linen.typ_id)?.name ?? null,
    );
    const layouts = sheetRecords(workbook.getWorksheet('layouts')!, 'layout');
    expect([...layouts.keys()]).toEqual(['categories', 'custom:Store Locations']);
    const categoryLayout = JSON.parse(layouts.get('categories')!.document as string);
    expect(categoryLayout.sections[0].rows[0].fields).toEqual(expect.any(Array));
  });
});

describe('export to CSV and NDJSON', () => {
  it('writes one CSV file per entity in a folder, neutralising formula-like cells', async () => {
    const folder = join(dir, 'csv');
    const { code } = await run('products', 'variants', '--out', folder, '--format', 'csv', '--bom');
    expect(code).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['products.csv', 'variants.csv']);
    expect(readFileSync(join(folder, 'products.csv')).subarray(0, 3)).toEqual(
      Buffer.from([0xef, 0xbb, 0xbf]),
    );
    const rows = csvRows(join(folder, 'products.csv'));
    const formula = rows.find((r) => r.prod_ref === 'FORMULA-1')!;
    expect(formula.prod_title).toBe(`'=HYPERLINK("http://x","click")`);
    expect(formula.prod_title_fr).toBe("'+33 1 23");
    expect(formula.prod_title_es).toBe("'@sum");
    expect(formula.prod_brand).toBe("'-minus brand");
    const zero = csvRows(join(folder, 'variants.csv')).find((r) => r.frmt_ref === 'ZERO-EAN')!;
    expect(zero.frmt_ean).toBe('0012345678905');
  });

  it('--out DIR without --format writes one CSV file per entity, as the help says', async () => {
    const folder = join(dir, 'by-default');
    const { code, out } = await run('categories', 'products', '--out', `${folder}/`);
    expect(code).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['categories.csv', 'products.csv']);
    expect(out.stderr).toContain(`wrote ${join(folder, 'categories.csv')}`);
    expect(csvRows(join(folder, 'products.csv')).map((r) => r.prod_ref)).toContain('LINEN-SHIRT');
    // A name without an extension is a folder too; --format xlsx puts catalog.xlsx in it.
    const named = join(dir, 'named-folder');
    expect((await run('categories', '--out', named)).code).toBe(0);
    expect(readdirSync(named)).toEqual(['categories.csv']);
    expect((await run('categories', '--out', named, '--format', 'xlsx')).code).toBe(0);
    expect(readdirSync(named).sort()).toEqual(['catalog.xlsx', 'categories.csv']);
  });

  it('keeps formula-like cells as they are with --raw, in the single file named', async () => {
    const file = join(dir, 'raw-products.csv');
    const { code } = await run('products', '--out', file, '--raw');
    expect(code).toBe(0);
    const formula = csvRows(file).find((r) => r.prod_ref === 'FORMULA-1')!;
    expect(formula.prod_title).toBe('=HYPERLINK("http://x","click")');
  });

  it('writes NDJSON objects that keep lists as arrays', async () => {
    const file = join(dir, 'products.ndjson');
    const { code } = await run('products', '--out', file);
    expect(code).toBe(0);
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const linen = records.find((r) => r.prod_ref === 'LINEN-SHIRT')!;
    expect(linen.prod_tags).toEqual(['linen', 'summer']);
    expect(linen.cat_refs).toEqual(['CAT-SHIRTS']);
    expect(linen.prod_title_es).toBe('Camisa de lino');
    expect(linen.prod_weight).toBe(0.25);
  });
});

describe('choosing what to export', () => {
  it('--languages en,fr exports the base language and French only', async () => {
    const file = join(dir, 'en-fr.csv');
    expect((await run('categories', '--out', file, '--languages', 'en,fr')).code).toBe(0);
    const rows = csvRows(file);
    expect(Object.keys(rows[0]!)).toContain('cat_title_fr');
    expect(Object.keys(rows[0]!)).not.toContain('cat_title_es');
    expect(rows.find((r) => r.cat_ref === 'CAT-CLOTHING')!.cat_title_fr).toBe('Vêtements');
  });

  it('--filter narrows the rows and --select the columns (ref and id always kept)', async () => {
    const file = join(dir, 'filtered.csv');
    const { code } = await run(
      'products',
      '--out',
      file,
      '--filter',
      "prod_brand eq 'Atelier Nord'",
      '--select',
      'prod_title,cat_refs',
    );
    expect(code).toBe(0);
    const rows = csvRows(file);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.prod_ref)).toContain('LINEN-SHIRT');
    expect(rows.map((r) => r.prod_ref)).not.toContain('COTTON-TEE');
    expect(Object.keys(rows[0]!)).toEqual([
      'prod_ref',
      'prod_id',
      'prod_title',
      'prod_title_fr',
      'prod_title_es',
      'cat_ids',
      'cat_refs',
    ]);
  });

  it('prints one JSON object on stdout with --json', async () => {
    const { code, out } = await run('categories', '--out', join(dir, 'json.xlsx'), '--json');
    expect(code).toBe(0);
    expect(out.stdout).toHaveLength(1);
    const summary = JSON.parse(out.stdout[0]!);
    expect(summary).toMatchObject({ format: 'xlsx', entities: [{ entity: 'categories', rows: 14 }] });
    expect(summary.requests.byMethod.GET).toBeGreaterThan(0);
    expect(JSON.stringify(summary)).not.toContain(fixture.sb.apiKey);
  });
});

describe('fatal problems are one coded line and exit code 2', () => {
  it.each([
    [['nonsense', '--out', 'x.xlsx'], 'SCHEMA_UNKNOWN_ENTITY'],
    [['products', '--out', 'x.csv', '--languages', 'de'], 'CONFIG_INVALID'],
    [['products', '--out', 'x.csv', '--select', 'no_such_field'], 'CONFIG_INVALID'],
    [['products', 'variants', '--out', 'one.csv'], 'CONFIG_INVALID'],
    [['products', '--out', 'x.csv', '--since', 'yesterday'], 'CONFIG_INVALID'],
    [['products', '--out', 'x.csv', '--filter', 'prod_nope eq 1'], 'API_VALIDATION'],
  ])('%j -> %s', async (args, code) => {
    const result = await run(...args);
    expect(result.code).toBe(2);
    expect(result.out.stderr.join('\n')).toContain(`[${code}]`);
    expect(result.out.stderr.join('\n')).not.toMatch(/\n\s+at /);
  });

  it('a failure part-way leaves no truncated file: complete files only', async () => {
    // The filter fits products, not categories: the second entity fails with the service's 400.
    const filter = ['--filter', "prod_brand eq 'Atelier Nord'"];
    const file = join(dir, 'failed.xlsx');
    const xlsx = await run('products', 'categories', '--out', file, ...filter);
    expect(xlsx.code).toBe(2);
    expect(xlsx.out.stderr.join('\n')).toContain('[API_VALIDATION]');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.partial`)).toBe(false);

    const folder = join(dir, 'failed-csv');
    const csv = await run('products', 'categories', '--out', folder, '--format', 'csv', ...filter);
    expect(csv.code).toBe(2);
    expect(readdirSync(folder)).toEqual(['products.csv']);
  });

  it('a wrong API key is a fatal, readable error that never shows the key', async () => {
    const out = memoryOutput();
    const args = ['products', '--out', join(dir, 'k.csv'), '--catalog-url', fixture.sb.catalogUrl];
    const code = await main(['export', ...args, '--api-key', 'wrong-secret-key'], out);
    expect(code).toBe(2);
    expect(out.stderr.join('\n')).toContain('[API_UNAUTHORIZED]');
    expect(out.stderr.join('\n')).not.toContain('wrong-secret-key');
  });
});

/** Sheet rows as records keyed by the header, indexed by one column. */
function sheetRecords(sheet: ExcelJS.Worksheet, key = 'prod_ref'): Map<string, Record<string, unknown>> {
  const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
  const out = new Map<string, Record<string, unknown>>();
  sheet.eachRow((row, n) => {
    if (n === 1) return;
    const values = (row.values as unknown[]).slice(1);
    const record: Record<string, unknown> = {};
    header.forEach((h, i) => {
      record[h] = values[i] ?? null;
    });
    out.set(String(record[key]), record);
  });
  return out;
}
