// Property tests: the parser never throws anything but ODataError (and always returns), and every
// filter tree printed to text parses back to the same tree.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  evaluateFilter,
  type FilterExpr,
  type Literal,
  ODataError,
  parseFilter,
  parseOrderBy,
  parseSelect,
  printFilter,
} from '../../src/sandbox/odata/index.js';
import { changelogSchema, imageSchema, plainAccessor, productSchema } from './odata.fixtures.js';

/** Either a tree or an ODataError; anything else fails the property. */
function parseOrODataError(text: string, schema = productSchema): FilterExpr | ODataError {
  try {
    return parseFilter(text, schema);
  } catch (err) {
    if (err instanceof ODataError) return err;
    throw err;
  }
}

/** Fragments that make random text look like a filter, so the parser goes deep instead of failing at once. */
const fragment = fc.constantFrom(
  'prod_id',
  'prod_ref',
  'prod_title_fr',
  'prod_title_de',
  'prod_tags',
  'prod_created',
  'prod_active',
  'foo',
  'Variants/frmt_ref',
  ' eq ',
  ' ne ',
  ' gt ',
  ' in ',
  ' and ',
  ' or ',
  'not ',
  ' EQ ',
  '(',
  ')',
  ',',
  "'",
  "''",
  "'x'",
  '12',
  '-3.5e2',
  '99999999999999999999',
  '2023-12-01',
  '2023-12-01T10:00:00Z',
  '+02:00',
  'null',
  'true',
  'contains(',
  'tolower(',
  '/',
  ' ',
  '=',
  '"',
  '\u00e9',
  '\u{1F600}',
);
const filterLike = fc
  .array(fc.oneof(fragment, fc.string({ maxLength: 3 })), { maxLength: 25 })
  .map((parts) => parts.join(''));

/** A valid filter's text with a few random cuts and insertions: reaches deep into the grammar. */
function mutatedFilter(): fc.Arbitrary<string> {
  const edit = fc.record({
    at: fc.nat(),
    cut: fc.nat({ max: 4 }),
    insert: fc.oneof(fragment, fc.constant('')),
  });
  return fc.tuple(filterExpr().map(printFilter), fc.array(edit, { maxLength: 3 })).map(([text, edits]) =>
    edits.reduce((t, e) => {
      const at = e.at % (t.length + 1);
      return t.slice(0, at) + e.insert + t.slice(at + e.cut);
    }, text),
  );
}

describe('$filter properties', () => {
  test('random input never throws anything but ODataError', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.string({ unit: 'grapheme', maxLength: 60 }),
          filterLike,
          mutatedFilter(),
        ),
        (text) => {
          for (const schema of [productSchema, changelogSchema, imageSchema]) {
            const result = parseOrODataError(text, schema);
            if (result instanceof ODataError) {
              expect(result.parameter).toBe('$filter');
              expect(result.attemptedValue).toBe(text);
            }
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('random $orderby and $select input never throws anything but ODataError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 60 }), filterLike), (text) => {
        for (const run of [
          () => parseOrderBy(text, productSchema, { singleOnly: true }),
          () => parseOrderBy(text, imageSchema, { firstOnly: true }),
          () => parseSelect(text, productSchema),
        ]) {
          try {
            run();
          } catch (err) {
            expect(err).toBeInstanceOf(ODataError);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('a generated filter printed to text parses back to the same tree', () => {
    fc.assert(
      fc.property(filterExpr(), (expr) => {
        expect(parseFilter(printFilter(expr), productSchema)).toEqual(expr);
      }),
      { numRuns: 1000 },
    );
  });

  test('evaluating a parsed filter on random records never throws', () => {
    const record = fc.record({
      prod_id: fc.oneof(fc.integer(), fc.bigInt(), fc.constant(null), fc.double()),
      prod_ref: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
      prod_title_fr: fc.option(fc.string()),
      prod_tags: fc.oneof(fc.array(fc.oneof(fc.string(), fc.constant(null))), fc.constant(undefined)),
      prod_created: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.string(),
        fc.constant(null),
      ),
    });
    fc.assert(
      fc.property(filterExpr(), fc.array(record, { maxLength: 5 }), (expr, records) => {
        for (const r of records) expect(typeof evaluateFilter(expr, r, plainAccessor)).toBe('boolean');
      }),
      { numRuns: 500 },
    );
  });
});

// Generators of filter trees over productSchema, with literals of each field's type.

const safeString = fc.string({ maxLength: 12 });
const isoDate = fc.date({
  min: new Date('1900-01-01T00:00:00Z'),
  max: new Date('2999-12-31T23:59:59Z'),
  noInvalidDate: true,
});
const numberLiteral = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt().filter((n) => !Number.isSafeInteger(Number(n))),
);

/** [field name, literal generator, whether string functions apply]. */
const comparable: Array<[string, fc.Arbitrary<Literal>, boolean]> = [
  ['prod_id', numberLiteral, false],
  ['prod_price', numberLiteral, false],
  ['prod_ref', safeString, true],
  ['prod_title', safeString, true],
  ['prod_tags', safeString, true],
  ['prod_sizes', numberLiteral, false],
  ['prod_active', fc.boolean(), false],
  ['prod_created', isoDate, false],
  ['prod_release', isoDate, false],
];

function leaf(culture: string | undefined): fc.Arbitrary<FilterExpr> {
  return fc.constantFrom(...comparable).chain(([field, literal, textual]) => {
    const at = field === 'prod_title' && culture !== undefined ? { culture } : {};
    const value = fc.oneof({ weight: 5, arbitrary: literal }, { weight: 1, arbitrary: fc.constant(null) });
    const options: Array<fc.Arbitrary<FilterExpr>> = [
      fc
        .record({ op: fc.constantFrom('eq', 'ne', 'gt', 'ge', 'lt', 'le' as const), value })
        .map(({ op, value }) => ({ kind: 'compare', op, field, ...at, value }) as FilterExpr),
      fc
        .array(value, { minLength: 1, maxLength: 5 })
        .map((values) => ({ kind: 'in', field, ...at, values }) as FilterExpr),
    ];
    if (textual) {
      options.push(
        fc
          .record({ name: fc.constantFrom('contains', 'startswith', 'endswith' as const), value: safeString })
          .map(({ name, value }) => ({ kind: 'func', name, field, ...at, value }) as FilterExpr),
      );
    }
    return fc.oneof(...options);
  });
}

function filterExpr(): fc.Arbitrary<FilterExpr> {
  return fc.option(fc.constantFrom('en', 'fr', 'fr-CA', 'zh_Hans'), { nil: undefined }).chain((culture) => {
    const tree = fc.letrec<{ node: FilterExpr }>((tie) => ({
      node: fc.oneof(
        { maxDepth: 4, depthIdentifier: 'filter' },
        leaf(culture),
        fc
          .record({ kind: fc.constantFrom('and', 'or' as const), left: tie('node'), right: tie('node') })
          .map((e) => e as FilterExpr),
        tie('node').map((expr) => ({ kind: 'not', expr }) as FilterExpr),
      ),
    }));
    return tree.node;
  });
}
