// XLSX: cell types, header detection, sheets by name and index, several sheets in one run.
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { chunked, expectCode, plain, readAll, tempFile, tempPath } from './helpers.js';

let workbookPath = '';

beforeAll(async () => {
  const workbook = new ExcelJS.Workbook();
  const products = workbook.addWorksheet('Products');
  products.mergeCells('A1:F1');
  products.getCell('A1').value = 'Spring catalogue';
  products.addRow([]);
  products.getRow(2).values = ['sku', 'released', 'price', 'ean', 'total', 'notes', 'link'];
  products.getRow(3).values = [
    'A1',
    new Date(Date.UTC(2024, 1, 29, 13, 45, 0)),
    19.5,
    '0000080446392',
    { formula: 'C3*2', result: 39 },
    { richText: [{ text: 'bold ', font: { bold: true } }, { text: 'and plain' }] },
    { text: 'Manual', hyperlink: 'https://example.invalid/manual.pdf' },
  ];
  products.getCell('B3').numFmt = 'yyyy-mm-dd hh:mm';
  products.getRow(4).values = ['B2', null, 3, '12345678901234567890', { formula: 'C4*2', result: 6 }];
  // A styled cell with no value is empty.
  products.getCell('F4').fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFF0000' } };
  products.getRow(5).values = [];
  products.getRow(6).values = ['C3', null, true];
  const prices = workbook.addWorksheet('Prices');
  prices.addRow(['sku', 'amount']);
  prices.addRow(['A1', 10]);
  prices.addRow(['B2', 20]);
  const buffer = Buffer.from(await workbook.xlsx.writeBuffer());
  workbookPath = tempFile('generated.xlsx', buffer);
});

describe('XLSX cells', () => {
  it('finds the header under a merged title and converts every cell type', async () => {
    const { source, rows } = await readAll(workbookPath);
    expect(source.format).toBe('xlsx');
    expect(source.headers).toEqual(['sku', 'released', 'price', 'ean', 'total', 'notes', 'link']);
    expect(source.notes.join(' ')).toContain('sheet Products row 2');
    expect(rows).toHaveLength(3);
    expect(plain(rows[0])).toEqual({
      sku: 'A1',
      released: '2024-02-29T13:45:00.000',
      price: 19.5,
      ean: '0000080446392',
      total: 39,
      notes: 'bold and plain',
      link: 'Manual',
    });
    expect(rows[0]!.location).toMatchObject({ text: 'sheet Products row 3', line: 3, sheet: 'Products' });
    expect(rows[1]!.cells.ean).toBe('12345678901234567890');
    expect(rows[1]!.cells.notes).toBeNull();
    expect(rows[1]!.cells.released).toBeNull();
    // the empty row 5 is skipped
    expect(rows[2]!.location.text).toBe('sheet Products row 6');
    expect(rows[2]!.cells.released).toBeNull();
    expect(rows[2]!.cells.price).toBe(true);
  });

  it('takes an explicit header row', async () => {
    const { source, rows } = await readAll(workbookPath, { headerRow: 2 });
    expect(source.headers[0]).toBe('sku');
    expect(rows).toHaveLength(3);
  });
});

describe('XLSX sheets', () => {
  it('selects a sheet by name or by 1-based index', async () => {
    const byName = await readAll(workbookPath, { sheet: 'Prices' });
    expect(byName.source.headers).toEqual(['sku', 'amount']);
    expect(byName.rows.map(plain)).toEqual([
      { sku: 'A1', amount: 10 },
      { sku: 'B2', amount: 20 },
    ]);
    const byIndex = await readAll(workbookPath, { sheet: 2 });
    expect(byIndex.rows[1]!.location.text).toBe('sheet Prices row 3');
  });

  it('reads several sheets in one run, each row knowing its sheet', async () => {
    const { rows } = await readAll(workbookPath, { sheet: ['Products', 'Prices'] });
    expect(rows.map((row) => row.location.sheet)).toEqual([
      'Products',
      'Products',
      'Products',
      'Prices',
      'Prices',
    ]);
    expect(rows[3]!.cells.amount).toBe(10);
    expect(rows[3]!.index).toBe(1);
  });

  it('an unknown sheet is an error listing the sheets there are', async () => {
    const error = await expectCode(
      (async () => {
        const source = await openSource(workbookPath, { sheet: 'Nope' });
        for await (const _row of source.rows) {
          // no row: the sheet does not exist
        }
      })(),
      'XLSX_SHEET_NOT_FOUND',
    );
    expect(error.message).toContain('"Products"');
    expect(error.message).toContain('"Prices"');
  });
});

