// The readers' limits in process, where chunk boundaries can be chosen: a record skipped for its size
// keeps the line numbers after it exact whatever the chunks, a deep record is skipped token by token,
// and the size flags read as people write them.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { openSource, parseSize } from '../../src/readers/index.js';
import { chunked, collect, expectCode, tempFile } from './helpers.js';

const MB = 1024 ** 2;

async function readChunked(bytes: Buffer, size: number, options = {}) {
  return collect(await openSource('-', { stdin: chunked(bytes, size), ...options }));
}

const summary = (rows: Array<{ location: { text: string }; error?: { code: string } }>) =>
  rows.map((row) => `${row.location.text} ${row.error?.code ?? 'ok'}`);

describe('a record too large to hold', () => {
  it('a quoted cell of 5 MB with line breaks, quotes and delimiters is skipped; the lines after keep their numbers', async () => {
    const breaks = 600_000;
    const cell = `"${'ab,"" c\n'.repeat(breaks)}"`;
    const text = `sku,description\nA,small\nB,${cell}\nC,small\n"D",small\n`;
    const bytes = Buffer.from(text);
    for (const size of [4096, 65_536, 100_003]) {
      const rows = await readChunked(bytes, size, { format: 'csv' });
      expect(summary(rows), `chunks of ${size}`).toEqual([
        'line 2 ok',
        'line 3 CELL_TOO_LARGE',
        `line ${4 + breaks} ok`,
        `line ${5 + breaks} ok`,
      ]);
      expect(rows.map((row) => row.cells.sku)).toEqual(['A', '', 'C', 'D']);
    }
    // Under a raised limit the same cell is read whole, from small chunks, in one parse once it ends.
    const rows = await readChunked(bytes, 4096, { format: 'csv', maxCellBytes: 8 * MB });
    expect(rows[1]!.cells.description).toBe('ab," c\n'.repeat(breaks));
    expect(summary(rows).at(-1)).toBe(`line ${5 + breaks} ok`);
  });

  it('an NDJSON line of 3 MB is skipped to its line break; the next lines are read', async () => {
    const bytes = Buffer.from(`{"id":1}\n{"id":2,"text":"${'x'.repeat(3 * MB)}"}\n{"id":3}\n`);
    for (const size of [65_536, 1_000_003]) {
      const rows = await readChunked(bytes, size, { format: 'ndjson' });
      expect(summary(rows), `chunks of ${size}`).toEqual(['line 1 ok', 'line 2 CELL_TOO_LARGE', 'line 3 ok']);
      expect(rows[2]!.cells.id).toBe(3);
    }
  });

  it('a header line that long is a file error', async () => {
    const path = tempFile('long-header.csv', `sku,${'x'.repeat(5 * MB)}\nA,b\n`);
    const error = await expectCode(openSource(path), 'CELL_TOO_LARGE');
    expect(error.location).toBe('line 1');
  });
});

describe('a record nested too deep', () => {
  it('is skipped token by token whatever the chunks, the records after it read', async () => {
    const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
    const bytes = Buffer.from(`[{"id":1},{"id":2,"x":${deep}},{"id":3,"y":{"z":[1,2]}}]`);
    for (const size of [7, 1024, 65_536]) {
      const rows = await readChunked(bytes, size, { format: 'json' });
      expect(summary(rows), `chunks of ${size}`).toEqual(['item 1 ok', 'item 2 JSON_TOO_DEEP', 'item 3 ok']);
      expect({ ...rows[2]!.cells }).toEqual({ id: 3, 'y.z': [1, 2] });
    }
  });

  it('a limit of 3 takes three levels and refuses a fourth', async () => {
    const path = tempFile('three.ndjson', '{"a":{"b":{"c":1}}}\n{"a":{"b":{"c":{"d":1}}}}\n{"a":[[1]]}\n');
    const rows = collect(await openSource(path, { maxJsonDepth: 3 }));
    expect(summary(await rows)).toEqual(['line 1 ok', 'line 2 JSON_TOO_DEEP', 'line 3 ok']);
  });
});

describe('size flags', () => {
  it('read sizes as people write them', () => {
    expect(parseSize('4GB', 'x')).toBe(4 * 1024 ** 3);
    expect(parseSize('500 MB', 'x')).toBe(500 * MB);
    expect(parseSize('64KiB', 'x')).toBe(64 * 1024);
    expect(parseSize('1.5m', 'x')).toBe(1.5 * MB);
    expect(parseSize('1048576', 'x')).toBe(MB);
    for (const bad of ['', 'lots', '-5MB', '0', '4 PB'])
      expect(() => parseSize(bad, 'x')).toThrow(/expected a size/);
  });

  it('a nonsense value is exit 2 with one line naming the flag and the format', async () => {
    const path = tempFile('flags.csv', 'sku,name\nA,b\n');
    for (const flags of [
      ['--max-cell', 'lots'],
      ['--max-inflate', '-1GB'],
      ['--max-json-depth', '5000'],
      ['--source-header', 'no-colon-here'],
    ]) {
      const out = memoryOutput();
      const code = await main(['preview', path, ...flags], out);
      expect(code, flags.join(' ')).toBe(2);
      expect(out.stderr).toHaveLength(1);
      expect(out.stderr[0]).toMatch(/\[CONFIG_INVALID\]$/);
      expect(out.stderr[0]).not.toContain('no-colon-here');
    }
  });
});
