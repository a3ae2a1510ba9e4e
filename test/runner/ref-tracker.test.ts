import { describe, expect, it } from 'vitest';
import { RefHasher, RefTracker } from '../../src/runner/ref-tracker.js';

describe('RefTracker', () => {
  it('finds every duplicate among many refs and names where each was first', () => {
    const refs = new RefTracker();
    for (let i = 0; i < 50_000; i += 1)
      expect(refs.check('products', `P-${i}`, `line ${i + 2}`, i + 2)).toBeUndefined();
    for (let i = 0; i < 50_000; i += 997)
      expect(refs.check('products', `P-${i}`, 'line 99999', 99999)).toBe(`line ${i + 2}`);
    expect(refs.check('variants', 'P-0', 'line 3', 3)).toBeUndefined();
  });

  it('refs in no order with no reserve (standard input, an import): the table grows by doubling', () => {
    // Grown by one move's refs at a time, the table was made anew about every 4,096 refs (73 times here).
    const refs = new RefTracker();
    const n = 300_000;
    // A step prime to n walks every number once, in no order.
    const at = (i: number) => (i * 7_919) % n;
    let repeated = 0;
    for (let i = 0; i < n; i += 1)
      if (refs.check('products', `SKU-${at(i)}`, `line ${i + 2}`, i + 2) !== undefined) repeated += 1;
    expect(repeated).toBe(0);
    expect(refs.rehashes).toBeLessThanOrEqual(Math.ceil(Math.log2(n / 10_000)) + 1);
    for (let i = 0; i < n; i += 4_999)
      expect(refs.check('products', `SKU-${at(i)}`, 'line 999999', 999_999)).toBe(`line ${i + 2}`);
  });

  it('keeps every ref and its first location when it makes room in one step', () => {
    const refs = new RefTracker(300_000);
    for (let i = 0; i < 20_000; i += 1) refs.check('products', `P-${i}`, `line ${i + 2}`, i + 2);
    refs.reserve(1_000_000); // more than the limit: room for the limit
    refs.reserve(10); // less than there is: nothing moves
    for (let i = 20_000; i < 40_000; i += 1)
      expect(refs.check('products', `P-${i}`, `line ${i + 2}`, i + 2)).toBeUndefined();
    for (let i = 0; i < 40_000; i += 1999)
      expect(refs.check('products', `P-${i}`, 'line 99999', 99999)).toBe(`line ${i + 2}`);
  });

  it('a file sorted by ref: the same verdicts while in order, and after a ref breaks the order', () => {
    const refs = new RefTracker();
    const sku = (i: number) => `SKU-${String(i).padStart(6, '0')}`;
    for (let i = 0; i < 30_000; i += 1)
      expect(refs.check('products', sku(i), `line ${i + 2}`, i + 2)).toBeUndefined();
    // The same ref twice in a row is not greater than the one before: a duplicate.
    expect(refs.check('products', sku(29_999), 'line 40000', 40_000)).toBe('line 30001');
    // Out of order from here: every ref is still known with its first line, and new ones are new.
    for (let i = 0; i < 30_000; i += 1499)
      expect(refs.check('products', sku(i), 'line 99999', 99_999)).toBe(`line ${i + 2}`);
    expect(refs.check('products', sku(30_000), 'line 50000', 50_000)).toBeUndefined();
    expect(refs.check('products', sku(30_000), 'line 50001', 50_001)).toBe('line 50000');
  });

  it('a sorted file past the limit: refs on disk and in memory are found once the order breaks', () => {
    const refs = new RefTracker(1_000);
    try {
      const sku = (i: number) => `SKU-${String(i).padStart(6, '0')}`;
      for (let i = 0; i < 5_500; i += 1)
        expect(refs.check('products', sku(i), `line ${i + 2}`, i + 2)).toBeUndefined();
      expect(refs.spilled).toBe(5);
      for (let i = 0; i < 5_500; i += 1)
        expect(refs.check('products', sku(i), 'line 99999', 99_999)).toBe(`line ${i + 2}`);
    } finally {
      refs.close();
    }
  });

  it('a sorted file: another entity, and has(), leave the order without losing a ref', () => {
    const refs = new RefTracker();
    expect(refs.check('products', 'A-1', 'line 2', 2)).toBeUndefined();
    expect(refs.check('products', 'A-2', 'line 3', 3)).toBeUndefined();
    expect(refs.has('products', 'A-1')).toBe(true);
    expect(refs.has('products', 'A-3')).toBe(false);
    expect(refs.check('products', 'A-3', 'line 4', 4)).toBeUndefined();
    const other = new RefTracker();
    expect(other.check('products', 'A-1', 'line 2', 2)).toBeUndefined();
    // Greater, but of another entity: not the same ref, and not a reason to trust the order.
    expect(other.check('variants', 'A-2', 'line 3', 3)).toBeUndefined();
    expect(other.check('variants', 'A-1', 'line 4', 4)).toBeUndefined();
    expect(other.check('products', 'A-1', 'line 5', 5)).toBe('line 2');
    expect(other.check('variants', 'A-2', 'line 6', 6)).toBe('line 3');
  });

  it('keeps sheet names and JSON items in the location', () => {
    const refs = new RefTracker();
    refs.check('products', 'A', 'sheet Summer 2024 row 2024', 2024);
    refs.check('products', 'B', 'item 7', 7);
    expect(refs.check('products', 'A', 'sheet Winter row 3', 3)).toBe('sheet Summer 2024 row 2024');
    expect(refs.check('products', 'B', 'item 9', 9)).toBe('item 7');
  });

  it('names the sheet of a first use on any of 254 sheets, and says "a later sheet" past them', () => {
    const refs = new RefTracker();
    for (let sheet = 1; sheet <= 300; sheet += 1)
      expect(refs.check('products', `S-${sheet}`, `sheet Tab ${sheet} row 2`, 2)).toBeUndefined();
    expect(refs.check('products', 'S-1', 'sheet Tab 1 row 9', 9)).toBe('sheet Tab 1 row 2');
    expect(refs.check('products', 'S-254', 'sheet Tab 1 row 9', 9)).toBe('sheet Tab 254 row 2');
    expect(refs.check('products', 'S-300', 'sheet Tab 1 row 9', 9)).toBe('row 2 of a later sheet');
  });

  it('past its limit, keeps checking every ref against the ones on disk', () => {
    const refs = new RefTracker(1_000);
    try {
      for (let i = 0; i < 10_500; i += 1)
        expect(refs.check('products', `P-${i}`, `line ${i + 2}`, i + 2)).toBeUndefined();
      expect(refs.spilled).toBe(10);
      // Every ref, whether in memory or in any run on disk, is known with its first line.
      for (let i = 0; i < 10_500; i += 1)
        expect(refs.check('products', `P-${i}`, 'line 99999', 99999)).toBe(`line ${i + 2}`);
      // Refs never seen are new, however many runs there are.
      for (let i = 0; i < 2_000; i += 1)
        expect(refs.check('variants', `P-${i}`, `sheet V row ${i}`, i)).toBeUndefined();
      expect(refs.check('variants', 'P-7', 'sheet V row 5000', 5000)).toBe('sheet V row 7');
    } finally {
      refs.close();
    }
  });

  it('finds duplicates on disk among random refs, with the same verdicts as a Set of them', () => {
    const refs = new RefTracker(300);
    const seen = new Map<string, number>();
    let state = 12345;
    const next = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state;
    };
    try {
      for (let line = 2; line < 8_000; line += 1) {
        const ref = `R${next() % 5_000}`;
        const first = seen.get(ref);
        expect(refs.check('products', ref, `line ${line}`, line)).toBe(
          first === undefined ? undefined : `line ${first}`,
        );
        if (first === undefined) seen.set(ref, line);
      }
      expect(refs.spilled).toBeGreaterThan(5);
    } finally {
      refs.close();
    }
  });

  it('refs in no order, in memory: the same verdicts as a Map, however near or far the repeat', () => {
    // Far more refs than the recent table holds (recent-refs.ts): repeats come within the same batch
    // of recent refs, right after they move into the table, and long after; has() and
    // firstLocation() see refs wherever they are.
    const refs = new RefTracker();
    const seen = new Map<string, number>();
    let state = 987654;
    const next = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state;
    };
    // Every disagreement is kept (an expect per row would cost seconds).
    const wrong: string[] = [];
    for (let line = 2; line < 60_000; line += 1) {
      const ref = `R${next() % 40_000}`;
      const first = seen.get(ref);
      const said = refs.check('products', ref, `line ${line}`, line);
      if (said !== (first === undefined ? undefined : `line ${first}`))
        wrong.push(`${ref} on ${line}: ${said}`);
      if (first === undefined) seen.set(ref, line);
      if (line % 1_013 === 0) {
        if (!refs.has('products', ref)) wrong.push(`has ${ref}`);
        if (refs.firstLocation('products', ref) !== `line ${seen.get(ref)}`) wrong.push(`first ${ref}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(seen.size).toBeGreaterThan(30_000);
    expect(refs.spilled).toBe(0);
    expect(refs.has('products', 'R40000')).toBe(false);
    expect(refs.firstLocation('products', 'R40000')).toBeUndefined();
  });

  it('has() knows the refs check() saw, in memory and on disk, and adds none', () => {
    const refs = new RefTracker(500);
    try {
      for (let i = 0; i < 3_000; i += 1) refs.check('categories', `C-${i}`, `line ${i + 2}`, i + 2);
      expect(refs.spilled).toBeGreaterThan(0);
      for (let i = 0; i < 3_000; i += 97) expect(refs.has('categories', `C-${i}`)).toBe(true);
      expect(refs.has('categories', 'C-3000')).toBe(false);
      expect(refs.has('products', 'C-1')).toBe(false);
      expect(refs.check('categories', 'C-3000', 'line 9999', 9999)).toBeUndefined();
    } finally {
      refs.close();
    }
  });

  it('a part checked elsewhere (hashes and lines) gets the answers of a row-by-row check, in any order', () => {
    // Refs in no order, repeated within a part and across parts, and a part that rises: against a
    // tracker fed row by row, each answer (the first line of a ref) is the same.
    const hasher = new RefHasher();
    const byRow = new RefTracker(5_000);
    const byPart = new RefTracker(5_000);
    let line = 2;
    for (let part = 0; part < 12; part++) {
      const spread = Array.from(
        { length: 900 },
        (_, i) => `R-${String((i * 7919 + part * 131) % 9000).padStart(5, '0')}`,
      );
      // Parts after the first repeat some of their own refs too, later in the part.
      const refs: string[] =
        part === 0
          ? Array.from({ length: 700 }, (_, i) => `R-${String(i).padStart(5, '0')}`)
          : [...spread, ...spread.filter((_, k) => k % 17 === 0).reverse()];
      const hashes = new Int32Array(2 * refs.length);
      const lines = new Int32Array(refs.length);
      const expected: Array<string | undefined> = [];
      refs.forEach((ref, i) => {
        hasher.hash('products', ref);
        hashes[2 * i] = hasher.a;
        hashes[2 * i + 1] = hasher.b;
        lines[i] = line;
        expected.push(byRow.checkLine('products', ref, line));
        line++;
      });
      const rising = refs.every((ref, i) => i === 0 || ref > refs[i - 1]!);
      const run = rising ? { entity: 'products', first: refs[0]!, last: refs.at(-1)! } : undefined;
      const said = byPart.checkPart(hashes, lines, run);
      if (expected.every((e) => e === undefined)) expect(said).toBeUndefined();
      else expect(said).toEqual(expected);
    }
    // Both went past their limit: refs on disk are found alike.
    expect(byPart.spilled).toBeGreaterThan(0);
    expect(byPart.firstLocation('products', 'R-00003')).toBe(byRow.firstLocation('products', 'R-00003'));
  });
});
