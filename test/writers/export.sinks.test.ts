// Export sinks write files a person opens in Excel and a program loads, with the types intact.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createCsvSink,
  createNdjsonSink,
  createXlsxSink,
  type ExportColumn,
  unneutralise,
} from '../../src/writers/export/index.js';

const dir = mkdtempSync(join(tmpdir(), 'catalog-io-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const columns: ExportColumn[] = [
  { header: 'prod_ref', kind: 'text' },
  { header: 'frmt_ean', kind: 'text' },
  { header: 'frmt_price', kind: 'number' },
  { header: 'frmt_stock', kind: 'integer' },
  { header: 'prod_date', kind: 'date-time' },
  { header: 'prod_tags', kind: 'text' },
  { header: 'prod_note', kind: 'text' },
];
const rows = [
  ['SKU-1', '0000080446392', 12.5, 3, '2024-02-01T10:30:00Z', ['summer', 'linen'], '=HYPERLINK("http://x")'],
  ['SKU-2', '4006381333931', 0, null, null, [], '-5 degrees'],
  ['SKU-3', null, 99.99, 7, '2025-12-31T23:59:59Z', ['a'], '@line\nsecond =line'],
] as const;

describe('XLSX export sink', () => {
  it('writes typed cells, a frozen bold header and an autofilter, readable by a second reader', async () => {
    const file = join(dir, 'catalog.xlsx');
    const sink = createXlsxSink(file);
    const table = await sink.table('products', columns);
    for (const row of rows) await table.writeRow(row);
    await table.close();
    const second = await sink.table('custom:Store Locations', [{ header: 'ce_ref', kind: 'text' }]);
    await second.writeRow(['STORE-1']);
    await second.close();
    await sink.close();

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    expect(wb.worksheets.map((s) => s.name)).toEqual(['products', 'custom Store Locations']);
    const ws = wb.getWorksheet('products')!;
    expect(ws.getRow(1).values).toEqual([undefined, ...columns.map((c) => c.header)]);
    expect(ws.getRow(1).font?.bold).toBe(true);
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.autoFilter).toBeTruthy();
    const r2 = ws.getRow(2);
    expect(r2.getCell(1).value).toBe('SKU-1');
    expect(r2.getCell(2).value).toBe('0000080446392'); // EAN keeps its zeros: text
    expect(r2.getCell(3).value).toBe(12.5); // number
    expect(r2.getCell(4).value).toBe(3);
    expect(r2.getCell(5).value).toEqual(new Date('2024-02-01T10:30:00Z')); // a real date
    expect(r2.getCell(6).value).toBe('summer|linen');
    expect(r2.getCell(7).value).toBe('=HYPERLINK("http://x")'); // text, never a formula
    expect(r2.getCell(7).type).toBe(ExcelJS.ValueType.String);
    expect(ws.getRow(3).getCell(3).value).toBe(0);
    expect(ws.getRow(3).getCell(4).value).toBeNull();
    expect(ws.getColumn(1).width).toBeGreaterThanOrEqual(8);
  });

  it('says which cells Excel would cut, and writes dates Excel cannot show as ISO text', async () => {
    const file = join(dir, 'limits.xlsx');
    const sink = createXlsxSink(file);
    const table = await sink.table('products', [
      { header: 'prod_ref', kind: 'text' },
      { header: 'prod_description', kind: 'text' },
      { header: 'prod_release', kind: 'date' },
      { header: 'prod_launch_at', kind: 'date-time' },
    ]);
    await table.writeRow(['SHORT', 'fine', '1900-03-01', '2024-02-01T10:30:00Z']);
    await table.writeRow(['LONG-1', 'x'.repeat(32_768), '1899-12-31', '1900-02-28T12:00:00.000Z']);
    await table.writeRow(['LONG-2', 'y'.repeat(40_000), null, null]);
    await table.close();
    await sink.close();
    expect(sink.notes).toEqual([
      expect.stringMatching(
        /^products sheet, column "prod_description": 2 cells hold more than Excel's 32,767 characters \(first on row 3\)/,
      ),
    ]);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const ws = wb.getWorksheet('products')!;
    // The file holds the text whole: only Excel's own save would cut it.
    expect(String(ws.getRow(3).getCell(2).value)).toHaveLength(32_768);
    expect(ws.getRow(2).getCell(3).value).toEqual(new Date('1900-03-01T00:00:00Z'));
    expect(ws.getRow(3).getCell(3).value).toBe('1899-12-31');
    expect(ws.getRow(3).getCell(4).value).toBe('1900-02-28T12:00:00.000Z');
  });
});

describe('CSV export sink', () => {
  it('writes RFC 4180 with CRLF, a BOM on request, and guards formula-like text', async () => {
    const sink = createCsvSink({ dir }, { bom: true });
    const table = await sink.table('products', columns);
    for (const row of rows) await table.writeRow(row);
    await table.close();
    await sink.close();
    expect(sink.files).toEqual([join(dir, 'products.csv')]);
    const text = readFileSync(join(dir, 'products.csv'), 'utf8');
    expect(text.startsWith('\uFEFFprod_ref,')).toBe(true);
    expect(text).toContain('\r\n');
    const parsed = Papa.parse<string[]>(text.slice(1), { newline: '\r\n' }).data.filter((r) => r.length > 1);
    expect(parsed[1]).toEqual([
      'SKU-1',
      '0000080446392',
      '12.5',
      '3',
      '2024-02-01T10:30:00Z',
      'summer|linen',
      `'=HYPERLINK("http://x")`,
    ]);
    expect(parsed[2]![6]).toBe("'-5 degrees");
    // a multi-line cell that starts with @ is guarded too
    expect(parsed[3]![6]).toBe("'@line\nsecond =line");
    // numbers are never guarded, even negative ones
    expect(parsed[2]![2]).toBe('0');
    // the import reads a guarded cell back as the original text
    expect(unneutralise(parsed[1]![6]!)).toBe('=HYPERLINK("http://x")');
    expect(unneutralise("'plain")).toBe("'plain");
  });

  it('--raw keeps cells as they are', async () => {
    const file = join(dir, 'raw.csv');
    const sink = createCsvSink({ file }, { raw: true });
    const table = await sink.table('products', columns);
    await table.writeRow(rows[0]);
    await table.close();
    const parsed = Papa.parse<string[]>(readFileSync(file, 'utf8').trim(), { newline: '\r\n' }).data;
    expect(parsed[1]![6]).toBe('=HYPERLINK("http://x")');
  });

  it('a single named CSV file refuses a second entity with a clear error', async () => {
    const sink = createCsvSink({ file: join(dir, 'one.csv') });
    const t = await sink.table('products', columns);
    await t.close();
    await expect(sink.table('variants', columns)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});

describe('NDJSON export sink', () => {
  it('writes one object a line and keeps multi-values as arrays', async () => {
    const sink = createNdjsonSink({ dir });
    const table = await sink.table('custom:Store Locations', columns);
    for (const row of rows) await table.writeRow(row);
    await table.close();
    const lines = readFileSync(join(dir, 'custom-Store Locations.ndjson'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0]!)).toEqual({
      prod_ref: 'SKU-1',
      frmt_ean: '0000080446392',
      frmt_price: 12.5,
      frmt_stock: 3,
      prod_date: '2024-02-01T10:30:00Z',
      prod_tags: ['summer', 'linen'],
      prod_note: '=HYPERLINK("http://x")',
    });
  });
});
