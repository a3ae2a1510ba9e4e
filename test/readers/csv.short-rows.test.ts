// Rows shorter than the header: read with the missing cells at the end empty, one note for the file.
// Rows longer than the header stay row errors unless the cells beyond it are empty: then the empty cells
// are dropped, and one note for the file says so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSource, openSourceThreaded, type SourceRow } from '../../src/readers/index.js';
import { chunked, collect, plain, REALWORLD, readAll, tempFile } from './helpers.js';

const SHOPWARE = join(REALWORLD, 'shopware5_article_complete.csv');
const PRESTASHOP = join(REALWORLD, 'prestashop_combinations_import.csv');

const shortNotes = (notes: readonly string[]) => notes.filter((note) => note.includes('fewer cells'));
const longNotes = (notes: readonly string[]) => notes.filter((note) => note.includes('more cells'));

function shape(rows: SourceRow[]) {
  return rows.map((row) => ({ at: row.location.text, cells: { ...row.cells }, error: row.error?.code }));
}

describe('CSV rows shorter than the header', () => {
  it('Shopware 5: every row lacks the last of 67 cells; all 8 rows are read, one note says so', async () => {
    const { source, rows } = await readAll(SHOPWARE);
    expect(source.headers).toHaveLength(67);
    expect(source.headers.at(-1)).toBe('purchasePrice');
    expect(rows).toHaveLength(8);
    expect(rows.filter((row) => row.error)).toEqual([]);
    expect(rows.map((row) => row.cells.ordernumber)).toEqual([
      'test-10001',
      'test-10002',
      'test-10003',
      'test-10001.1',
      'test-10001.2',
      'test-10001.3',
      'test-10001.4',
      'test-10001.5',
    ]);
    // By position: the 66th cell is `keywords`, the 67th is read as empty.
    expect(new Set(rows.map((row) => row.cells.purchasePrice))).toEqual(new Set(['']));
    expect(rows[0]!.cells.imageUrl).toBe('[placeholder_for_fixture_image]');
    expect(shortNotes(source.notes)).toEqual([
      '8 rows have fewer cells than the header (66 of 67; first on line 2): the missing cells at the end were read as empty',
    ]);
  });

  it('Shopware 5 split at many chunk sizes: the same rows and the same single note', async () => {
    const bytes = readFileSync(SHOPWARE);
    const read = async (size: number) => {
      const source = await openSource('-', { stdin: chunked(bytes, size), format: 'csv' });
      const rows = await collect(source);
      return { rows: shape(rows), notes: shortNotes(source.notes) };
    };
    const whole = await read(bytes.length);
    expect(whole.rows).toHaveLength(8);
    expect(whole.notes).toHaveLength(1);
    for (const size of [1, 2, 3, 7, 64, 4096]) {
      expect(await read(size), `chunk size ${size}`).toEqual(whole);
    }
  });

  it('the note is there when the file is read on a second thread', async () => {
    const source = await openSourceThreaded(SHOPWARE, {}, 'on');
    const rows = await collect(source);
    await source.close();
    expect(rows.filter((row) => row.error)).toEqual([]);
    expect(shortNotes(source.notes)).toHaveLength(1);
  });

  it('rows short by different counts: one note with the range and the first line', async () => {
    const text = 'a;b;c;d;e\n1;2;3;4;5\n1;2;3\n\n1;2;3;4\n1;2\n"x;y";2;3;4;5\n';
    const { source, rows } = await readAll(tempFile('short-mixed.csv', text));
    expect(rows.map(plain)).toEqual([
      { a: '1', b: '2', c: '3', d: '4', e: '5' },
      { a: '1', b: '2', c: '3', d: '', e: '' },
      { a: '1', b: '2', c: '3', d: '4', e: '' },
      { a: '1', b: '2', c: '', d: '', e: '' },
      { a: 'x;y', b: '2', c: '3', d: '4', e: '5' },
    ]);
    expect(rows.filter((row) => row.error)).toEqual([]);
    expect(shortNotes(source.notes)).toEqual([
      '3 rows have fewer cells than the header (2 to 4 of 5; first on line 3): the missing cells at the end were read as empty',
    ]);
  });

  it('a file whose rows match the header has no such note', async () => {
    const { source } = await readAll(tempFile('whole.csv', 'a,b\n1,2\n3,4\n'));
    expect(shortNotes(source.notes)).toEqual([]);
  });

  it('a padded file: cells beyond the header that hold only spaces are empty, a filled one is an error', async () => {
    const text = ' sku , name \n A1 , Hat ,   \n B2 , Cap , x \n C3 \n';
    const { source, rows } = await readAll(tempFile('short-padded.csv', text));
    expect(rows.map(plain)).toEqual([
      { sku: 'A1', name: 'Hat' },
      { sku: 'B2', name: 'Cap' },
      { sku: 'C3', name: '' },
    ]);
    expect(rows.map((row) => row.error?.code)).toEqual([undefined, 'CSV_ROW_LENGTH', undefined]);
    expect(rows[1]!.error?.message).toContain('line 3');
    expect(shortNotes(source.notes)).toHaveLength(1);
    // Line 2's empty cell beyond the header is dropped, and said; line 3's filled one is its error.
    expect(longNotes(source.notes)).toEqual([
      '1 row has more cells than the header (3 of 2; first on line 2): the cells beyond the header were empty and were dropped',
    ]);
  });
});

describe('CSV rows longer than the header, the cells beyond it empty', () => {
  it('PrestaShop combinations: the first record ends in an extra ";": read whole, one note says so', async () => {
    const { source, rows } = await readAll(PRESTASHOP);
    expect(source.headers).toHaveLength(23);
    expect(rows).toHaveLength(27);
    expect(rows.filter((row) => row.error)).toEqual([]);
    expect(longNotes(source.notes)).toEqual([
      '1 row has more cells than the header (24 of 23; first on line 2): the cells beyond the header were empty and were dropped',
    ]);
  });

  it('split at many chunk sizes, and on a second thread: the same rows and the same single note', async () => {
    const text = 'a;b;c\n1;2;3\n4;5;6;;\n7;8;9;\n';
    const bytes = Buffer.from(text);
    const read = async (size: number) => {
      const source = await openSource('-', { stdin: chunked(bytes, size), format: 'csv' });
      const rows = await collect(source);
      return { rows: shape(rows), notes: longNotes(source.notes) };
    };
    const whole = await read(bytes.length);
    expect(whole.notes).toEqual([
      '2 rows have more cells than the header (up to 5 of 3; first on line 3): the cells beyond the header were empty and were dropped',
    ]);
    for (const size of [1, 2, 5, 64]) expect(await read(size), `chunk size ${size}`).toEqual(whole);
    const threaded = await openSourceThreaded(tempFile('long.csv', text), {}, 'on');
    await collect(threaded);
    await threaded.close();
    expect(longNotes(threaded.notes)).toEqual(whole.notes);
  });
});
