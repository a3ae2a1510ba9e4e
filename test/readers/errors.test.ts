// Bad input: each file-level problem is ONE coded CatalogIoError with a location where one exists,
// never a stack trace and never a hang. gzip is decompressed transparently.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CatalogIoError } from '../../src/errors.js';
import { openSource } from '../../src/readers/index.js';
import { brokenSheet } from '../fixtures/hostile/generate.js';
import { collect, expectCode, readAll, tempFile } from './helpers.js';

let workbook: Buffer;

beforeAll(async () => {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Data');
  sheet.addRow(['sku', 'name']);
  for (let i = 0; i < 2000; i++) sheet.addRow([`S${i}`, `name ${i} ${'x'.repeat(40)}`]);
  workbook = Buffer.from(await book.xlsx.writeBuffer());
});

/** Opens and reads everything: the error may come at open or while reading. */
async function readThrough(path: string, options = {}) {
  const source = await openSource(path, options);
  return collect(source);
}

describe('bad input', () => {
  it('a missing file', async () => {
    await expectCode(openSource('/no/such/dir/feed.csv'), 'SOURCE_NOT_FOUND');
  });

  it('an empty file', async () => {
    for (const name of ['empty.csv', 'empty.json', 'empty.ndjson', 'empty.xlsx']) {
      await expectCode(openSource(tempFile(name, '')), 'SOURCE_EMPTY');
    }
  });

  it('a file of blank lines', async () => {
    await expectCode(openSource(tempFile('blank-lines.csv', '\n\n  \n')), 'SOURCE_EMPTY');
  });

  it('a header-only file has no data', async () => {
    const error = await expectCode(openSource(tempFile('header-only.csv', 'sku,name\n')), 'CSV_NO_DATA');
    expect(error.message).toContain('no data rows');
  });

  it('a binary file named .csv is not a CSV', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
      randomBytes(4000),
    ]);
    await expectCode(openSource(tempFile('image.csv', bytes)), 'CSV_NOT_CSV');
  });

  it('a workbook named .csv is not a CSV, and the message says what it is', async () => {
    const error = await expectCode(openSource(tempFile('book.csv', workbook)), 'CSV_NOT_CSV');
    expect(error.message).toContain('xlsx');
  });

  it('markup at the start of a CSV (after a BOM and blank lines) is not a CSV, naming what it is', async () => {
    const page = '\uFEFF\n  \n<!doctype html>\n<html><body><p>Sign in, please.</p></body></html>\n';
    const html = await expectCode(openSource(tempFile('login-page.csv', page)), 'CSV_NOT_CSV');
    expect(html.message).toContain('looks like an HTML page');
    expect(html.location).toBe('line 3');
    const bare = await expectCode(
      openSource(tempFile('bare-html.csv', '<HTML>\n<p>x, y</p>\n')),
      'CSV_NOT_CSV',
    );
    expect(bare.message).toContain('looks like an HTML page');
    const xml = await expectCode(
      openSource(tempFile('feed-xml.csv', '<?xml version="1.0"?>\n<products><p sku="A1"/></products>\n')),
      'CSV_NOT_CSV',
    );
    expect(xml.message).toContain('looks like an XML document');
    // Even with the delimiter named, markup is refused.
    await expectCode(openSource(tempFile('page-delim.csv', page), { delimiter: ';' }), 'CSV_NOT_CSV');
  });

  it('a CSV whose first cell merely starts with `<` is still a CSV', async () => {
    const { rows } = await readAll(tempFile('angle.csv', '<sku>,name\nA1,Chair\n'));
    expect(rows[0]!.cells['<sku>']).toBe('A1');
  });

  it('a truncated workbook is XLSX_CORRUPT, not a hang', async () => {
    const path = tempFile('truncated.xlsx', workbook.subarray(0, Math.floor(workbook.length / 2)));
    await expectCode(readThrough(path), 'XLSX_CORRUPT');
  });

  it('a workbook with corrupt bytes is XLSX_CORRUPT', async () => {
    const damaged = Buffer.from(workbook);
    Buffer.alloc(2000, 0x41).copy(damaged, 400);
    await expectCode(readThrough(tempFile('damaged.xlsx', damaged)), 'XLSX_CORRUPT');
  });

  it('a sheet whose XML breaks mid-way: the rows before it, then XLSX_CORRUPT after the last whole row', async () => {
    const source = await openSource(tempFile('broken-sheet.xlsx', brokenSheet()));
    const read: string[] = [];
    const error = await expectCode(async () => {
      for await (const row of source.rows) read.push(String(row.cells.sku));
    }, 'XLSX_CORRUPT');
    expect(read).toEqual(['A', 'B']);
    expect(error.message).toMatch(/\(after sheet Feed row 3\)$/);
  });

  it('text named .xlsx is XLSX_CORRUPT', async () => {
    await expectCode(openSource(tempFile('text.xlsx', 'sku,name\nA,x\n')), 'XLSX_CORRUPT');
  });

  it('a 10 MB cell is a CELL_TOO_LARGE row error with its location, the rows after it are read; a raised limit reads it', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const path = tempFile('big-cell.csv', `sku,description\nA,small\nB,"${big}"\nC,small\n`);
    const unquoted = tempFile('big-unquoted.csv', `sku,description\nA,small\nB,${big}\nC,small\n`);
    for (const file of [path, unquoted]) {
      const rows = await readThrough(file);
      expect(rows.map((row) => row.cells.sku)).toEqual(['A', '', 'C']);
      expect(rows[1]!.error?.code).toBe('CELL_TOO_LARGE');
      expect(rows[1]!.location.text).toBe('line 3');
      expect(rows[1]!.error?.message).toContain('(line 3)');
    }
    const { rows } = await readAll(path, { maxCellBytes: 16 * 1024 * 1024 });
    expect(rows[1]!.cells.description).toHaveLength(big.length);
  });

  it('a cell above a lowered limit is a row error naming its column; the other cells stay', async () => {
    const rows = await readThrough(
      tempFile('limit.csv', 'sku,name\nA,0123456789012345678901234567890123456789\nB,ok\n'),
      { maxCellBytes: 16 },
    );
    expect(rows[0]!.error?.code).toBe('CELL_TOO_LARGE');
    expect(rows[0]!.error?.message).toContain('line 2, column "name"');
    expect(rows[0]!.cells).toEqual({ sku: 'A', name: '' });
    expect(rows[1]!.error).toBeUndefined();
  });

  it("a cell above the limit in a CSV or a workbook is its row's error; the rows around it are read", async () => {
    const csv = tempFile('late-limit.csv', `sku,name\nA,short\nB,short\nC,${'y'.repeat(40)}\nD,short\n`);
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Data');
    sheet.addRows([
      ['sku', 'name'],
      ['A', 'short'],
      ['B', 'short'],
      ['C', 'y'.repeat(40)],
      ['D', 'short'],
    ]);
    const xlsx = tempFile('late-limit.xlsx', Buffer.from(await book.xlsx.writeBuffer()));
    for (const [path, where] of [
      [csv, 'line 4, column "name"'],
      [xlsx, 'sheet Data row 4, column "name"'],
    ] as const) {
      const rows = await readThrough(path, { maxCellBytes: 16 });
      expect(
        rows.map((row) => row.cells.sku),
        path,
      ).toEqual(['A', 'B', 'C', 'D']);
      expect(
        rows.map((row) => row.error?.code ?? 'ok'),
        path,
      ).toEqual(['ok', 'ok', 'CELL_TOO_LARGE', 'ok']);
      expect(rows[2]!.error?.message).toContain(where);
    }
  });

  it('a too large JSON string is a CELL_TOO_LARGE row error with the item', async () => {
    const path = tempFile(
      'big.json',
      JSON.stringify([{ id: 1 }, { id: 2, text: 'y'.repeat(2000) }, { id: 3, nested: { a: 1 } }]),
    );
    const rows = await readThrough(path, { maxCellBytes: 1000 });
    expect(rows.map((row) => row.error?.code ?? 'ok')).toEqual(['ok', 'CELL_TOO_LARGE', 'ok']);
    expect(rows[1]!.error?.message).toContain('item 2, column "text"');
    // The cell is left empty and the others stay, as in CSV: the row can be fixed and sent again.
    expect(rows[1]!.cells).toMatchObject({ id: 2, text: '' });
  });

  it('NDJSON too: a too large value empties its cell, the record keeps the others', async () => {
    const lines = [
      { sku: 'L1', t: 'a' },
      { sku: 'L2', t: 'b'.repeat(2000), nested: { n: 1 } },
      { sku: 'L3', t: 'c' },
    ];
    const path = tempFile('big.ndjson', `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const rows = await readThrough(path, { maxCellBytes: 1000 });
    expect(rows.map((row) => row.error?.code ?? 'ok')).toEqual(['ok', 'CELL_TOO_LARGE', 'ok']);
    expect(rows[1]!.cells).toMatchObject({ sku: 'L2', t: '', 'nested.n': 1 });
  });

  it('an unknown format option', async () => {
    await expectCode(openSource(tempFile('f.csv', 'a\n1\n'), { format: 'parquet' }), 'FORMAT_UNKNOWN');
  });

  it('JSON that holds no records', async () => {
    await expectCode(openSource(tempFile('scalar.json', '{"a": 1}')), 'JSON_NOT_RECORDS');
  });

  it('errors never carry a stack trace in their message', async () => {
    try {
      await openSource(tempFile('text2.xlsx', 'not a zip'));
    } catch (err) {
      expect(err).toBeInstanceOf(CatalogIoError);
      expect((err as Error).message).not.toMatch(/\n\s+at /);
    }
  });
});

describe('gzip', () => {
  it('.csv.gz is decompressed transparently; the format comes from the inner extension', async () => {
    const { source, rows } = await readAll(tempFile('feed.csv.gz', gzipSync('sku;name\nA;x\nB;y\n')));
    expect(source.format).toBe('csv');
    expect(source.notes).toContain('gzip decompressed');
    expect(rows).toHaveLength(2);
  });

  it('.json.gz too', async () => {
    const { rows } = await readAll(tempFile('feed.json.gz', gzipSync('[{"id":1},{"id":2}]')));
    expect(rows.map((row) => row.cells.id)).toEqual([1, 2]);
  });

  it('corrupt gzip is one error', async () => {
    const bytes = gzipSync('sku;name\n'.repeat(1000));
    await expectCode(
      readThrough(tempFile('bad.csv.gz', bytes.subarray(0, bytes.length - 30))),
      'SOURCE_UNREADABLE',
    );
  });
});
