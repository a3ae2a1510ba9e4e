// The same bytes split at many chunk sizes give identical rows: no parser state is lost at a
// boundary (multi-byte characters, CRLF pairs, quotes, BOMs, JSON tokens).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { openSource, type SourceRow } from '../../src/readers/index.js';
import { chunked, collect, REALWORLD } from './helpers.js';

async function rowsFromStream(bytes: Buffer, size: number, format: string): Promise<SourceRow[]> {
  const source = await openSource('-', { stdin: chunked(bytes, size), format });
  return collect(source);
}

/** Rows without the source name, which is `stdin` for streams. */
function shape(rows: SourceRow[]) {
  return rows.map((row) => ({ at: row.location.text, cells: { ...row.cells }, error: row.error?.code }));
}

const small = [1, 2, 3, 7, 64, 4096];
const large = [64, 4096, 65_536];

const cases: Array<{ name: string; bytes: () => Buffer; format: string; sizes: number[] }> = [
  {
    name: 'CSV with BOM (WooCommerce)',
    bytes: () => readFileSync(join(REALWORLD, 'woocommerce_sample_products.csv')),
    format: 'csv',
    sizes: small,
  },
  {
    name: 'padded CSV with CJK (Vendure)',
    bytes: () => readFileSync(join(REALWORLD, 'vendure_product-import-multi-languages.csv')),
    format: 'csv',
    sizes: small,
  },
  {
    name: 'CSV with CRLF, quotes and multi-line cells',
    bytes: () =>
      Buffer.from(
        'sku;name;note\r\n"a1";"Caf\u00e9 ""best""";"line1\r\nline2"\r\nb2;Th\u00e9;\r\n\r\nc3;"x;y";z',
        'utf8',
      ),
    format: 'csv',
    sizes: [1, 2, 3, 5, 7, 64],
  },
  {
    // Read by our own split, a record cut between two chunks read apart from the rest of the chunk.
    name: 'quote-free CSV (CRLF, empty cells, accents, a quoted line late)',
    bytes: () => {
      const lines = ['sku;name;size;tags'];
      // Past the head the reader looks at first (64 KB) in one piece.
      for (let i = 0; i < 6000; i++)
        lines.push(`S-${i};Th\u00e9 ${i % 7 ? i : ''};${i % 3 ? 'M' : ''};a|b|${i}`);
      lines.push('S-6000;"quoted; late";L;x');
      return Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
    },
    format: 'csv',
    sizes: [3, 7, 64, 4096],
  },
  {
    name: 'CSV in UTF-16 LE with BOM',
    bytes: () => iconv.encode('sku,name\nA,\u00e9t\u00e9\nB,\u65e5\u672c\n', 'utf-16le', { addBOM: true }),
    format: 'csv',
    sizes: [1, 2, 3, 7, 64],
  },
  {
    name: 'Magento multi-line CSV',
    bytes: () => readFileSync(join(REALWORLD, 'magento2-sample-data_configurable_products.csv')),
    format: 'csv',
    sizes: large,
  },
  {
    name: 'JSON array (DummyJSON)',
    bytes: () => readFileSync(join(REALWORLD, 'dummyjson_products.json')),
    format: 'json',
    sizes: [3, 7, 64, 4096],
  },
  {
    name: 'NDJSON (Google retail)',
    bytes: () => readFileSync(join(REALWORLD, 'google-retail_products.ndjson')),
    format: 'ndjson',
    sizes: [3, 7, 64, 4096],
  },
];

describe('chunk boundaries', () => {
  for (const { name, bytes, format, sizes } of cases) {
    it(`${name}: identical rows at chunk sizes ${sizes.join(', ')}`, async () => {
      const data = bytes();
      const reference = shape(await rowsFromStream(data, data.length, format));
      expect(reference.length).toBeGreaterThan(0);
      for (const size of sizes) {
        expect(shape(await rowsFromStream(data, size, format)), `chunk size ${size}`).toEqual(reference);
      }
    });
  }

  it('one-byte chunks of the CRLF sample give the expected cells and lines', async () => {
    const data = Buffer.from(
      'sku;name;note\r\n"a1";"Caf\u00e9 ""best""";"line1\r\nline2"\r\nb2;Th\u00e9;\r\n\r\nc3;"x;y";z',
    );
    const rows = shape(await rowsFromStream(data, 1, 'csv'));
    expect(rows).toEqual([
      {
        at: 'line 2',
        cells: { sku: 'a1', name: 'Caf\u00e9 "best"', note: 'line1\nline2' },
        error: undefined,
      },
      { at: 'line 4', cells: { sku: 'b2', name: 'Th\u00e9', note: '' }, error: undefined },
      { at: 'line 6', cells: { sku: 'c3', name: 'x;y', note: 'z' }, error: undefined },
    ]);
  });
});
