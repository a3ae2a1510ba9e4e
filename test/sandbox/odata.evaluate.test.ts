// Evaluation semantics of parsed filters, and the index helpers resources use before scanning.

import { describe, expect, test } from 'vitest';
import {
  compileFilter,
  cultureUsed,
  equalityValues,
  evaluateFilter,
  fieldsUsed,
  parseFilter,
} from '../../src/sandbox/odata/index.js';
import { imageSchema, plainAccessor, productSchema } from './odata.fixtures.js';

type Row = Record<string, unknown>;

/** Refs of the rows the filter keeps. */
function matching(filter: string, rows: Row[], schema = productSchema): unknown[] {
  const expr = parseFilter(filter, schema);
  return rows.filter((row) => evaluateFilter(expr, row, plainAccessor)).map((row) => row.ref);
}

const rows: Row[] = [
  { ref: 'a', prod_id: 1, prod_ref: 'A-1', prod_price: 9.5, prod_active: true, prod_tags: ['red', 'big'] },
  { ref: 'b', prod_id: 2, prod_ref: 'a-2', prod_price: null, prod_active: false, prod_tags: [] },
  { ref: 'c', prod_id: 3, prod_ref: 'B-3', prod_active: true, prod_tags: null },
  { ref: 'd', prod_id: 4, prod_ref: '', prod_price: 20, prod_tags: ['bigger'] },
];

describe('evaluation', () => {
  test('eq null matches only null and undefined, never the empty string', () => {
    expect(matching('prod_price eq null', rows)).toEqual(['b', 'c']);
    expect(matching('prod_price ne null', rows)).toEqual(['a', 'd']);
    expect(matching("prod_ref eq ''", rows)).toEqual(['d']);
    expect(matching('prod_ref eq null', rows)).toEqual([]);
  });

  test('comparisons with null other than eq/ne are false', () => {
    expect(matching('prod_price gt 0', rows)).toEqual(['a', 'd']);
    expect(matching('prod_price le 100', rows)).toEqual(['a', 'd']);
    expect(matching('prod_price gt null', rows)).toEqual([]);
    expect(matching('prod_price lt null', rows)).toEqual([]);
    // ne is the negation of eq, so a null value is "not equal" to a number.
    expect(matching('prod_price ne 9.5', rows)).toEqual(['b', 'c', 'd']);
  });

  test('string comparisons are case-sensitive by code unit', () => {
    expect(matching("prod_ref eq 'a-1'", rows)).toEqual([]);
    expect(matching("prod_ref eq 'A-1'", rows)).toEqual(['a']);
    // Upper case sorts before lower case in code-unit order.
    expect(matching("prod_ref lt 'a'", rows)).toEqual(['a', 'c', 'd']);
    expect(matching("prod_ref ge 'B'", rows)).toEqual(['b', 'c']);
    const astral = [
      { ref: 'x', prod_ref: '\u{1F600}' },
      { ref: 'y', prod_ref: '\uFFFF' },
    ];
    // U+1F600 is stored as the surrogate pair D83D DE00, below U+FFFF in code units.
    expect(matching("prod_ref lt '\uFFFF'", astral)).toEqual(['x']);
  });

  test('contains, startswith and endswith test strings case-sensitively', () => {
    expect(matching("contains(prod_ref,'-')", rows)).toEqual(['a', 'b', 'c']);
    expect(matching("startswith(prod_ref,'a')", rows)).toEqual(['b']);
    expect(matching("endswith(prod_ref,'3')", rows)).toEqual(['c']);
    expect(matching("contains(prod_ref,'')", rows)).toEqual(['a', 'b', 'c', 'd']);
  });

  test('logical operators combine with not > and > or', () => {
    expect(matching('prod_active and prod_id gt 1', rows)).toEqual(['c']);
    expect(matching('not prod_active', rows)).toEqual(['b', 'd']);
    expect(matching('prod_id eq 1 or prod_id eq 2 and prod_active', rows)).toEqual(['a']);
    expect(matching('(prod_id eq 1 or prod_id eq 2) and not prod_active', rows)).toEqual(['b']);
  });

  test('in matches any listed value, null included when listed', () => {
    expect(matching("prod_ref in ('A-1','B-3','zz')", rows)).toEqual(['a', 'c']);
    expect(matching('prod_price in (20, null)', rows)).toEqual(['b', 'c', 'd']);
    expect(matching('prod_id in (2.0, 4)', rows)).toEqual(['b', 'd']);
  });

  test('array fields: eq / in match when any element matches, contains matches inside an element', () => {
    expect(matching("prod_tags eq 'big'", rows)).toEqual(['a']);
    expect(matching("prod_tags in ('red','bigger')", rows)).toEqual(['a', 'd']);
    expect(matching("contains(prod_tags,'big')", rows)).toEqual(['a', 'd']);
    expect(matching("startswith(prod_tags,'re')", rows)).toEqual(['a']);
    expect(matching("prod_tags ne 'big'", rows)).toEqual(['b', 'c', 'd']);
    expect(matching('prod_tags eq null', rows)).toEqual(['c']);
    const sized = [
      { ref: 's', prod_sizes: [36, 38] },
      { ref: 't', prod_sizes: [44] },
    ];
    expect(matching('prod_sizes eq 38', sized)).toEqual(['s']);
    expect(matching('prod_sizes gt 40', sized)).toEqual(['t']);
    expect(matching('prod_sizes in (44, 50)', sized)).toEqual(['t']);
  });

  test('date-times compare as instants against ISO strings in records', () => {
    const dated = [
      { ref: 'p', prod_created: '2023-11-30T23:59:59.999Z' },
      { ref: 'q', prod_created: '2023-12-01T00:00:00Z' },
      { ref: 'r', prod_created: '2023-12-01T18:30:00.5Z' },
      { ref: 's', prod_created: '2023-12-02T00:00:00.000Z' },
      { ref: 't', prod_created: null },
    ];
    expect(matching('prod_created ge 2023-12-01 and prod_created lt 2023-12-02', dated)).toEqual(['q', 'r']);
    expect(matching('prod_created eq 2023-12-01T00:00:00.000Z', dated)).toEqual(['q']);
    expect(matching('prod_created in (2023-12-02T00:00:00Z, 2023-12-01T18:30:00.500Z)', dated)).toEqual([
      'r',
      's',
    ]);
    expect(matching('prod_created gt 2023-12-01T18:30:00Z', dated)).toEqual(['r', 's']);
    const released = [
      { ref: 'u', prod_release: '2023-12-01' },
      { ref: 'v', prod_release: '2024-01-15' },
    ];
    expect(matching('prod_release lt 2024-01-01', released)).toEqual(['u']);
  });

  test('big integers compare exactly with numbers', () => {
    const big = [
      { ref: 'm', prod_id: 2 ** 60 },
      { ref: 'n', prod_id: 12 },
      { ref: 'o', prod_id: 2n ** 70n },
    ];
    expect(matching('prod_id eq 1152921504606846976', big)).toEqual(['m']);
    expect(matching('prod_id gt 1152921504606846976', big)).toEqual(['o']);
    expect(matching('prod_id in (1180591620717411303424, 12)', big)).toEqual(['n', 'o']);
    expect(matching('prod_id lt 99999999999999999999', big)).toEqual(['m', 'n']);
  });

  test('a culture-suffixed field is read through the accessor in that culture', () => {
    const titled = [
      { ref: 'f', prod_title: 'Chair', prod_title_fr: 'Chaise', prod_title_zh_Hans: '椅子' },
      { ref: 'g', prod_title: 'Table', prod_title_fr: 'Table' },
    ];
    expect(matching("prod_title_fr eq 'Chaise'", titled)).toEqual(['f']);
    expect(matching("prod_title eq 'Chaise'", titled)).toEqual([]);
    expect(matching("contains(prod_title_zh_Hans,'椅')", titled)).toEqual(['f']);
    expect(cultureUsed(parseFilter("prod_id eq 1 or prod_title_fr eq 'x'", productSchema))).toBe('fr');
  });

  test('DAM names are matched case-insensitively and evaluated under their canonical names', () => {
    const images = [
      { ref: 'i1', numLinks: 0, status: 'Ok' },
      { ref: 'i2', numLinks: 3, status: 'Up' },
    ];
    expect(matching("NUMLINKS gt 0 or STATUS eq 'Ok'", images, imageSchema)).toEqual(['i1', 'i2']);
    expect(matching('numlinks eq 0', images, imageSchema)).toEqual(['i1']);
  });

  test('a compiled filter is the same predicate as evaluateFilter', () => {
    const expr = parseFilter("prod_ref in ('A-1','B-3') and prod_active", productSchema);
    const keep = compileFilter<Row>(expr);
    expect(rows.filter((r) => keep(r, plainAccessor)).map((r) => r.ref)).toEqual(['a', 'c']);
    expect(compileFilter(expr)).toBe(keep);
  });

  test('a 100-value in list over 100,000 records finds exactly the listed refs', () => {
    const refs = Array.from({ length: 100 }, (_, i) => `REF-${i * 997}`);
    const expr = parseFilter(`prod_ref in (${refs.map((r) => `'${r}'`).join(',')})`, productSchema);
    let found = 0;
    const record = { prod_ref: '' };
    for (let i = 0; i < 100_000; i++) {
      record.prod_ref = `REF-${i}`;
      if (evaluateFilter(expr, record, plainAccessor)) found++;
    }
    expect(found).toBe(100);
  });
});

