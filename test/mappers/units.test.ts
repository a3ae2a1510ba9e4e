// The profile's `unit` rule: numbers written in another unit than the field's are converted (the field's
// unit is the one its description names, `Weight in kg`), and a cell may name its own unit (`12 oz`).
import { describe, expect, it } from 'vitest';
import { isCatalogIoError } from '../../src/errors.js';
import { createMapper } from '../../src/mappers/mapper.js';
import type { Profile } from '../../src/mappers/profile-types.js';
import { demoModel } from './demo-model.js';
import { row } from './rows.js';

function modelWithUnits() {
  const model = demoModel();
  model.entity('products')!.field('prod_weight')!.description = 'Weight in kg';
  model.entity('products')!.field('prod_pack_size')!.description = 'Items per pack';
  return model;
}

const profile = (rule: object): Profile => ({
  entity: 'products',
  columns: { SKU: 'prod_ref', Weight: { field: 'prod_weight', ...rule } },
});

function weightOf(rule: object, cell: string) {
  const out = createMapper({ model: modelWithUnits(), profile: profile(rule) }).map(
    row({ SKU: 'P1', Weight: cell }),
  );
  return { value: out.drafts[0]?.fields.prod_weight, issues: out.issues };
}

describe('unit conversion', () => {
  it('converts pounds, ounces and grams to the kilograms the field holds', () => {
    expect(weightOf({ unit: 'lb' }, '.5').value).toBe(0.226796185);
    expect(weightOf({ unit: 'lbs' }, '2').value).toBe(0.90718474);
    expect(weightOf({ unit: 'oz' }, '16').value).toBe(0.45359237);
    expect(weightOf({ unit: 'g' }, '1.234,5').issues[0]?.message).toMatch(/thousands/);
    expect(weightOf({ unit: 'g', decimal: ',', thousands: '.' }, '1.234,5').value).toBe(1.2345);
    expect(weightOf({ unit: 'kg' }, '12').value).toBe(12);
  });

  it('reads a unit the cell names, over the column one', () => {
    expect(weightOf({ unit: 'lb' }, '12 kg').value).toBe(12);
    expect(weightOf({ unit: 'kg' }, '500 g').value).toBe(0.5);
    expect(weightOf({ unit: 'kg' }, '8oz').value).toBe(0.226796185);
  });

  it('refuses a cell in a unit of another kind, and text, with the column and value', () => {
    const inches = weightOf({ unit: 'lb' }, '12 cm');
    expect(inches.value).toBeUndefined();
    expect(inches.issues).toMatchObject([
      {
        code: 'MAP_COERCE',
        column: 'Weight',
        value: '12 cm',
        message: expect.stringContaining('a number in lb'),
      },
    ]);
    expect(weightOf({ unit: 'lb' }, 'heavy').issues[0]?.message).toContain('(in lb)');
  });

  it('refuses a profile whose unit cannot be converted, naming the path', () => {
    const model = modelWithUnits();
    const fail = (p: Profile) => {
      try {
        createMapper({ model, profile: p });
      } catch (error) {
        if (isCatalogIoError(error)) return error.message;
        throw error;
      }
      return 'no error';
    };
    expect(fail(profile({ unit: 'cm' }))).toContain('$.columns.Weight.unit cm cannot be converted to kg');
    expect(fail(profile({ unit: 'stone' }))).toContain('"stone" is not a unit');
    expect(
      fail({ entity: 'products', columns: { Pack: { field: 'prod_pack_size', unit: 'kg' } } }),
    ).toContain('prod_pack_size names no unit to convert to');
    expect(fail({ entity: 'products', columns: { T: { field: 'prod_title', unit: 'kg' } } })).toContain(
      'applies to number fields only',
    );
  });
});
