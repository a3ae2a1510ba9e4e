// When validate checks a file in parts by default (`CATALOG_IO_VALIDATE_PARTS=auto`): local CSV files of
// about a million rows and more whose head quotes no cell, where two threads measured faster than one
// (docs/benchmarks.md).
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateFile } from '../../src/runner/validate.js';
import { type FileHead, fileHead, wantsParts } from '../../src/runner/validate-parts/parts.js';
import { pulledSandboxModel } from '../helpers/sandbox.js';

const MIB = 1 << 20;
const plain = (bytesPerLine: number) => (): FileHead => ({ quoted: false, bytesPerLine });

describe('the parts policy', () => {
  it('auto takes files of a million rows and more, told by their size and head, that quote nothing', () => {
    // 100 bytes a row: a million rows is 100 MB.
    expect(wantsParts('auto', 100_000_000, plain(100))).toBe(true);
    expect(wantsParts('auto', 99_999_900, plain(100))).toBe(false);
    // Short rows: 24 MB of 24-byte rows is a million rows too.
    expect(wantsParts('auto', 24_000_000, plain(24))).toBe(true);
    expect(wantsParts('auto', 500 * MIB, () => ({ quoted: true, bytesPerLine: 100 }))).toBe(false);
    // A head without a whole line tells nothing: one thread.
    expect(wantsParts('auto', 500 * MIB, plain(0))).toBe(false);
    expect(wantsParts('on', 10, plain(0))).toBe(true);
    expect(wantsParts('off', 500 * MIB, plain(10))).toBe(false);
    expect(wantsParts('sometimes', 500 * MIB, plain(10))).toBe(false);
  });

  it('reads the head only for a file that could hold a million rows', () => {
    let asked = 0;
    const head = () => {
      asked++;
      return { quoted: false, bytesPerLine: 1 };
    };
    wantsParts('auto', MIB, head);
    expect(asked).toBe(0);
    wantsParts('auto', 100 * MIB, head);
    expect(asked).toBe(1);
  });

  it('finds a quote in the first 64 KiB, header included, not past it, and the bytes a line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parts-auto-'));
    const rows = 'SKU-1,Name one,12.5\n'.repeat(5000);
    const files = {
      plain: `sku,name,price\n${rows}`,
      header: `"sku","name","price"\n${rows}`,
      cell: `sku,name,price\nSKU-0,"Shirt, blue",3\n${rows}`,
      late: `sku,name,price\n${rows}SKU-9,"late, quoted",1\n`,
      oneLine: 'x'.repeat(70_000),
    };
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, `${name}.csv`), text);
    const plainHead = fileHead(join(dir, 'plain.csv'));
    expect(plainHead.quoted).toBe(false);
    // 64 KiB of 20-byte rows after a 15-byte header: 20 bytes a line, near enough.
    expect(plainHead.bytesPerLine).toBeGreaterThan(19.9);
    expect(plainHead.bytesPerLine).toBeLessThan(20.1);
    expect(fileHead(join(dir, 'header.csv')).quoted).toBe(true);
    expect(fileHead(join(dir, 'cell.csv')).quoted).toBe(true);
    expect(fileHead(join(dir, 'late.csv')).quoted).toBe(false);
    expect(fileHead(join(dir, 'oneLine.csv')).bytesPerLine).toBe(0);
    // A file that cannot be read is left to one thread, which reports why.
    expect(fileHead(join(dir, 'missing.csv'))).toEqual({ quoted: true, bytesPerLine: 0 });
  });
});

describe('the default on a file of a million rows', () => {
  it("checks it in parts, and the report is the one thread's byte for byte; a quoted head keeps one thread", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parts-auto-run-'));
    const model = await pulledSandboxModel(join(dir, 'schemas'));
    // 1,050,000 short rows (17 MB), a duplicate ref and a title over its limit among them.
    const write = async (file: string, firstTitle: string) => {
      const out = createWriteStream(file);
      out.write(`prod_ref,prod_title\nP0000000,${firstTitle}\n`);
      for (let start = 1; start < 1_050_000; start += 10_000) {
        let chunk = '';
        for (let i = start; i < Math.min(start + 10_000, 1_050_000); i++)
          chunk += `P${String(i === 700_001 ? 5 : i).padStart(7, '0')},${i === 900_000 ? 'T'.repeat(300) : `Title ${i}`}\n`;
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      }
      await new Promise<void>((resolve) => out.end(() => resolve()));
    };
    const plain = join(dir, 'plain.csv');
    const quoted = join(dir, 'quoted.csv');
    await write(plain, 'Lamp');
    await write(quoted, '"Lamp, blue"');
    const saved = process.env.CATALOG_IO_VALIDATE_PARTS;
    const run = async (source: string, mode: string | undefined, report: string) => {
      if (mode === undefined) delete process.env.CATALOG_IO_VALIDATE_PARTS;
      else process.env.CATALOG_IO_VALIDATE_PARTS = mode;
      return validateFile({ source, model, profile: { entity: 'products' }, reportFile: join(dir, report) });
    };
    try {
      const split = await run(plain, undefined, 'auto.csv');
      const single = await run(plain, 'off', 'off.csv');
      const kept = await run(quoted, undefined, 'quoted.csv');
      if (availableParallelism() > 1) {
        expect(split.parts).toBeGreaterThan(10);
        expect(split.threadParts).toBeGreaterThan(0);
      } else expect(split.parts).toBeUndefined();
      expect(single.parts).toBeUndefined();
      expect(kept.parts).toBeUndefined();
      expect(split.outcomes).toEqual({ valid: 1_049_998, invalid: 2, skipped: 0 });
      expect(split.outcomes).toEqual(single.outcomes);
      expect(split.topErrors).toEqual(single.topErrors);
      const [a, b] = await Promise.all([readFile(join(dir, 'auto.csv')), readFile(join(dir, 'off.csv'))]);
      expect(a.equals(b)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.CATALOG_IO_VALIDATE_PARTS;
      else process.env.CATALOG_IO_VALIDATE_PARTS = saved;
    }
  }, 120_000);
});
