// A real tenant's schema may lack the extensions the sandbox serves: the builder falls back to what
// plain JSON Schema says, and never guesses beyond it.
import { describe, expect, it } from 'vitest';
import { buildTenantModel } from '../../src/schema/build.js';
import type { RawSchemas } from '../../src/schema/raw.js';
import { safeName, tenantName } from '../../src/schema/raw.js';

function raw(parts: Partial<RawSchemas>): RawSchemas {
  return {
    fetchedAt: '2026-01-01T00:00:00.000Z',
    source: 'https://api.example.com/catalog',
    catalog: undefined,
    resources: {},
    customEntities: undefined,
    custom: {},
    ...parts,
  };
}

const plainProducts = {
  type: 'object',
  required: ['prod_ref'],
  properties: {
    prod_id: { type: 'integer', readOnly: true },
    prod_ref: { type: 'string', maxLength: 64 },
    // Multilingual as a list of {culture, value}.
    prod_title: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          culture: { type: 'string', enum: ['de', 'en'] },
          value: { type: ['string', 'null'], maxLength: 200 },
        },
      },
    },
    // Multilingual as oneOf: a plain value, or an object keyed by culture.
    prod_description: {
      oneOf: [
        { type: 'string' },
        { type: 'object', properties: { de: { type: 'string' }, en: { type: 'string' } } },
      ],
    },
    prod_weight: { type: ['number', 'null'] },
    prod_colours: { type: 'array', items: { type: 'string', enum: ['red', 'blue'] } },
    prod_launch: { type: 'string', format: 'date' },
    prod_blob: {},
  },
};

describe('schemas without the extensions', () => {
  const model = buildTenantModel(
    raw({
      catalog: { value: { $defs: { Product: plainProducts } } },
      customEntities: {
        value: {
          $defs: {
            'Shops & Outlets': {
              properties: {
                shop_id: { type: 'integer', readOnly: true },
                shop_code: { type: 'string', 'x-immutable': true },
              },
            },
          },
        },
      },
    }),
  );

  it('finds entities under $defs and key/ref fields by the resource prefix', () => {
    const p = model.entity('products')!;
    expect(p).toMatchObject({ idField: 'prod_id', refField: 'prod_ref', path: '/Products' });
    expect(p.field('prod_ref')).toMatchObject({ immutable: true, required: true });
    expect(model.entity('variants')).toBeUndefined();
  });

  it('reads multilingual values given as [{culture, value}] or oneOf, and gathers the languages', () => {
    const p = model.entity('products')!;
    expect(p.field('prod_title')).toMatchObject({
      multilingual: true,
      multiple: false,
      type: 'string',
      maxLength: 200,
    });
    expect(p.field('prod_description')).toMatchObject({ multilingual: true, type: 'string' });
    expect(model.languages).toEqual(['de', 'en']);
    expect(model.baseLanguage).toBe('de');
  });

  it('nullable types, arrays without x-multiple, dates and untyped fields', () => {
    const p = model.entity('products')!;
    expect(p.field('prod_weight')).toMatchObject({ type: 'number', multiple: false, required: false });
    expect(p.field('prod_colours')).toMatchObject({ type: 'string', multiple: true, enum: ['red', 'blue'] });
    expect(p.field('prod_launch')).toMatchObject({ type: 'date' });
    expect(p.field('prod_blob')).toMatchObject({ type: 'unknown' });
  });

  it('custom entities from $defs names when x-denominators is absent', () => {
    const shops = model.entity('Shops & Outlets')!;
    expect(shops).toMatchObject({
      kind: 'custom',
      idField: 'shop_id',
      refField: 'shop_code',
      path: "/CustomEntities('Shops & Outlets')",
    });
  });
});

describe('tenant names for the cache folder', () => {
  it('are filesystem-safe and derived from host and path', () => {
    expect(tenantName('https://api.example.com/tenants/acme/catalog/')).toBe(
      'api.example.com_tenants_acme_catalog',
    );
    expect(tenantName('http://127.0.0.1:4010/catalog')).toBe('127.0.0.1_4010_catalog');
    expect(safeName('../../etc/passwd')).toBe('etc_passwd');
    expect(safeName("Store Locations'")).toBe('Store_Locations');
  });
});
