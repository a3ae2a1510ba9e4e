// $orderby, $select, $top and $skip.

import { describe, expect, test } from 'vitest';
import { compareForOrder, parseIntOption, parseOrderBy, parseSelect } from '../../src/sandbox/odata/index.js';
import { changelogSchema, expectODataError, imageSchema, productSchema } from './odata.fixtures.js';

describe('$orderby', () => {
  test('<property> [asc|desc], ascending by default', () => {
    expect(parseOrderBy('prod_id', productSchema)).toEqual({ field: 'prod_id', descending: false });
    expect(parseOrderBy('prod_id asc', productSchema)).toEqual({ field: 'prod_id', descending: false });
    expect(parseOrderBy('  prod_id   desc ', productSchema)).toEqual({ field: 'prod_id', descending: true });
    expect(parseOrderBy('prod_title_fr desc', productSchema)).toEqual({
      field: 'prod_title',
      descending: true,
      culture: 'fr',
    });
  });

  test('a direction other than asc/desc is refused', () => {
    expectODataError(() => parseOrderBy('prod_id DESC', productSchema), { parameter: '$orderby' });
    expectODataError(() => parseOrderBy('prod_id down', productSchema), { parameter: '$orderby' });
    expectODataError(() => parseOrderBy('prod_id asc desc', productSchema), { parameter: '$orderby' });
    expectODataError(() => parseOrderBy('', productSchema), { parameter: '$orderby' });
  });

  test('singleOnly: several properties are refused (catalog)', () => {
    const error = expectODataError(
      () => parseOrderBy('prod_id desc,prod_ref', productSchema, { singleOnly: true }),
      {
        parameter: '$orderby',
        propertyName: '$orderby',
      },
    );
    expect(error.message).toContain('Only one property');
    expectODataError(() => parseOrderBy('prod_id,prod_ref', productSchema));
  });

  test('firstOnly: only the first expression is honoured (DAM)', () => {
    expect(parseOrderBy('modifiedOn desc, id asc, whatever', imageSchema, { firstOnly: true })).toEqual({
      field: 'modifiedOn',
      descending: true,
    });
    expect(parseOrderBy('NUMLINKS DESC', imageSchema, { firstOnly: true })).toEqual({
      field: 'numLinks',
      descending: true,
    });
  });

  test('unknown or unsortable properties are refused', () => {
    const unknown = expectODataError(() => parseOrderBy('foo', productSchema), { propertyName: 'foo' });
    expect(unknown.message).toContain("Could not find a property named 'foo'");
    expect(expectODataError(() => parseOrderBy('foo desc', changelogSchema)).message).toBe(
      "Unknown property: 'foo'",
    );
    expectODataError(() => parseOrderBy('author_type', changelogSchema), { propertyName: 'author_type' });
    expectODataError(() => parseOrderBy('prod_desc_fr', productSchema), { propertyName: 'prod_desc_fr' });
    expectODataError(() => parseOrderBy('prod_title_de', productSchema), { propertyName: 'prod_title_de' });
    expectODataError(() => parseOrderBy('Variants/frmt_ref', productSchema), {
      propertyName: 'Variants/frmt_ref',
    });
  });

  test('compareForOrder: nulls first, numbers numerically, strings by code unit, dates by instant', () => {
    // Array.prototype.sort moves undefined to the end by itself, so it is checked directly.
    const values = ['b', null, 'B', 10, 9, 2n ** 64n, 'a', '\u{1F600}', '\uFFFF'];
    const sorted = [...values].sort(compareForOrder);
    expect(compareForOrder(undefined, -1)).toBeLessThan(0);
    expect(compareForOrder(null, undefined)).toBe(0);
    expect(sorted).toEqual([null, 9, 10, 2n ** 64n, 'B', 'a', 'b', '\u{1F600}', '\uFFFF']);
    expect(compareForOrder(new Date('2023-01-01'), new Date('2022-01-01'))).toBeGreaterThan(0);
    expect(compareForOrder(false, true)).toBeLessThan(0);
    expect(compareForOrder(['a', 'b'], ['a'])).toBeGreaterThan(0);
    expect(compareForOrder(1.5, 1.5)).toBe(0);
  });
});

describe('$select', () => {
  test('comma-separated root property names', () => {
    expect(parseSelect('prod_id,prod_ref', productSchema)).toEqual(['prod_id', 'prod_ref']);
    expect(parseSelect(' prod_id , prod_title ,prod_id', productSchema)).toEqual(['prod_id', 'prod_title']);
    expect(parseSelect('*', productSchema)).not.toContain('prod_secret');
    expect(parseSelect('*', productSchema)).toContain('prod_tags');
  });

  test('an unknown or unselectable property is refused', () => {
    const error = expectODataError(() => parseSelect('prod_id,foo', productSchema), {
      parameter: '$select',
      propertyName: 'foo',
    });
    expect(error.attemptedValue).toBe('prod_id,foo');
    expectODataError(() => parseSelect('prod_secret', productSchema), { propertyName: 'prod_secret' });
    expectODataError(() => parseSelect('prod_title_fr', productSchema), { propertyName: 'prod_title_fr' });
  });

  test('a path with / (embedded resource property) is refused', () => {
    const error = expectODataError(() => parseSelect('prod_id,Variants/frmt_ref', productSchema), {
      parameter: '$select',
      propertyName: 'Variants/frmt_ref',
    });
    expect(error.message).toContain('embedded');
  });

  test('empty entries and spaces inside a name are refused', () => {
    expectODataError(() => parseSelect('prod_id,,prod_ref', productSchema), { parameter: '$select' });
    expectODataError(() => parseSelect('', productSchema), { parameter: '$select' });
    expectODataError(() => parseSelect('prod_id prod_ref', productSchema), { parameter: '$select' });
  });
});

describe('$top and $skip', () => {
  const top = (text: string | null) => parseIntOption('$top', text, { min: 1, max: 100 });
  const skip = (text: string | null) => parseIntOption('$skip', text, { min: 0 });

  test('absent gives undefined; whole numbers in range are returned', () => {
    expect(top(null)).toBeUndefined();
    expect(top('1')).toBe(1);
    expect(top('100')).toBe(100);
    expect(skip('0')).toBe(0);
    expect(skip('250000')).toBe(250000);
  });

  test('$top outside 1..100 and negative $skip are refused with the range', () => {
    const error = expectODataError(() => top('101'), { parameter: '$top', propertyName: '$top' });
    expect(error.message).toContain('from 1 to 100');
    expect(error.message).toContain("'101'");
    expectODataError(() => top('0'), { parameter: '$top' });
    expect(expectODataError(() => skip('-1'), { parameter: '$skip' }).message).toContain('0 or greater');
    expectODataError(() => skip('99999999999999999999'), { parameter: '$skip' });
  });

  test('non-integers are refused', () => {
    for (const text of ['1.5', 'ten', '', ' 5', '1e2', '0x10', '5 ']) {
      expectODataError(() => top(text), { parameter: '$top' });
    }
  });
});
