// JSON syntax errors name their exact line and column from every source, read once: stdin in pieces
// of any size, a URL, a file. The reference is a fresh tokenizer fed the whole text one character at
// a time from the start, the slow way that needs no tracking.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { PositionTracker } from '../../src/readers/json/locate.js';
import { createTokenizer } from '../../src/readers/json/tokenizer.js';
import { type TinyServer, tinyServer } from '../api/tiny-server.js';
import { chunked, collect, expectCode, tempFile } from './helpers.js';

function referenceLocation(text: string): string {
  const tokenizer = createTokenizer();
  const position = new PositionTracker();
  for (const char of text) {
    try {
      tokenizer.write(char);
    } catch {
      return `line ${position.line}, column ${position.column}`;
    }
    position.advance(char);
  }
  tokenizer.end(); // every document below is broken before its end
  throw new Error('the document is valid');
}

const many = (count: number, broken: number, bad: string) =>
  `[\n${Array.from({ length: count }, (_, i) => (i === broken ? bad : `  {"sku": "S${i}", "name": "item ${i}", "tags": [1, 2]}`)).join(',\n')}\n]\n`;

const documents: Record<string, string> = {
  'a trailing comma in a record': '[\n  {"sku": "A1"},\n  {"sku": "B2",}\n]\n',
  'a missing colon': '[\n  {"sku" "A1"}\n]\n',
  'a missing comma between records, in an envelope': '{"value": [\n  {"sku": "A1"}\n  {"sku": "B2"}\n]}\n',
  'a bad literal': '[\n  {"sku": "A1", "active": tru },\n  {"sku": "B2", "active": false}\n]\n',
  'text after the document': '[\n  {"sku": "A1"}\n]\n]\n',
  'a key whose value never comes': '[\n  {"sku":\n  }\n]\n',
  'a double comma in a nested array': '[\n  {"sku": "A1",\n   "tags": [1, 2,,\n 3]}\n]\n',
  'a line ending in a comma, then a closing brace': '{"data": {"products": [\n  {"sku": "A1",\n  }]}}\n',
  'CRLF line endings': '[\r\n  {"sku": "A1"},\r\n  {"sku": "B2" "x": 1}\r\n]\r\n',
  'deep in a long file': many(5000, 4321, '  {"sku": "S4321", "name": "broken" "tags": []}'),
  'a long file broken right after a comma at a line end': many(3000, 2500, '  {"sku": "S2500",\n  , "x": 1}'),
  'one long line': JSON.stringify(
    Array.from({ length: 4000 }, (_, i) => ({ sku: `S${i}`, name: `item ${i}` })),
  ).replace('"S3500","name"', '"S3500" "name"'),
};

async function stdinLocation(text: string, size: number): Promise<string | undefined> {
  const err = await expectCode(async () => {
    const source = await openSource('-', { stdin: chunked(Buffer.from(text), size), format: 'json' });
    await collect(source);
  }, 'JSON_SYNTAX');
  return err.location;
}

describe('JSON syntax error positions from stdin, whatever the chunking', () => {
  for (const [name, text] of Object.entries(documents)) {
    it(name, async () => {
      const expected = referenceLocation(text);
      const sizes = text.length > 10_000 ? [997, 65_536] : [1, 3, 7, 64, 65_536];
      for (const size of sizes) expect(await stdinLocation(text, size), `pieces of ${size}`).toBe(expected);
    });
  }

  it('reads valid text cut anywhere without a false error', async () => {
    const text = '{"value": [\n  {"sku": "A1", "n": 12,\n   "ok": true},\n  {"sku": "B2", "n": null}\n]}\n';
    for (const size of [1, 2, 5, 13]) {
      const source = await openSource('-', { stdin: chunked(Buffer.from(text), size), format: 'json' });
      expect((await collect(source)).map((row) => row.cells.sku)).toEqual(['A1', 'B2']);
    }
  });

  it('a document cut short names where the text ends', async () => {
    const text = '[\n  {"sku": "A1"},\n  {"sku": "B2"';
    expect(await stdinLocation(text, 5)).toBe('line 3, column 15');
  });

  it('known positions, stated plainly', async () => {
    expect(await stdinLocation(documents['a trailing comma in a record']!, 4)).toBe('line 3, column 16');
    expect(await stdinLocation(documents['a missing colon']!, 4)).toBe('line 2, column 10');
  });
});

describe('from a URL and a file', () => {
  let server: TinyServer;
  const text = documents['deep in a long file']!;
  beforeAll(async () => {
    server = await tinyServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Streamed in odd pieces, without a content length.
      Readable.from(chunked(Buffer.from(text), 4093)).pipe(res);
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a URL gets the exact line and column', async () => {
    const source = await openSource(`${server.url}/feed.json`);
    const err = await expectCode(collect(source), 'JSON_SYNTAX');
    expect(err.location).toBe(referenceLocation(text));
    expect(err.location).toMatch(/^line 4323, column \d+$/);
  });

  it('a file gets the same, read once', async () => {
    const source = await openSource(tempFile('deep-broken.json', text));
    const err = await expectCode(collect(source), 'JSON_SYNTAX');
    expect(err.location).toBe(referenceLocation(text));
  });
});
