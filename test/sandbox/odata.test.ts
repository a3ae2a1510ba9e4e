// $filter parsing rules, one test per rule of the catalog and DAM specs.

import { describe, expect, test } from 'vitest';
import { fieldsUsed, parseFilter } from '../../src/sandbox/odata/index.js';
import { changelogSchema, expectODataError, imageSchema, productSchema } from './odata.fixtures.js';

const parse = (text: string) => parseFilter(text, productSchema);
const rejects = (text: string, propertyName?: string) =>
  expectODataError(() => parse(text), { parameter: '$filter', propertyName });

describe('$filter: comparison operators', () => {
  test('comparison eq ne gt ge lt le each parse to a compare node', () => {
    for (const op of ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const) {
      expect(parse(`prod_id ${op} 12`)).toEqual({ kind: 'compare', op, field: 'prod_id', value: 12 });
    }
  });

  test('a literal on the left is read with the operator flipped', () => {
    expect(parse('12 lt prod_id')).toEqual({ kind: 'compare', op: 'gt', field: 'prod_id', value: 12 });
    expect(parse("'A-1' eq prod_ref")).toEqual({
      kind: 'compare',
      op: 'eq',
      field: 'prod_ref',
      value: 'A-1',
    });
  });

  test('keywords are case-sensitive lower case: EQ, AND, Or are refused', () => {
    expect(rejects('prod_id EQ 1').message).toContain("unknown operator 'EQ'");
    rejects('prod_id eq 1 AND prod_id eq 2');
    rejects('prod_id eq 1 Or prod_id eq 2');
  });

  test('symbols from other languages (=, <, !=, &&) are refused with the OData spelling', () => {
    expect(rejects('prod_id = 1').message).toContain("'eq'");
    expect(rejects('prod_id < 1').message).toContain("'lt'");
    rejects('prod_id != 1');
    rejects('prod_id eq 1 && prod_id eq 2');
  });
});

describe('$filter: logical operators and precedence', () => {
  test('not binds tighter than and, and tighter than or', () => {
    expect(parse('not prod_id eq 1 and prod_id eq 2 or prod_id eq 3')).toEqual({
      kind: 'or',
      left: {
        kind: 'and',
        left: { kind: 'not', expr: { kind: 'compare', op: 'eq', field: 'prod_id', value: 1 } },
        right: { kind: 'compare', op: 'eq', field: 'prod_id', value: 2 },
      },
      right: { kind: 'compare', op: 'eq', field: 'prod_id', value: 3 },
    });
  });

  test('a or b and c groups as a or (b and c)', () => {
    const expr = parse('prod_id eq 1 or prod_id eq 2 and prod_id eq 3');
    expect(expr.kind).toBe('or');
    expect(expr.kind === 'or' && expr.right.kind).toBe('and');
  });

  test('parentheses override precedence', () => {
    const expr = parse('(prod_id eq 1 or prod_id eq 2) and prod_id eq 3');
    expect(expr.kind).toBe('and');
    expect(expr.kind === 'and' && expr.left.kind).toBe('or');
    expect(parse('not (prod_id eq 1 or prod_id eq 2)').kind).toBe('not');
  });

  test('and / or chains associate to the left', () => {
    const expr = parse('prod_id eq 1 and prod_id eq 2 and prod_id eq 3');
    expect(expr.kind === 'and' && expr.left.kind).toBe('and');
  });

  test('a boolean property alone is a condition', () => {
    expect(parse('prod_active')).toEqual({ kind: 'compare', op: 'eq', field: 'prod_active', value: true });
    expect(parse('not prod_active and prod_id eq 1').kind).toBe('and');
    rejects('prod_ref');
  });
});

