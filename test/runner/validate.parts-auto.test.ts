// When validate checks a file in parts by default (`CATALOG_IO_VALIDATE_PARTS=auto`): large local CSV
// files whose head quotes no cell, where two threads measured faster than one (docs/benchmarks.md).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quotesInHead, wantsParts } from '../../src/runner/validate-parts/parts.js';

const MIB = 1 << 20;

describe('the parts policy', () => {
  it('auto takes files of 96 MiB and more whose head quotes nothing', () => {
    const unquoted = () => false;
    const quoted = () => true;
    expect(wantsParts('auto', 96 * MIB, unquoted)).toBe(true);
    expect(wantsParts('auto', 96 * MIB - 1, unquoted)).toBe(false);
    expect(wantsParts('auto', 500 * MIB, quoted)).toBe(false);
    expect(wantsParts('on', 10, quoted)).toBe(true);
    expect(wantsParts('off', 500 * MIB, unquoted)).toBe(false);
    expect(wantsParts('sometimes', 500 * MIB, unquoted)).toBe(false);
  });

  it('reads the head only for a file large enough', () => {
    let asked = 0;
    const quoted = () => {
      asked++;
      return false;
    };
    wantsParts('auto', MIB, quoted);
    expect(asked).toBe(0);
    wantsParts('auto', 100 * MIB, quoted);
    expect(asked).toBe(1);
  });

  it('finds a quote in the first 64 KiB, header included, and not past it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parts-auto-'));
    const plain = join(dir, 'plain.csv');
    const header = join(dir, 'header.csv');
    const cell = join(dir, 'cell.csv');
    const late = join(dir, 'late.csv');
    const rows = 'SKU-1,Name one,12.5\n'.repeat(5000);
    await writeFile(plain, `sku,name,price\n${rows}`);
    await writeFile(header, `"sku","name","price"\n${rows}`);
    await writeFile(cell, `sku,name,price\nSKU-0,"Shirt, blue",3\n${rows}`);
    await writeFile(late, `sku,name,price\n${rows}SKU-9,"late, quoted",1\n`);
    expect(quotesInHead(plain)).toBe(false);
    expect(quotesInHead(header)).toBe(true);
    expect(quotesInHead(cell)).toBe(true);
    expect(quotesInHead(late)).toBe(false);
    // A file that cannot be read is left to one thread, which reports why.
    expect(quotesInHead(join(dir, 'missing.csv'))).toBe(true);
  });
});
