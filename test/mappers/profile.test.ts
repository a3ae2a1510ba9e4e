import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CatalogIoError, isCatalogIoError } from '../../src/errors.js';
import { loadProfile, parseProfile } from '../../src/mappers/profile.js';

function profileError(data: unknown): CatalogIoError {
  try {
    parseProfile(data, 'p.json');
  } catch (err) {
    if (isCatalogIoError(err, 'PROFILE_INVALID')) return err;
    throw err;
  }
  throw new Error('the profile was accepted');
}

describe('profile files', () => {
  it('accepts the full vocabulary', () => {
    const profile = parseProfile({
      $schema: '../schemas/profile.schema.json',
      entity: 'products',
      variants: true,
      columns: {
        SKU: 'prod_ref',
        Notes: null,
        Price: { field: 'frmt_price', decimal: ',', default: 0 },
        'Weight (lbs)': { field: 'prod_weight', unit: 'lb' },
        'Image URLs': { field: 'frmt_image', split: ',', first: true },
      },
      fields: {
        prod_brand: { constant: 'Acme' },
        prod_title: { template: '{A} {B}', culture: 'fr' },
        prod_weight: { from: ['Gewicht'], unit: 'g' },
      },
      fillDown: ['Name'],
      groupWindow: 50,
      timezone: 'Europe/Paris',
    });
    expect(profile.entity).toBe('products');
  });

  it.each([
    [{ columns: {} }, '$ "entity" is required'],
    [{ entity: 'things' }, '$.entity must be products, variants, categories or custom:<denominator>'],
    [{ entity: 'products', colums: {} }, '$ unknown key "colums"'],
    [
      { entity: 'products', columns: { Price: { field: 'frmt_price', decimal: ';' } } },
      '$.columns.Price.decimal must be one of ".", ","',
    ],
    [
      { entity: 'products', columns: { 'Unit price': { feld: 'frmt_price' } } },
      '$.columns["Unit price"] unknown key "feld"',
    ],
    [
      { entity: 'products', fields: { prod_brand: { constant: 'a', template: 'b' } } },
      '$.fields.prod_brand needs exactly one of',
    ],
    [{ entity: 'products', timezone: 'Mars/Olympus' }, '$.timezone "Mars/Olympus" is not an IANA time zone'],
    [{ entity: 'products', groupWindow: 0 }, '$.groupWindow must be >= 1'],
    [
      { entity: 'products', columns: { Weight: { field: 'prod_weight', unit: 'stone' } } },
      '$.columns.Weight.unit must be one of',
    ],
    [
      { entity: 'products', columns: { Images: { field: 'frmt_image', first: false } } },
      '$.columns.Images.first',
    ],
  ])('names the JSON path of the problem (%#)', (data, expected) => {
    const err = profileError(data);
    expect(err.message).toContain(expected);
    expect(err.message).toContain('(p.json)');
  });

  it('reports a file that is not JSON as one PROFILE_INVALID error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'profile-'));
    const file = join(dir, 'broken.json');
    await writeFile(file, '{ "entity": "products", }');
    await expect(loadProfile(file)).rejects.toMatchObject({ code: 'PROFILE_INVALID' });
    await expect(loadProfile(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'PROFILE_INVALID' });
    const good = join(dir, 'good.json');
    await writeFile(good, '\uFEFF{ "entity": "categories" }');
    await expect(loadProfile(good)).resolves.toEqual({ entity: 'categories' });
  });
});