describe('index helpers', () => {
  const values = (text: string, field = 'prod_ref') =>
    equalityValues(parseFilter(text, productSchema), field);

  test('equalityValues: field eq x and field in (...) pin the values', () => {
    expect(values("prod_ref eq 'a'")).toEqual(['a']);
    expect(values("prod_ref in ('a','b')")).toEqual(['a', 'b']);
    expect(values('prod_id in (1, 2)', 'prod_id')).toEqual([1, 2]);
  });

  test('equalityValues: ANDed with anything still pins; the shorter list wins', () => {
    expect(values("prod_ref in ('a','b') and prod_active")).toEqual(['a', 'b']);
    expect(values("prod_active and (prod_ref eq 'c' and prod_id gt 2)")).toEqual(['c']);
    expect(values("prod_ref in ('a','b','c') and prod_ref eq 'b'")).toEqual(['b']);
  });

  test('equalityValues: an OR pins only when both sides do', () => {
    expect(values("prod_ref eq 'a' or prod_ref in ('b','c')")).toEqual(['a', 'b', 'c']);
    expect(values("prod_ref eq 'a' or prod_active")).toBeUndefined();
  });

  test('equalityValues: other shapes mean scan', () => {
    expect(values("prod_ref ne 'a'")).toBeUndefined();
    expect(values("not prod_ref eq 'a'")).toBeUndefined();
    expect(values("startswith(prod_ref,'a')")).toBeUndefined();
    expect(values("prod_ref eq 'a'", 'prod_id')).toBeUndefined();
    expect(values("prod_title_fr eq 'a'", 'prod_title')).toBeUndefined();
  });

  test('fieldsUsed lists each compared field once, cultures stripped', () => {
    const expr = parseFilter(
      "prod_id gt 1 and (prod_title_fr eq 'x' or not contains(prod_title_fr,'y')) and prod_id lt 9",
      productSchema,
    );
    expect(fieldsUsed(expr)).toEqual(['prod_id', 'prod_title']);
  });
});
