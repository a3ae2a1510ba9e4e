// JSON and NDJSON: arrays, envelopes, jsonPath, flattening, safe keys, header union, syntax errors.
import { describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { collect, expectCode, plain, readAll, tempFile } from './helpers.js';

describe('JSON records', () => {
  it('reads a top-level array and flattens nested objects to dotted names', async () => {
    const text = JSON.stringify([
      { sku: 'A', dimensions: { width: 2, height: { value: 3, unit: 'cm' } }, tags: ['x', 'y'], meta: {} },
      { sku: 'B', images: [{ uri: 'a.jpg' }], price: null, active: false },
    ]);
    const { source, rows } = await readAll(tempFile('array.json', text));
    expect(plain(rows[0])).toEqual({
      sku: 'A',
      'dimensions.width': 2,
      'dimensions.height.value': 3,
      'dimensions.height.unit': 'cm',
      tags: ['x', 'y'],
      meta: null,
    });
    expect(plain(rows[1])).toEqual({ sku: 'B', images: '[{"uri":"a.jpg"}]', price: null, active: false });
    // headers: the union of keys, in order of first appearance
    expect(source.headers).toEqual([
      'sku',
      'dimensions.width',
      'dimensions.height.value',
      'dimensions.height.unit',
      'tags',
      'meta',
      'images',
      'price',
      'active',
    ]);
  });

  it('finds the records in an envelope such as {"value": [...]}', async () => {
    const text = JSON.stringify({
      '@odata.context': 'x',
      count: 2,
      value: [{ id: 1 }, { id: 2 }],
      next: null,
    });
    const { source, rows } = await readAll(tempFile('envelope.json', text));
    expect(rows.map(plain)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(source.notes.join(' ')).toContain('"value"');
  });

  it('follows a dotted jsonPath', async () => {
    const text = JSON.stringify({ data: { other: [1, 2], items: [{ id: 'a' }] }, items: [{ id: 'wrong' }] });
    const { rows } = await readAll(tempFile('path.json', text), { jsonPath: 'data.items' });
    expect(rows.map(plain)).toEqual([{ id: 'a' }]);
  });

  it('a missing jsonPath is one error', async () => {
    await expectCode(
      openSource(tempFile('nopath.json', '{"a": [{"id": 1}]}'), { jsonPath: 'b' }),
      'JSON_NOT_RECORDS',
    );
  });

  it('a scalar in the array is a row error; reading goes on', async () => {
    const { rows } = await readAll(tempFile('scalar.json', '[{"id":1}, 7, {"id":3}]'));
    expect(rows.map((row) => row.error?.code)).toEqual([undefined, 'JSON_NOT_RECORDS', undefined]);
    expect(rows.map((row) => row.location.text)).toEqual(['item 1', 'item 2', 'item 3']);
  });

  it('__proto__, constructor and prototype never reach an object prototype', async () => {
    const text = '[{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"x": 2}}, "prototype": "p"}]';
    const { rows } = await readAll(tempFile('proto.json', text));
    const cells = rows[0]!.cells;
    expect(Object.getPrototypeOf(cells)).toBeNull();
    expect(Object.keys(cells)).toEqual(['__proto__.polluted', 'constructor.prototype.x', 'prototype']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('a syntax error names its line and column', async () => {
    const text = '[\n  {"id": 1},\n  {"id": 2,, "x": 3}\n]\n';
    const error = await expectCode(openSource(tempFile('syntax.json', text)), 'JSON_SYNTAX');
    expect(error.location).toBe('line 3, column 12');
  });

  it('a syntax error far into a large file still names its exact line and column', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => `  {"id": ${i}, "name": "item ${i}"}`);
    items[15_000] = '  {"id": 15000, "name": "broken" "x"}';
    const path = tempFile('late-syntax.json', `[\n${items.join(',\n')}\n]\n`);
    const source = await openSource(path);
    const error = await expectCode(collect(source), 'JSON_SYNTAX');
    expect(error.location).toBe('line 15002, column 34');
  });

  it('a truncated document is a syntax error', async () => {
    const source = await openSource(tempFile('truncated.json', '[{"id": 1}, {"id": 2'));
    await expectCode(collect(source), 'JSON_SYNTAX');
  });

  it('an empty array has no data, said in the words of JSON', async () => {
    const error = await expectCode(openSource(tempFile('empty-array.json', '[]')), 'CSV_NO_DATA');
    expect(error.message).toMatch(/empty-array\.json holds no records$/);
  });
});

describe('NDJSON', () => {
  it('reads one object per line, skips blank lines, handles CRLF', async () => {
    const text = '{"id":1,"a":{"b":true}}\r\n\r\n{"id":2,"c":[1,2]}\n';
    const { source, rows } = await readAll(tempFile('lines.ndjson', text));
    expect(rows.map(plain)).toEqual([
      { id: 1, 'a.b': true },
      { id: 2, c: [1, 2] },
    ]);
    expect(rows.map((row) => row.location.text)).toEqual(['line 1', 'line 3']);
    expect(source.headers).toEqual(['id', 'a.b', 'c']);
  });

  it('a broken line is a row error with line and column; the next lines still read', async () => {
    const text = '{"id":1}\n{"id": 2 "x": 1}\n{"id":3}\n';
    const { rows } = await readAll(tempFile('broken.jsonl', text));
    expect(rows).toHaveLength(3);
    expect(rows[1]!.error?.code).toBe('JSON_SYNTAX');
    expect(rows[1]!.error?.message).toContain('line 2, column 10');
    expect(rows[2]!.cells.id).toBe(3);
  });

  it('is sniffed from content when the name has no extension', async () => {
    const { source, rows } = await readAll(tempFile('feed', '{"id":1}\n{"id":2}\n'));
    expect(source.format).toBe('ndjson');
    expect(rows).toHaveLength(2);
  });
});

describe('safe keys in flat records', () => {
  it('a flat NDJSON record keeps __proto__ as an ordinary key', async () => {
    const { rows } = await readAll(
      tempFile('flat-proto.ndjson', '{"__proto__": "x", "constructor": 1, "id": 2}\n'),
    );
    const cells = rows[0]!.cells;
    expect(Object.getPrototypeOf(cells)).toBeNull();
    expect(Object.entries(cells)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 1],
      ['id', 2],
    ]);
  });
});
