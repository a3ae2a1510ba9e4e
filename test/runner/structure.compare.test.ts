// Layouts compared as documents: key order does not count, array order does (the order of the form);
// differences listed path by path, a long list cut with a count; the fields a layout names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentDiff, layoutFields, sameDocument } from '../../src/runner/structure/compare.js';

const json = fc.jsonValue();

describe('sameDocument', () => {
  it('is JSON equality whatever the order of keys', () => {
    fc.assert(
      fc.property(json, (value) => {
        const reordered = JSON.parse(JSON.stringify(value, (_k, v) => reorder(v)));
        expect(sameDocument(value, reordered)).toBe(true);
        expect(sameDocument(value, { wrapped: value })).toBe(false);
      }),
    );
  });

  it('counts the order of rows and fields', () => {
    expect(sameDocument({ fields: ['a', 'b'] }, { fields: ['b', 'a'] })).toBe(false);
    expect(sameDocument({ a: 1, b: null }, { b: null, a: 1 })).toBe(true);
    expect(sameDocument({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameDocument([1], { 0: 1 })).toBe(false);
  });
});

describe('documentDiff', () => {
  it('names each difference by its path, a list of names whole', () => {
    const before = { sections: [{ title: 'Main', rows: [{ fields: ['a', 'b'] }] }] };
    const after = { sections: [{ title: 'General', rows: [{ fields: ['a', 'c'] }, { fields: ['d'] }] }] };
    expect(documentDiff('layout', before, after)).toEqual([
      'layout.sections[0].title: "Main" -> "General"',
      'layout.sections[0].rows[0].fields: ["a","b"] -> ["a","c"]',
      'layout.sections[0].rows[1]: (none) -> {"fields":["d"]}',
    ]);
    expect(documentDiff('layout', before, structuredClone(before))).toEqual([]);
  });

  it('lists at most a dozen differences, then how many more', () => {
    const before = { sections: Array.from({ length: 20 }, (_, i) => ({ title: `s${i}`, rows: [] })) };
    const after = { sections: before.sections.map((s) => ({ ...s, title: `${s.title}!` })) };
    const lines = documentDiff('layout', before, after);
    expect(lines).toHaveLength(13);
    expect(lines[12]).toBe('layout: 8 more differences');
  });
});

describe('layoutFields', () => {
  it('lists every field of every row, and nothing from a malformed document', () => {
    expect(
      layoutFields({
        sections: [{ title: 'x', rows: [{ fields: ['a', 'b'], width: 2 }, { fields: ['c'] }] }],
      }),
    ).toEqual(['a', 'b', 'c']);
    expect(layoutFields({ sections: 'no' })).toEqual([]);
    expect(layoutFields(null)).toEqual([]);
  });
});

/** The same object with its keys in reverse order. */
function reorder(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).reverse());
}
