// Diffing drafts against existing records: what counts as a change, and the PATCH body it gives.
import { describe, expect, it } from 'vitest';
import type { Draft } from '../../src/mappers/types.js';
import { diffDraft, sameValue } from '../../src/runner/import/diff.js';
import type { EntityModel, FieldModel } from '../../src/schema/model.js';

function field(name: string, extra: Partial<FieldModel> = {}): FieldModel {
  return {
    name,
    type: 'string',
    readOnly: false,
    immutable: false,
    multilingual: false,
    multiple: false,
    required: false,
    ...extra,
  };
}

const fields = [
  field('prod_id', { type: 'integer', readOnly: true }),
  field('prod_ref', { immutable: true }),
  field('prod_title', { multilingual: true }),
  field('prod_weight', { type: 'number' }),
  field('prod_date', { type: 'date-time' }),
  field('prod_tags', { multiple: true }),
  field('prod_images', { asset: 'image', multiple: true, multilingual: true }),
  field('cat_ids', { type: 'integer', multiple: true, references: 'Categories' }),
];
const products: EntityModel = {
  name: 'products',
  kind: 'products',
  path: '/Products',
  idField: 'prod_id',
  refField: 'prod_ref',
  fields,
  field: (n) => fields.find((f) => f.name === n),
};

const LOCATION = { text: 'line 2', source: 'feed.csv', line: 2 };

function draft(fields: Draft['fields'], cultures: Draft['cultures'] = {}): Draft {
  return {
    entity: 'products',
    ref: 'P-1',
    command: 'MERGE',
    fields: { prod_ref: 'P-1', ...fields },
    cultures,
    assets: [],
    links: {},
    source: { location: LOCATION, row: { location: LOCATION, cells: {}, index: 1 }, columns: {} },
  };
}

describe('diffDraft', () => {
  const existing = {
    id: 7,
    base: {
      prod_id: 7,
      prod_ref: 'P-1',
      prod_title: 'Linen shirt',
      prod_weight: 0.5,
      prod_date: '2024-02-01T10:30:00Z',
      prod_tags: ['summer', 'linen'],
      prod_images: ['a.jpg', 'b.jpg'],
      cat_ids: [3, 1],
    },
    cultures: { fr: { prod_title: 'Chemise en lin' } },
  };

  it('an identical draft is unchanged, across number, date-time, order-free links and languages', () => {
    const d = draft(
      {
        prod_title: 'Linen shirt',
        prod_weight: '0.50' as unknown as number,
        prod_date: '2024-02-01T10:30:00.000Z',
        prod_tags: ['summer', 'linen'],
        prod_images: 'a.jpg,b.jpg',
      },
      { fr: { prod_title: 'Chemise en lin' } },
    );
    const result = diffDraft(d, existing, products, 'en', { cat_ids: [1, 3] });
    expect(result.changes).toEqual([]);
    expect(result.body).toEqual({});
  });

  it('a changed field gives a PATCH body with only that field, never the ref', () => {
    const result = diffDraft(
      draft({ prod_weight: 0.75, prod_title: 'Linen shirt' }),
      existing,
      products,
      'en',
    );
    expect(result.changes).toEqual([{ field: 'prod_weight', old: 0.5, new: 0.75 }]);
    expect(result.body).toEqual({ prod_weight: 0.75 });
  });

  it('a changed translation is sent as {culture: value} with only the changed culture', () => {
    const result = diffDraft(draft({}, { fr: { prod_title: 'Chemise de lin' } }), existing, products, 'en');
    expect(result.body).toEqual({ prod_title: { fr: 'Chemise de lin' } });
    expect(result.changes).toEqual([
      { field: 'prod_title', culture: 'fr', old: 'Chemise en lin', new: 'Chemise de lin' },
    ]);
  });

  it('multi-values keep their order; links do not', () => {
    const field = products.field('prod_tags');
    expect(sameValue(field, ['a', 'b'], ['b', 'a'])).toBe(false);
    expect(sameValue(products.field('cat_ids'), [1, 2], [2, 1])).toBe(true);
    expect(sameValue(field, [], null)).toBe(true);
    expect(sameValue(products.field('prod_title'), '', null)).toBe(true);
  });
});

