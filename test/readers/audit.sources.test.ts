// Reader requirements the other reader tests leave open: content sniffing without an extension,
// --format over the extension, a .gz URL, a JSON syntax error read from stdin, OData-style envelopes,
// a BOM before JSON, and nested prototype keys.

import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { type TinyServer, tinyServer } from '../api/tiny-server.js';
import { collect, expectCode, plain, readAll, tempFile } from './helpers.js';

let server: TinyServer;
beforeAll(async () => {
  server = await tinyServer((req, res) => {
    if (req.url === '/feeds/products.csv.gz') {
      const body = gzipSync(Buffer.from('sku;name\nA1;Chaise\nB2;Table\n', 'utf8'));
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length });
      return res.end(body);
    }
    res.writeHead(404, { 'content-length': '0' });
    res.end();
  });
});
afterAll(async () => {
  await server?.close();
});

describe('format from content when the name has no extension', () => {
  it('CSV', async () => {
    const { source, rows } = await readAll(tempFile('export-csv', 'sku,name\nA1,Chaise\nB2,Table\n'));
    expect(source.format).toBe('csv');
    expect(rows.map(plain)).toEqual([
      { sku: 'A1', name: 'Chaise' },
      { sku: 'B2', name: 'Table' },
    ]);
  });

  it('a JSON array', async () => {
    const { source, rows } = await readAll(
      tempFile('export-json', '[\n  {"sku": "A1"},\n  {"sku": "B2"}\n]\n'),
    );
    expect(source.format).toBe('json');
    expect(rows.map((r) => r.location.text)).toEqual(['item 1', 'item 2']);
  });
});

describe('--format wins over the extension', () => {
  it('NDJSON named .csv is read as NDJSON when asked', async () => {
    const { source, rows } = await readAll(tempFile('mislabelled.csv', '{"sku":"A1"}\n{"sku":"B2"}\n'), {
      format: 'ndjson',
    });
    expect(source.format).toBe('ndjson');
    expect(rows.map((r) => r.cells.sku)).toEqual(['A1', 'B2']);
  });
});

describe('URL sources', () => {
  it('a .gz URL is decompressed and read by its inner extension', async () => {
    const { source, rows } = await readAll(`${server.url}/feeds/products.csv.gz`);
    expect(source.format).toBe('csv');
    expect(source.delimiter).toBe(';');
    expect(source.notes.join(' ')).toContain('gzip');
    expect(rows.map(plain)).toEqual([
      { sku: 'A1', name: 'Chaise' },
      { sku: 'B2', name: 'Table' },
    ]);
  });
});

describe('JSON details', () => {
  // The JSON reader tracks lines and columns itself: stdin, which cannot be read twice, gets them too.
  it('a syntax error read from stdin (no second pass possible) still names line and column', async () => {
    const text = '[\n  {"sku": "A1"},\n  {"sku": "B2",}\n]\n';
    const err = await expectCode(async () => {
      const source = await openSource('-', { stdin: Readable.from([Buffer.from(text)]), format: 'json' });
      await collect(source);
    }, 'JSON_SYNTAX');
    expect(err.location).toBe('line 3, column 16');
  });

  it('an OData envelope with metadata before value is read from value', async () => {
    const text = JSON.stringify({
      '@odata.context': 'https://shop.example/$metadata#Products',
      '@count': 2,
      value: [{ sku: 'A1' }, { sku: 'B2' }],
      '@nextLink': 'https://shop.example/Products?$skiptoken=2',
    });
    const { rows } = await readAll(tempFile('odata.json', text));
    expect(rows.map((r) => r.cells.sku)).toEqual(['A1', 'B2']);
  });

  it('a UTF-8 BOM before a JSON array or NDJSON is not a syntax error', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const json = await readAll(tempFile('bom.json', Buffer.concat([bom, Buffer.from('[{"sku":"A1"}]')])));
    expect(json.rows.map((r) => r.cells.sku)).toEqual(['A1']);
    const ndjson = await readAll(
      tempFile('bom.ndjson', Buffer.concat([bom, Buffer.from('{"sku":"A1"}\n{"sku":"B2"}\n')])),
    );
    expect(ndjson.rows.map((r) => r.cells.sku)).toEqual(['A1', 'B2']);
  });

  it('nested __proto__ and constructor keys flatten to ordinary dotted columns', async () => {
    const text = '[{"sku":"A1","meta":{"__proto__":{"polluted":true},"constructor":{"prototype":1}}}]';
    const { rows } = await readAll(tempFile('nested-proto.json', text));
    const cells = rows[0]!.cells;
    expect(Object.getPrototypeOf(cells)).toBeNull();
    expect(cells['meta.__proto__.polluted']).toBe(true);
    expect(cells['meta.constructor.prototype']).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
