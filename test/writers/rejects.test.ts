import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cell } from '../../src/readers/types.js';
import { openRejects, rejectsFormatFor } from '../../src/writers/rejects.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rejects-'));
});

const rows: Array<[Record<string, Cell>, string]> = [
  [{ SKU: 'A-1', Price: '12,5O', Note: 'say "hi"; ok' }, 'column "Price": must be a number, got "12,5O"'],
  [{ SKU: 'A-2', Price: 3, Note: null }, 'column "SKU": duplicate reference'],
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

  it('CSV: the input columns in order, the input delimiter, plus _error', async () => {
    const path = join(dir, 'rejects.csv');
    const writer = await openRejects(path, {
      format: 'csv',
      headers: ['SKU', 'Price', 'Note'],
      delimiter: ';',
    });
    for (const [cells, error] of rows) await writer.write(cells, error);
    await writer.close();
    expect(writer.count).toBe(2);
    const parsed = Papa.parse<Record<string, string>>(await readFile(path, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    });
    expect(parsed.meta.delimiter).toBe(';');
    expect(parsed.meta.fields).toEqual(['SKU', 'Price', 'Note', '_error']);
    expect(parsed.data).toEqual([
      { SKU: 'A-1', Price: '12,5O', Note: 'say "hi"; ok', _error: rows[0]![1] },
      { SKU: 'A-2', Price: '3', Note: '', _error: rows[1]![1] },
    ]);
  });

  it('XLSX: typed cells kept, _error last', async () => {
    const path = join(dir, 'rejects.xlsx');
    const writer = await openRejects(path, { format: 'xlsx', headers: ['SKU', 'Price', 'Note'] });
    for (const [cells, error] of rows) await writer.write(cells, error);
    await writer.close();
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getRow(1).values).toEqual([undefined, 'SKU', 'Price', 'Note', '_error']);
    expect(sheet.getRow(3).getCell(2).value).toBe(3);
    expect(sheet.getRow(2).getCell(4).value).toBe(rows[0]![1]);
  });

  it('NDJSON: nested objects rebuilt from dotted columns', async () => {
    const path = join(dir, 'rejects.ndjson');
    const writer = await openRejects(path, { format: 'ndjson', headers: [] });
    await writer.write({ id: 1, 'dimensions.width': 2, 'dimensions.depth': 3, tags: ['a', 'b'] }, 'bad');
    await writer.close();
    expect(JSON.parse((await readFile(path, 'utf8')).trim())).toEqual({
      id: 1,
      dimensions: { width: 2, depth: 3 },
      tags: ['a', 'b'],
      _error: 'bad',
    });
  });
});