describe('$filter: in and functions', () => {
  test('in (...) gives the list of values', () => {
    expect(parse("prod_ref in ('a', 'b','c')")).toEqual({
      kind: 'in',
      field: 'prod_ref',
      values: ['a', 'b', 'c'],
    });
    expect(parse('prod_id in (1)')).toEqual({ kind: 'in', field: 'prod_id', values: [1] });
  });

  test('in with an empty, unclosed or unseparated list is refused', () => {
    expect(rejects('prod_ref in ()').message).toContain('empty');
    rejects("prod_ref in ('a'");
    rejects("prod_ref in ('a' 'b')");
    rejects("prod_ref in 'a'");
  });

  test('contains, startswith and endswith are written as functions', () => {
    expect(parse("contains(prod_ref,'x')")).toEqual({
      kind: 'func',
      name: 'contains',
      field: 'prod_ref',
      value: 'x',
    });
    expect(parse("startswith(prod_ref, 'A')")).toMatchObject({ name: 'startswith' });
    expect(parse("endswith(prod_ref,'Z') eq true")).toMatchObject({ kind: 'func', name: 'endswith' });
    expect(parse("contains(prod_ref,'x') eq false")).toMatchObject({ kind: 'not', expr: { kind: 'func' } });
  });

  test('functions written as operators, with a number or on a number field are refused', () => {
    rejects("prod_ref contains 'x'");
    rejects('contains(prod_ref,12)', 'prod_ref');
    expect(rejects("contains(prod_id,'1')", 'prod_id').message).toContain('text properties');
    rejects("contains('x',prod_ref)");
  });

  test('unsupported functions are refused naming the function', () => {
    for (const name of ['length', 'tolower', 'toupper', 'trim', 'concat', 'substringof']) {
      const error = rejects(`${name}(prod_ref) eq 'x'`);
      expect(error.message).toContain(`'${name}'`);
      expect(error.message).toContain('not supported');
    }
  });

  test('unknown functions are refused naming the function', () => {
    expect(rejects("frobnicate(prod_ref,'x')").message).toContain("'frobnicate'");
    expect(rejects("Contains(prod_ref,'x')").message).toContain('lower case');
  });
});

describe('$filter: literals', () => {
  test('integers, big integers, doubles and decimals are unquoted numbers', () => {
    expect(parse('prod_id eq 12')).toMatchObject({ value: 12 });
    expect(parse('prod_id eq -12')).toMatchObject({ value: -12 });
    expect(parse('prod_id eq 123456789012345678901234')).toMatchObject({ value: 123456789012345678901234n });
    expect(parse('prod_price eq 12.5')).toMatchObject({ value: 12.5 });
    expect(parse('prod_price lt 1.5e3')).toMatchObject({ value: 1500 });
    expect(parse('prod_id eq 9007199254740991')).toMatchObject({ value: 9007199254740991 });
  });

  test("strings are single-quoted and '' is an escaped quote", () => {
    expect(parse("prod_ref eq 'O''Brien'")).toMatchObject({ value: "O'Brien" });
    expect(parse("prod_ref eq ''")).toMatchObject({ value: '' });
    expect(parse("prod_ref eq 'a and b or (c)'")).toMatchObject({ value: 'a and b or (c)' });
    expect(rejects("prod_ref eq 'open").message).toContain('closing quote');
    expect(rejects('prod_ref eq "x"').message).toContain('single quotes');
  });

  test('null, true and false are unquoted keywords', () => {
    expect(parse('typ_id eq null')).toMatchObject({ value: null });
    expect(parse('prod_ref ne null')).toMatchObject({ op: 'ne', value: null });
    expect(parse('prod_active eq false')).toMatchObject({ value: false });
  });

  test('dates are written as 2023-12-01 and mean midnight UTC', () => {
    expect(parse('prod_release eq 2023-12-01')).toMatchObject({ value: new Date('2023-12-01T00:00:00Z') });
    expect(rejects('prod_release eq 2023-02-30').message).toContain('not a valid date');
    rejects('prod_release eq 2023-13-01');
  });

  test('date-times are UTC with Z, fractional seconds allowed', () => {
    expect(parse('prod_created ge 2023-12-01T10:20:30Z')).toMatchObject({
      value: new Date('2023-12-01T10:20:30Z'),
    });
    expect(parse('prod_created ge 2023-12-01T10:20:30.123456Z')).toMatchObject({
      value: new Date('2023-12-01T10:20:30.123Z'),
    });
    expect(parse('prod_created ge 2023-12-01T10:20Z')).toMatchObject({
      value: new Date('2023-12-01T10:20:00Z'),
    });
    expect(rejects('prod_created ge 2023-12-01T10:20:30').message).toContain("ending with 'Z'");
    rejects('prod_created ge 2023-12-01T25:00:00Z');
  });

  test('an offset such as +02:00 is a 400 unless the schema allows offsets', () => {
    const error = rejects('prod_created ge 2023-12-01T10:00:00+02:00');
    expect(error.message).toContain("'+02:00'");
    expect(error.attemptedValue).toBe('prod_created ge 2023-12-01T10:00:00+02:00');
    // A '+' decoded to a space is pointed out.
    expect(rejects('prod_created ge 2023-12-01T10:00:00 02:00').message).toContain('%2B');
    const legacy = { ...productSchema, allowOffsets: true };
    expect(parseFilter('prod_created ge 2023-12-01T10:00:00+02:00', legacy)).toMatchObject({
      value: new Date('2023-12-01T08:00:00Z'),
    });
    expect(parseFilter('prod_created ge 2023-12-01T10:00:00-05:30', legacy)).toMatchObject({
      value: new Date('2023-12-01T15:30:00Z'),
    });
  });

  test('a date-time field accepts a date-only literal (compared as an instant)', () => {
    expect(parse('prod_created ge 2023-12-01 and prod_created lt 2023-12-02')).toMatchObject({
      left: { value: new Date('2023-12-01T00:00:00Z') },
      right: { value: new Date('2023-12-02T00:00:00Z') },
    });
  });
});

