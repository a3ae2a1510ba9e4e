// $filter text as the services accept it, and `in` lists split by the encoded URL length.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  and,
  chunkIn,
  contains,
  dateOnly,
  eq,
  ge,
  inList,
  literal,
  not,
  onDay,
  or,
  utcDateTime,
} from '../../src/api/filter.js';
import { encodeQuery } from '../../src/api/url.js';
import { isCatalogIoError } from '../../src/errors.js';

describe('literals', () => {
  it('quotes strings and doubles single quotes', () => {
    expect(literal("O'Neil's")).toBe("'O''Neil''s'");
    expect(literal('')).toBe("''");
    expect(literal('café ☕ 東京')).toBe("'café ☕ 東京'");
  });

  it('numbers, big integers, booleans and null are unquoted', () => {
    expect(literal(12)).toBe('12');
    expect(literal(-1.5)).toBe('-1.5');
    expect(literal(9007199254740993n)).toBe('9007199254740993');
    expect(literal(true)).toBe('true');
    expect(literal(null)).toBe('null');
    expect(() => literal(Number.NaN)).toThrow();
  });

  it('dates as YYYY-MM-DD and date-times in UTC with Z, offsets converted', () => {
    expect(literal(dateOnly('2023-12-01'))).toBe('2023-12-01');
    expect(literal(new Date(Date.UTC(2023, 11, 1, 10, 30)))).toBe('2023-12-01T10:30:00Z');
    expect(literal(utcDateTime('2023-12-01T12:30:00+02:00'))).toBe('2023-12-01T10:30:00Z');
    expect(literal(utcDateTime('2023-12-01T12:30:00.250-01:00'))).toBe('2023-12-01T13:30:00.250Z');
    // A local time without a zone cannot be converted honestly: refused rather than guessed.
    expect(() => utcDateTime('2023-12-01T12:30:00')).toThrow();
    expect(() => dateOnly('01/12/2023')).toThrow();
  });
});

describe('expressions', () => {
  it('comparisons, language suffixes, functions and logic', () => {
    expect(eq('prod_ref', 'A-1')).toBe("prod_ref eq 'A-1'");
    expect(eq('prod_title', 'Chaise', { culture: 'fr' })).toBe("prod_title_fr eq 'Chaise'");
    expect(eq('typ_id', null)).toBe('typ_id eq null');
    expect(contains('prod_title', "l'été", { culture: 'fr' })).toBe("contains(prod_title_fr,'l''été')");
    expect(inList('prod_id', [1, 2, 3])).toBe('prod_id in (1,2,3)');
    expect(and(eq('a', 1), or(eq('b', 2), eq('c', 3)))).toBe('(a eq 1) and ((b eq 2) or (c eq 3))');
    expect(not(eq('a', 1))).toBe('not (a eq 1)');
    expect(ge('prod_date', new Date('2024-01-01T00:00:00Z'))).toBe('prod_date ge 2024-01-01T00:00:00Z');
    expect(onDay('prod_date', '2024-02-29')).toBe(
      '(prod_date ge 2024-02-29T00:00:00Z) and (prod_date lt 2024-03-01T00:00:00Z)',
    );
  });

  it('refuses names that are not property names (no filter injection)', () => {
    let caught: unknown;
    try {
      eq("prod_ref eq 'x' or 1", 1);
    } catch (err) {
      caught = err;
    }
    expect(isCatalogIoError(caught, 'CONFIG_INVALID')).toBe(true);
    expect(() => inList('prod_ref', [])).toThrow();
  });
});

describe('chunkIn', () => {
  const baseUrl = 'http://127.0.0.1:4010/catalog/Products';

  function urlOf(filter: string, other: Record<string, string | number> = {}): string {
    return baseUrl + encodeQuery({ ...other, $filter: filter });
  }

  it('keeps each encoded URL within the budget and every value exactly once, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 })), {
          maxLength: 400,
        }),
        fc.integer({ min: 300, max: 3000 }),
        (values, budget) => {
          const other = { $top: 100, $select: 'prod_id,prod_ref' };
          const chunks = [...chunkIn('prod_ref', values, { baseUrl, otherParams: other, budget })];
          for (const chunk of chunks) expect(urlOf(chunk, other).length).toBeLessThanOrEqual(budget);
          const all = chunks.map((c) => c.slice('prod_ref in ('.length, -1)).join(',');
          expect(all).toBe(values.map(literal).join(','));
          if (values.length === 0) expect(chunks).toHaveLength(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('fills chunks close to the budget (measured, not guessed)', () => {
    const values = Array.from({ length: 2000 }, (_, i) => `REF-${String(i).padStart(6, '0')}`);
    const chunks = [...chunkIn('prod_ref', values, { baseUrl })];
    for (const c of chunks.slice(0, -1)) {
      const length = urlOf(c).length;
      expect(length).toBeLessThanOrEqual(7800);
      // One more value would not have fitted.
      expect(length + encodeURIComponent(",'REF-000000'").length).toBeGreaterThan(7800);
    }
  });

  it('honours maxValues and a combined extra condition', () => {
    const chunks = [
      ...chunkIn('prod_ref', ['a', 'b', 'c'], {
        baseUrl,
        maxValues: 2,
        combine: (c) => and(c, eq('typ_id', null)),
      }),
    ];
    expect(chunks).toEqual([
      "(prod_ref in ('a','b')) and (typ_id eq null)",
      "(prod_ref in ('c')) and (typ_id eq null)",
    ]);
  });

  it('a single value too long for any URL is API_URL_TOO_LONG', () => {
    let caught: unknown;
    try {
      [...chunkIn('prod_ref', ['x'.repeat(9000)], { baseUrl })];
    } catch (err) {
      caught = err;
    }
    expect(isCatalogIoError(caught, 'API_URL_TOO_LONG')).toBe(true);
  });
});
