import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cell } from '../../src/readers/types.js';
import { openRejects, type RowPlace, rejectsFormatFor } from '../../src/writers/rejects.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rejects-'));
});

const rows: Array<[Record<string, Cell>, string, RowPlace]> = [
  [
    { SKU: 'A-1', Price: '12,5O', Note: 'say "hi"; ok' },
    'column "Price": must be a number, got "12,5O"',
    { text: 'sheet Products row 2', sheet: 'Products' },
  ],
  [
    { SKU: 'A-2', Price: 3, Note: '=HYPERLINK("http://x")' },
    'column "SKU": duplicate reference',
    { text: 'sheet Products row 3', sheet: 'Products' },
  ],
];

describe('rejects files', () => {
  it('picks the input format', () => {
    expect([
      rejectsFormatFor('csv'),
      rejectsFormatFor('xlsx'),
      rejectsFormatFor('json'),
      rejectsFormatFor('ndjson'),
    ]).toEqual(['csv', 'xlsx', 'ndjson', 'ndjson']);
  });

  it("follows the rejects file's own extension when it names a format", () => {
    expect([
      rejectsFormatFor('xlsx', 'out/rejects.csv'),
      rejectsFormatFor('csv', 'REJECTS.XLSX'),
      rejectsFormatFor('csv', 'rejects.jsonl'),
      rejectsFormatFor('xlsx', 'rejects.ndjson'),
      rejectsFormatFor('json', 'rejects.json'),
      rejectsFormatFor('xlsx', 'rejects'),
    ]).toEqual(['csv', 'xlsx', 'ndjson', 'ndjson', 'ndjson', 'xlsx']);
  });

  it('CSV: the input columns in order, the input delimiter, a BOM, plus _error and _source; formulas guarded', async () => {
    const path = join(dir, 'rejects.csv');
    const writer = await openRejects(path, {
      format: 'csv',
      headers: ['SKU', 'Price', 'Note', '_error'],
      delimiter: ';',
    });
    for (const [cells, error, place] of rows) await writer.write(cells, error, place);
    await writer.close();
    expect(writer.count).toBe(2);
    const bytes = await readFile(path);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const parsed = Papa.parse<Record<string, string>>(bytes.toString('utf8').slice(1), {
      header: true,
      skipEmptyLines: true,
    });
    expect(parsed.meta.delimiter).toBe(';');
    // An `_error` of a rejects file fixed and imported again is not repeated.
    expect(parsed.meta.fields).toEqual(['SKU', 'Price', 'Note', '_error', '_source']);
    expect(parsed.data).toEqual([
      {
        SKU: 'A-1',
        Price: '12,5O',
        Note: 'say "hi"; ok',
        _error: rows[0]![1],
        _source: 'sheet Products row 2',
      },
      {
        SKU: 'A-2',
        Price: '3',
        Note: `'=HYPERLINK("http://x")`,
        _error: rows[1]![1],
        _source: 'sheet Products row 3',
      },
    ]);
  });

  it("CSV: the source's single-byte encoding is kept, without a BOM", async () => {
    const path = join(dir, 'rejects-1252.csv');
    const writer = await openRejects(path, {
      format: 'csv',
      headers: ['Bezeichnung'],
      encoding: 'windows-1252',
    });
    await writer.write({ Bezeichnung: 'Größe äöü €' }, 'zu lang', { text: 'line 2' });
    await writer.close();
    const bytes = await readFile(path);
    expect(bytes.includes(Buffer.from([0x47, 0x72, 0xf6, 0xdf, 0x65]))).toBe(true); // Größe
    expect(bytes.includes(0x80)).toBe(true); // €
    expect(bytes[0]).toBe(0x42);
  });

  it("XLSX: typed cells kept, _error and _source last, the sheet named as the source's", async () => {
    const path = join(dir, 'rejects.xlsx');
    const writer = await openRejects(path, { format: 'xlsx', headers: ['SKU', 'Price', 'Note'] });
    for (const [cells, error, place] of rows) await writer.write(cells, error, place);
    await writer.close();
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    // The rows' sheet name, so `--sheet Products` finds them again.
    const sheet = workbook.worksheets[0]!;
    expect(sheet.name).toBe('Products');
    expect(sheet.getRow(1).values).toEqual([undefined, 'SKU', 'Price', 'Note', '_error', '_source']);
    expect(sheet.getRow(3).getCell(2).value).toBe(3);
    expect(sheet.getRow(2).getCell(4).value).toBe(rows[0]![1]);
    expect(sheet.getRow(2).getCell(5).value).toBe('sheet Products row 2');
    // Text stays text in a workbook: a cell that looks like a formula is not one.
    expect(sheet.getRow(3).getCell(3).value).toBe('=HYPERLINK("http://x")');
    expect(sheet.getRow(3).getCell(3).type).toBe(ExcelJS.ValueType.String);
  });

  it('NDJSON: nested objects rebuilt from dotted columns', async () => {
    const path = join(dir, 'rejects.ndjson');
    const writer = await openRejects(path, { format: 'ndjson', headers: [] });
    await writer.write({ id: 1, 'dimensions.width': 2, 'dimensions.depth': 3, tags: ['a', 'b'] }, 'bad', {
      text: 'item 4',
    });
    await writer.close();
    expect(JSON.parse((await readFile(path, 'utf8')).trim())).toEqual({
      id: 1,
      dimensions: { width: 2, depth: 3 },
      tags: ['a', 'b'],
      _error: 'bad',
      _source: 'item 4',
    });
  });
});
