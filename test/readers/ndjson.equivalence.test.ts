// The batched NDJSON reader gives exactly the rows of the straightforward one it replaced (kept in
// reference/): same cells in the same key order, null prototypes, locations, errors and headers.
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openSource, type SourceRow } from '../../src/readers/index.js';
import { chunked, collect, tempFile } from './helpers.js';
import { readNdjson as referenceNdjson } from './reference/ndjson.js';

/** Everything a consumer can observe of a row, key order included. */
function observable(row: SourceRow) {
  return {
    location: row.location,
    index: row.index,
    error: row.error,
    prototype: Object.getPrototypeOf(row.cells),
    entries: Object.entries(row.cells),
  };
}

/** The reference reads the whole text (decoded the old way), cut into pieces of `size` characters. */
async function referenceRows(bytes: Buffer, size: number, source: string) {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  async function* pieces() {
    for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
  }
  const opened = referenceNdjson(pieces(), { source, maxCellBytes: 1 << 20 });
  const rows: SourceRow[] = [];
  for await (const row of opened.rows) rows.push(row);
  return { rows: rows.map(observable), headers: opened.headers };
}

async function currentRows(spec: string, options: Parameters<typeof openSource>[1] = {}) {
  const source = await openSource(spec, options);
  const rows = (await collect(source)).map(observable);
  return { rows, headers: source.headers };
}

/** A catalog line of one of several shapes: flat, nested, arrays, odd keys, unicode. */
function generatedLine(i: number): string {
  switch (i % 11) {
    case 0:
      return JSON.stringify({ sku: `S${i}`, name: `Caf\u00e9 ${i}`, price: i / 4, active: i % 2 === 0 });
    case 1:
      return JSON.stringify({
        sku: `S${i}`,
        dimensions: { width: i, height: { value: 2, unit: 'cm' } },
        tags: ['a', i, null, true],
        meta: {},
      });
    case 2:
      return JSON.stringify({
        sku: `S${i}`,
        images: [{ uri: `${i}.jpg` }],
        note: '\u65e5\u672c \ud83d\ude00',
      });
    case 3:
      return `{"__proto__": "p${i}", "constructor": ${i}, "toString": null}`;
    case 4:
      return `{"__proto__": {"polluted": ${i}}, "id": ${i}}\r`;
    case 5:
      return i % 2 ? '' : '   \t ';
    case 6:
      return `{"id": ${i} "broken": true}`;
    case 7:
      return i % 3 ? '[1, 2]' : '"just text"';
    case 8:
      return JSON.stringify({ 2: 'two', 1: 'one', sku: `S${i}`, empty: '' });
    case 9:
      return JSON.stringify({ sku: `S${i}`, name: `Caf\u00e9 ${i}`, price: i / 4, active: false });
    default:
      return JSON.stringify({ price: i, sku: `S${i}`, extra: { deep: { deeper: [i] } } });
  }
}

describe('NDJSON reader: same rows as the reference implementation', () => {
  it('a generated file of many shapes, far larger than one chunk', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => generatedLine(i));
    const bytes = Buffer.from(`\ufeff${lines.join('\n')}`); // BOM, and no final line break
    const path = tempFile('equivalence.ndjson', bytes);
    const current = await currentRows(path);
    const reference = await referenceRows(bytes, 65_536, path);
    expect(current.rows.length).toBe(reference.rows.length);
    expect(current.rows).toEqual(reference.rows);
    expect(current.headers).toEqual(reference.headers);
    expect(current.rows.some((row) => row.error?.code === 'JSON_SYNTAX')).toBe(true);
    expect(current.rows.some((row) => row.error?.code === 'JSON_NOT_RECORDS')).toBe(true);
  });

  it('the same file through stdin in small odd-sized chunks (characters cut between chunks)', async () => {
    const lines = Array.from({ length: 3_000 }, (_, i) => generatedLine(i));
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    const current = await currentRows('-', { stdin: chunked(bytes, 4_099), format: 'ndjson' });
    const reference = await referenceRows(bytes, 7, 'stdin');
    expect(current.rows).toEqual(reference.rows);
    expect(current.headers).toEqual(reference.headers);
  });

  it('lines that are not one value each, yet would form valid JSON together, stay row errors', async () => {
    // Two values on one line, one value over two lines, separators spelled out: the lines of a chunk
    // are parsed together first, and must still come out exactly as parsed one by one.
    const lines = [
      '{"id":1}',
      '{"x":1},{"y":2}',
      '{"a":[{"b":1}',
      '{"c":2}]}',
      '1,2',
      '[[1',
      '2]]',
      '{"id":2},"catalog-io line break",{"id":3}',
      '{"id":4}',
    ];
    const bytes = Buffer.from(lines.join('\n'));
    const path = tempFile('aligned.ndjson', bytes);
    const current = await currentRows(path);
    expect(current.rows).toEqual((await referenceRows(bytes, 64, path)).rows);
    expect(current.rows.map((row) => row.error?.code ?? 'ok')).toEqual([
      'ok',
      'JSON_SYNTAX',
      'JSON_SYNTAX',
      'JSON_SYNTAX',
      'JSON_SYNTAX',
      'JSON_SYNTAX',
      'JSON_SYNTAX',
      'JSON_SYNTAX',
      'ok',
    ]);
  });

  it('any JSON values, one per line (property)', async () => {
    const path = tempFile('property.ndjson', '');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.object({ maxDepth: 2 })), {
          minLength: 1,
          maxLength: 30,
        }),
        async (values) => {
          const text = values.map((value) => JSON.stringify(value) ?? 'null').join('\n');
          writeFileSync(path, text);
          const reference = await referenceRows(Buffer.from(text), 5, path);
          if (reference.rows.length === 0) return; // a file of blank lines only: no data
          const current = await currentRows(path, { format: 'ndjson' });
          expect(current.rows).toEqual(reference.rows);
          expect(current.headers).toEqual(reference.headers);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('NDJSON reader: iteration', () => {
  it('next() called again before the previous call settled gives the rows in order', async () => {
    const lines = Array.from({ length: 2_000 }, (_, i) => JSON.stringify({ id: i, pad: 'x'.repeat(60) }));
    const source = await openSource(tempFile('concurrent.ndjson', lines.join('\n')));
    const ids: unknown[] = [];
    for (;;) {
      const results = await Promise.all([
        source.rows[Symbol.asyncIterator]().next(),
        source.rows[Symbol.asyncIterator]().next(),
      ]);
      for (const result of results) if (!result.done) ids.push(result.value.cells.id);
      if (results.some((result) => result.done)) break;
    }
    expect(ids).toEqual(lines.map((_, i) => i));
  });

  it("a value over a limit is its row's error, between the rows before and after it; its other cells stay", async () => {
    const lines = ['{"id":1}', '{"id":2}', `{"id":3,"big":"${'x'.repeat(2_000)}"}`, '{"id":4}'];
    const source = await openSource(tempFile('fails.ndjson', lines.join('\n')), { maxCellBytes: 1_000 });
    const rows = [];
    for await (const row of source.rows) rows.push(row);
    expect(rows.map((row) => row.cells.id ?? null)).toEqual([1, 2, 3, 4]);
    expect(rows[2]!.cells.big).toBe('');
    expect(rows[2]!.error?.code).toBe('CELL_TOO_LARGE');
    expect(rows[2]!.location.text).toBe('line 3');
  });
});