describe('$filter: properties', () => {
  test('an unknown property is refused with the default message naming the type', () => {
    const error = rejects('foo eq 1', 'foo');
    expect(error.message).toBe(
      "The query specified in the URI is not valid. Could not find a property named 'foo' on type 'Product'.",
    );
  });

  test('an unknown property uses the schema message when given (changelog)', () => {
    const error = expectODataError(() => parseFilter('foo eq 1', changelogSchema), { propertyName: 'foo' });
    expect(error.message).toBe("Unknown property: 'foo'");
  });

  test('property names are case-sensitive unless the schema says otherwise (DAM)', () => {
    rejects('PROD_ID eq 1', 'PROD_ID');
    expect(parseFilter("NUMLINKS gt 0 and Reference eq 'a'", imageSchema)).toMatchObject({
      left: { field: 'numLinks' },
      right: { field: 'reference' },
    });
    expectODataError(() => parseFilter("tags eq 'x'", imageSchema), { propertyName: 'tags' });
  });

  test('filtering on nested properties (Variants/frmt_ref, a/b) is refused', () => {
    expect(rejects("Variants/frmt_ref eq 'x'", 'Variants/frmt_ref').message).toContain('embedded');
    rejects('a/b eq 1', 'a/b');
    rejects("prod_tags/any(t: t eq 'x')");
    rejects("contains(Variants/frmt_ref,'x')");
  });

  test('comparing two properties is refused', () => {
    expect(rejects('prod_id eq typ_id', 'prod_id').message).toContain('two properties');
  });

  test('a multilingual field is addressed as <field>_<culture>', () => {
    expect(parse("prod_title_fr eq 'Chaise'")).toEqual({
      kind: 'compare',
      op: 'eq',
      field: 'prod_title',
      culture: 'fr',
      value: 'Chaise',
    });
    expect(parse("prod_title eq 'Chair'")).toEqual({
      kind: 'compare',
      op: 'eq',
      field: 'prod_title',
      value: 'Chair',
    });
  });

  test('cultures like fr-CA and zh_Hans match the longest multilingual prefix', () => {
    expect(parse("prod_title_fr-CA eq 'x'")).toMatchObject({ field: 'prod_title', culture: 'fr-CA' });
    expect(parse("prod_title_zh_Hans eq 'x'")).toMatchObject({ field: 'prod_title', culture: 'zh_Hans' });
    expect(parse("contains(prod_desc_zh_Hans,'x')")).toMatchObject({
      field: 'prod_desc',
      culture: 'zh_Hans',
    });
    // An exact field name wins over a multilingual reading.
    expect(parse("prod_title_short eq 'x'")).toEqual({
      kind: 'compare',
      op: 'eq',
      field: 'prod_title_short',
      value: 'x',
    });
    // Culture case is forgiven and normalised to the tenant's spelling.
    expect(parse("prod_title_FR eq 'x'")).toMatchObject({ culture: 'fr' });
  });

  test('a suffix that is not a tenant language is refused saying the language is not available', () => {
    const error = rejects("prod_title_de eq 'x'", 'prod_title_de');
    expect(error.message).toContain("language 'de' is not available");
    expect(error.message).toContain('en, fr, fr-CA, zh_Hans');
    rejects("prod_title_zh_Hant eq 'x'", 'prod_title_zh_Hant');
  });

  test('only one language per filter', () => {
    expect(parse("prod_title_fr eq 'a' or prod_desc_fr eq 'b'").kind).toBe('or');
    const error = rejects("prod_title_fr eq 'a' and prod_title_en eq 'b'", 'prod_title_en');
    expect(error.message).toContain('only one language');
  });

  test('operators restricted per field (changelog author_type, attribute_id: eq only)', () => {
    expect(parseFilter("author_type eq 'user' and author_id eq 4", changelogSchema).kind).toBe('and');
    const error = expectODataError(() => parseFilter("author_type ne 'user'", changelogSchema), {
      propertyName: 'author_type',
    });
    expect(error.message).toContain("'ne'");
    expectODataError(() => parseFilter("attribute_id in ('a','b')", changelogSchema), {
      propertyName: 'attribute_id',
    });
    expectODataError(() => parseFilter("contains(attribute_id,'a')", changelogSchema), {
      propertyName: 'attribute_id',
    });
  });

  test('requires: author_id only together with author_type', () => {
    const error = expectODataError(() => parseFilter('author_id eq 4', changelogSchema), {
      propertyName: 'author_id',
    });
    expect(error.message).toContain("'author_type'");
    expect(fieldsUsed(parseFilter("author_id eq 4 and author_type eq 'user'", changelogSchema))).toEqual([
      'author_id',
      'author_type',
    ]);
  });
});

