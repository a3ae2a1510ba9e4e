// The on-disk table behind the import state: it answers as a Map would through growth, deletions and
// deleted slots used again; it makes room at once for keys about to be set in key order; a copy is
// independent of its original; a file that is not a whole table is not read as one.
import { createHash } from 'node:crypto';
import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_VALUE, readTableHeader, SlotTable } from '../../src/runs/state-store.js';
import { tempDir } from '../runner/import.support.js';

const key = (n: number) => createHash('sha256').update(`ref-${n}`).digest().subarray(0, 16);
const value = (n: number, round = 0) => Buffer.from(JSON.stringify([n, round]));

describe('state table', () => {
  it('answers as a Map through growth, deletions and reuse of deleted slots', () => {
    const dir = tempDir('state-table');
    const table = SlotTable.create(join(dir, 't.tmp'));
    const model = new Map<number, string>();
    // A small linear congruential sequence: the same keys each run, in no useful order.
    let x = 7;
    const next = () => {
      x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
      return x % 30_000;
    };
    for (let i = 0; i < 120_000; i++) {
      const n = next();
      if (i % 5 === 4) {
        table.delete(key(n));
        model.delete(n);
      } else {
        table.set(key(n), value(n, i));
        model.set(n, value(n, i).toString());
      }
    }
    expect(table.size).toBe(model.size);
    for (let n = 0; n < 30_000; n++) expect(table.get(key(n))?.toString()).toBe(model.get(n));

    // Survives being written out and copied; the copy changes alone.
    table.commit({ note: 'first' });
    table.close();
    const copy = SlotTable.copy(join(dir, 't.tmp'), join(dir, 'copy.tmp'));
    expect(readTableHeader<{ note: string }>(join(dir, 't.tmp'))).toMatchObject({
      live: model.size,
      meta: { note: 'first' },
    });
    const kept = [...model.keys()].filter((n) => n % 3 !== 0);
    copy.retain((v) => (JSON.parse(v.toString()) as number[])[0]! % 3 !== 0);
    expect(copy.size).toBe(kept.length);
    expect(copy.get(key(kept[0]!))?.toString()).toBe(model.get(kept[0]!));
    expect(copy.get(key(3))).toBeUndefined();
    copy.commit(null);
    copy.close();
    const again = SlotTable.copy(join(dir, 't.tmp'), join(dir, 'again.tmp'));
    for (const n of [...model.keys()].slice(0, 500)) expect(again.get(key(n))?.toString()).toBe(model.get(n));
    again.remove();
  });

  it('makes room once for keys set in key order (the order a run applies its writes in)', () => {
    const file = join(tempDir('state-table-reserve'), 't.tmp');
    const table = SlotTable.create(file);
    const keys = Array.from({ length: 20_000 }, (_, n) => key(n)).sort((a, b) => a.compare(b));
    table.reserve(keys.length);
    const size = statSync(file).size;
    for (const [n, k] of keys.entries()) table.set(k, value(n));
    expect(statSync(file).size).toBe(size);
    expect(table.size).toBe(keys.length);
    for (const [n, k] of keys.entries()) expect(table.get(k)?.toString()).toBe(value(n).toString());
    table.remove();
  });

  it('takes values up to its limit and refuses longer ones', () => {
    const table = SlotTable.create(join(tempDir('state-table-value'), 't.tmp'));
    table.set(key(1), Buffer.alloc(MAX_VALUE, 1));
    expect(table.get(key(1))).toEqual(Buffer.alloc(MAX_VALUE, 1));
    table.set(key(1), Buffer.from('short'));
    expect(table.get(key(1))?.toString()).toBe('short');
    expect(() => table.set(key(2), Buffer.alloc(MAX_VALUE + 1))).toThrow(RangeError);
    table.remove();
  });

  it('reads no table from a file cut short, another file, or none', () => {
    const dir = tempDir('state-table-bad');
    const file = join(dir, 't.state');
    const table = SlotTable.create(file);
    table.set(key(1), value(1));
    table.commit({});
    table.close();
    expect(readTableHeader(file)?.live).toBe(1);
    const whole = readFileSync(file);
    truncateSync(file, whole.length - 64);
    expect(readTableHeader(file)).toBeUndefined();
    writeFileSync(file, '{"version":1}\n["A-1","0123456789abcdef1"]\n');
    expect(readTableHeader(file)).toBeUndefined();
    expect(readTableHeader(join(dir, 'none.state'))).toBeUndefined();
  });
});