describe('texts a file cannot carry as they are', () => {
  const existing = {
    id: 7,
    base: { prod_ref: 'P-1', prod_title: ' padded ', prod_tags: ['x ', 'l1\r\nl2'], prod_weight: 2 },
    cultures: { fr: { prod_title: 'ctl\u0007\r\nnext' } },
  };

  it('edge spaces, line-end style and control characters are no change', () => {
    const same = draft(
      { prod_title: 'padded', prod_tags: ['x', 'l1\nl2'] },
      { fr: { prod_title: 'ctl\nnext' } },
    );
    expect(diffDraft(same, existing, products, 'en').changes).toEqual([]);
  });

  it('any other difference is still a change, and a number is not a text', () => {
    const changed = draft({ prod_title: 'padded!', prod_tags: ['x', 'l1 l2'], prod_weight: 2.5 });
    const { changes } = diffDraft(changed, existing, products, 'en');
    expect(changes.map((c) => c.field)).toEqual(['prod_title', 'prod_tags', 'prod_weight']);
    expect(sameValue(field('prod_weight', { type: 'number' }), ' 2', 2)).toBe(true);
  });
});

// Excel keeps 15 significant digits: a decimal the tenant holds as a float artefact comes back from a
// workbook Excel saved at 15 digits, and is the same value (writers/excel-number.ts).
describe('decimals at Excel precision', () => {
  const weight = products.field('prod_weight');
  const ids = products.field('cat_ids');

  it('a float artefact equals its 15-digit form; a real change still differs', () => {
    expect(sameValue(weight, 19.990000000000002, 19.99)).toBe(true);
    expect(sameValue(weight, 0.1 + 0.2, '0.3')).toBe(true);
    expect(sameValue(weight, 1.0000000000000002, 1)).toBe(true);
    expect(sameValue(weight, 19.99, 19.98)).toBe(false);
    expect(sameValue(weight, 19.990000000000002, 19.98)).toBe(false);
    // The 15th significant digit is still a change.
    expect(sameValue(weight, 1.23456789012345, 1.23456789012346)).toBe(false);
    expect(sameValue(weight, 0.000123456789012345, 0.000123456789012346)).toBe(false);
  });

  it('whole numbers and integer fields compare exactly, and a text is not a number', () => {
    expect(sameValue(weight, 1234567890123456, 1234567890123457)).toBe(false);
    expect(sameValue(weight, 1234567890123456, 1234567890123460)).toBe(false);
    expect(sameValue(field('prod_pack_size', { type: 'integer' }), 1234567890123456, 1234567890123460)).toBe(
      false,
    );
    expect(sameValue(field('prod_code'), '19.990000000000002', '19.99')).toBe(false);
    expect(sameValue(ids, [1, 2], [2, 1])).toBe(true);
  });

  it('every item of a list of decimals is compared so', () => {
    const list = field('prod_sizes', { type: 'number', multiple: true });
    expect(sameValue(list, [0.1 + 0.2, 19.990000000000002], [0.3, 19.99])).toBe(true);
    expect(sameValue(list, [0.1 + 0.2, 19.990000000000002], [0.3, 19.98])).toBe(false);
  });

  it('a draft with the 15-digit value is unchanged; a changed one gives a PATCH of the new value', () => {
    const existing = { id: 7, base: { prod_ref: 'P-1', prod_weight: 19.990000000000002 }, cultures: {} };
    expect(diffDraft(draft({ prod_weight: 19.99 }), existing, products, 'en').changes).toEqual([]);
    const changed = diffDraft(draft({ prod_weight: 19.98 }), existing, products, 'en');
    expect(changed.changes).toEqual([{ field: 'prod_weight', old: 19.990000000000002, new: 19.98 }]);
    expect(changed.body).toEqual({ prod_weight: 19.98 });
  });
});