describe('$filter: type checks', () => {
  test('a string field compared to an unquoted word is "text without quotes"', () => {
    const error = rejects('prod_ref eq ABC-1', 'prod_ref');
    expect(error.message).toContain('text without quotes');
    expect(error.message).toContain('ABC-1');
    rejects('prod_ref in (abc)', 'prod_ref');
  });

  test('a string field compared to a number or date is refused', () => {
    expect(rejects('prod_ref eq 12', 'prod_ref').message).toContain('the number 12');
    rejects('prod_ref eq 2023-12-01', 'prod_ref');
  });

  test('a number field compared to a string is refused', () => {
    const error = rejects("prod_id eq '12'", 'prod_id');
    expect(error.message).toContain("the string '12'");
    rejects("prod_sizes in (1, '2')", 'prod_sizes');
    rejects('prod_id eq true', 'prod_id');
    rejects('prod_id eq twelve', 'prod_id');
  });

  test('boolean and date fields take only their own literals', () => {
    rejects("prod_active eq 'true'", 'prod_active');
    rejects('prod_active eq 1', 'prod_active');
    rejects("prod_created ge '2023-12-01T00:00:00Z'", 'prod_created');
    rejects('prod_created ge 20231201', 'prod_created');
  });

  test('null is accepted for every type', () => {
    for (const name of ['prod_id', 'prod_ref', 'prod_active', 'prod_created', 'prod_tags']) {
      expect(parse(`${name} eq null`)).toMatchObject({ field: name, value: null });
    }
  });
});

describe('$filter: malformed expressions', () => {
  test('unbalanced parentheses are refused with the position', () => {
    expect(rejects('(prod_id eq 1').message).toContain('position 13');
    expect(rejects('prod_id eq 1)').message).toContain('position 12');
    rejects('((prod_id eq 1)');
  });

  test('trailing tokens are refused with the position', () => {
    expect(rejects('prod_id eq 1 2').message).toContain('position 13');
    rejects("prod_id eq 1 prod_ref eq 'a'");
  });

  test('a missing operand is refused with the position', () => {
    expect(rejects('prod_id eq').message).toContain('position 10');
    rejects('prod_id eq 1 and');
    rejects('and prod_id eq 1');
    rejects('not');
    rejects('prod_id');
    rejects('()');
  });

  test('an empty filter is refused', () => {
    rejects('');
    rejects('   ');
  });

  test('deep nesting is an ODataError, not a stack overflow', () => {
    rejects(`${'('.repeat(5000)}prod_id eq 1${')'.repeat(5000)}`);
    rejects(`${'not '.repeat(5000)}prod_active`);
    expect(parse(`${'('.repeat(50)}prod_id eq 1${')'.repeat(50)}`)).toMatchObject({ kind: 'compare' });
  });

  test('more than 2,000 conditions is an ODataError, not a stack overflow', () => {
    const chain = (n: number) => Array.from({ length: n }, (_, i) => `prod_id eq ${i}`).join(' or ');
    expect(parse(chain(2000)).kind).toBe('or');
    expect(rejects(chain(2001)).message).toContain('more than 2000 conditions');
  });

  test('the error carries the parameter, the property and the text sent', () => {
    const error = rejects('prod_id eq 1)');
    expect(error.parameter).toBe('$filter');
    expect(error.propertyName).toBe('$filter');
    expect(error.attemptedValue).toBe('prod_id eq 1)');
    expect(error.message.startsWith('The query specified in the URI is not valid.')).toBe(true);
  });
});