describe('XLSX written by a streaming writer (parts after the sheets, sizes after the data)', () => {
  let streamed = '';

  beforeAll(async () => {
    // exceljs's streaming writer, as `catalog-io export` uses it: sheets first, then the shared strings,
    // the styles, the relationships and the workbook, each entry's sizes after its data.
    streamed = tempPath('streamed.xlsx');
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({
      filename: streamed,
      useSharedStrings: true,
      useStyles: true,
    });
    for (const name of ['products', 'variants', 'categories', 'custom Store Locations']) {
      const sheet = writer.addWorksheet(name);
      sheet.addRow(['ref', 'title', 'updated']).commit();
      for (let i = 1; i <= 30; i++) {
        const row = sheet.addRow([
          `${name}-${i}`,
          `Title ${i} of ${name}`,
          new Date(Date.UTC(2024, 0, i, 12)),
        ]);
        row.getCell(3).numFmt = 'yyyy-mm-dd hh:mm';
        row.commit();
      }
      sheet.commit();
    }
    await writer.commit();
  });

  it('finds every sheet by name, with its shared strings and dates, every time', async () => {
    // exceljs's front-to-back reader lost the parts after the sheets on most runs (names became
    // "Sheet1".., dates became day numbers): read several times to be sure.
    for (let run = 0; run < 5; run++) {
      const { source, rows } = await readAll(streamed, { sheet: 'categories' });
      expect(source.headers).toEqual(['ref', 'title', 'updated']);
      expect(rows).toHaveLength(30);
      expect(plain(rows[0])).toEqual({
        ref: 'categories-1',
        title: 'Title 1 of categories',
        updated: '2024-01-01T12:00:00.000',
      });
      expect(rows[29]!.location.text).toBe('sheet categories row 31');
    }
    const byIndex = await readAll(streamed, { sheet: 4 });
    expect(byIndex.rows[0]!.location.sheet).toBe('custom Store Locations');
  });

  it('reads a workbook from a stream (stdin, gzip) through a temporary copy it removes', async () => {
    const copies = () => readdirSync(tmpdir()).filter((name) => name.startsWith('catalog-io-xlsx-')).length;
    const before = copies();
    const fromStdin = await readAll('-', {
      format: 'xlsx',
      sheet: 'variants',
      stdin: chunked(readFileSync(streamed), 1000),
    });
    expect(fromStdin.rows).toHaveLength(30);
    expect(fromStdin.rows[2]!.cells.updated).toBe('2024-01-03T12:00:00.000');
    const gzipped = tempFile('streamed.xlsx.gz', gzipSync(readFileSync(streamed)));
    const source = await openSource(gzipped, { format: 'xlsx', sheet: 'products' });
    for await (const row of source.rows) {
      expect(row.cells.ref).toBe('products-1');
      break; // closing early removes the copy too
    }
    await source.close();
    expect(copies()).toBe(before);
  });

  it('a temporary copy that cannot be made is SOURCE_UNREADABLE, naming the folder', async () => {
    const saved = process.env.TMPDIR;
    // A file where the temporary folder should be.
    process.env.TMPDIR = tempFile('not-a-folder', 'x');
    try {
      const error = await expectCode(
        openSource('-', { format: 'xlsx', stdin: chunked(readFileSync(streamed), 4096) }),
        'SOURCE_UNREADABLE',
      );
      expect(error.message).toContain('not-a-folder');
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it("tells progress through a local workbook in the file's bytes", async () => {
    const source = await openSource(streamed, { sheet: 'products' });
    const total = source.totalBytes!;
    let seen = 0;
    for await (const _row of source.rows) seen++;
    expect(seen).toBe(30);
    expect(source.bytesRead()).toBe(total);
    await source.close();
  });
});
