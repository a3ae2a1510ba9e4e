// Line files (src/writers/lines.ts): UTF-8 lines go out in chunks of 256 KB, and a chunk the stream has
// written is filled again. Many chunks' worth of lines, appended as the report does (waiting only when
// asked to), come out whole and in order: a chunk filled again before its write finished would show.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLineFile } from '../../src/writers/lines.js';

describe('a UTF-8 line file', () => {
  it('writes about 8 MB of lines, byte for byte, in order, through chunks filled again', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lines-')), 'report.csv');
    const file = await openLineFile(path);
    const line = (i: number) => `line ${i},${'é'.repeat(i % 40)},${'x'.repeat((i * 7) % 90)}\r\n`;
    let expected = 0;
    const n = 80_000;
    for (let i = 0; i < n; i++) {
      const text = line(i);
      expected += Buffer.byteLength(text);
      const wait = file.append(text);
      if (wait) await wait;
    }
    await file.close();
    const written = readFileSync(path, 'utf8');
    expect(Buffer.byteLength(written)).toBe(expected);
    expect(expected).toBeGreaterThan(20 * 256 * 1024);
    const lines = written.split('\r\n');
    expect(lines.length).toBe(n + 1);
    for (let i = 0; i < n; i += 1) if (`${lines[i]}\r\n` !== line(i)) expect(lines[i]).toBe(line(i));
  });
});
