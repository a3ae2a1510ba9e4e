// The bounded caches' eviction: the oldest entry by insertion order goes, an entry set again counts as
// new, and the cursor that finds the oldest follows deletions, re-insertions and a map emptied and filled.
import { describe, expect, it } from 'vitest';
import { setBounded, takeOldest } from '../src/bounded-map.js';

describe('takeOldest', () => {
  it('takes entries in insertion order, an entry set again after the others', () => {
    const map = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    expect(takeOldest(map)).toEqual(['a', 1]);
    // `b` used again: it is the newest now.
    map.delete('b');
    map.set('b', 20);
    map.set('d', 4);
    expect(takeOldest(map)).toEqual(['c', 3]);
    expect(takeOldest(map)).toEqual(['b', 20]);
    expect(takeOldest(map)).toEqual(['d', 4]);
    expect(takeOldest(map)).toBeUndefined();
    expect(map.size).toBe(0);
    // Filled again after its cursor reached the end.
    map.set('e', 5);
    map.set('f', 6);
    expect(takeOldest(map)).toEqual(['e', 5]);
    expect([...map.keys()]).toEqual(['f']);
  });

  it('skips an entry deleted by someone else, and works on a set', () => {
    const map = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    expect(takeOldest(map)?.[0]).toBe('a');
    map.delete('b');
    expect(takeOldest(map)?.[0]).toBe('c');
    const set = new Set(['x', 'y']);
    expect(takeOldest(set)).toEqual(['x', 'x']);
    expect([...set]).toEqual(['y']);
  });

  it('keeps a bounded map as a least-recently-set cache, over many evictions', () => {
    // The same sequence on a plain array model: the map must hold exactly the model's keys, in order.
    const limit = 1_000;
    const map = new Map<string, number>();
    let model: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      // Mostly new keys, some set again (recent ones, and ones that may already be gone).
      const key = i % 7 === 0 ? `k${i - (i % 1_300)}` : `k${i}`;
      setBounded(map, key, i, limit);
      model = model.filter((k) => k !== key);
      model.push(key);
      if (model.length > limit) model.shift();
      if (i % 5_000 === 0 || i === 49_999) expect([...map.keys()]).toEqual(model);
    }
    expect(map.size).toBe(limit);
  });
});
