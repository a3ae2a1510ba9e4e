// The tenants docs, samples and tests rely on: both seeds carry at least the fields the sandbox
// promises, and the demo seed holds the records of every kind it promises (read over real HTTP).
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/sandbox.js';
import { type CatalogClient, type Collection, catalogSandbox, q } from './catalog.fixtures.js';

type Properties = Record<string, Record<string, unknown>>;

/** The fields both tenants have, with what each must be. */
const GUARANTEED: Record<string, Record<string, Record<string, unknown>>> = {
  Products: {
    prod_id: { type: 'integer', readOnly: true },
    prod_ref: { type: 'string', 'x-immutable': true },
    prod_title: { type: 'string', 'x-multilingual': true },
    prod_description: { type: 'string', 'x-multilingual': true },
    prod_tags: { 'x-multiple': true },
    prod_date: { type: 'string', format: 'date-time' },
    typ_id: { type: 'integer' },
    prod_images: { 'x-asset': 'image', 'x-multiple': true, 'x-multilingual': true },
    prod_brand: { type: 'string' },
    prod_weight: { type: 'number' },
    cat_ids: { 'x-references': 'Categories' },
  },
  Variants: {
    frmt_id: { type: 'integer', readOnly: true },
    frmt_ref: { type: 'string', 'x-immutable': true },
    prod_id: { type: 'integer', 'x-references': 'Products' },
    prod_ref: { type: 'string', readOnly: true },
    frmt_stat: { type: 'string' },
    frmt_price: { type: 'number' },
    frmt_stock: { type: 'integer' },
    frmt_ean: { type: 'string', pattern: '^[0-9]{13}$' },
    frmt_color: { type: 'string', 'x-multilingual': true },
    frmt_image: { type: 'string', 'x-asset': 'image' },
  },
  Categories: {
    cat_id: { type: 'integer', readOnly: true },
    cat_ref: { type: 'string', 'x-immutable': true },
    cat_title: { type: 'string', 'x-multilingual': true },
    cat_parent_id: { type: 'integer', 'x-references': 'Categories' },
    cat_image: { type: 'string', 'x-asset': 'image' },
  },
};

async function propertiesOf(client: CatalogClient, collection: string): Promise<Properties> {
  const r = await client.get(`/${collection}/$metadata`);
  expect(r.status).toBe(200);
  return (r.body as { value: { properties: Properties } }).value.properties;
}

async function list(client: CatalogClient, path: string): Promise<Collection> {
  const r = await client.get(path);
  expect(r.status, r.text).toBe(200);
  return r.body as Collection;
}

const { fixture: demoFixture, client: demo } = catalogSandbox({ seed: 'demo' });
const empty = catalogSandbox({ seed: 'empty' }).client;

describe('fields every tenant has', () => {
  for (const [name, client] of [
    ['demo', demo],
    ['empty', empty],
  ] as const) {
    it(`the ${name} tenant has the guaranteed product, variant and category fields`, async () => {
      for (const [collection, fields] of Object.entries(GUARANTEED)) {
        const properties = await propertiesOf(client, collection);
        for (const [field, expected] of Object.entries(fields)) {
          expect(properties[field], `${collection}.${field}`).toMatchObject(expected);
        }
      }
      const variants = await propertiesOf(client, 'Variants');
      expect(variants.frmt_stat!.enum, 'frmt_stat is an enum').toEqual(expect.any(Array));
    });
  }
});

describe('the demo tenant', () => {
  it('speaks en (base), fr and es', async () => {
    const r = await demo.get('/$metadata');
    expect((r.body as { value: Record<string, unknown> }).value['x-languages']).toEqual(['en', 'fr', 'es']);
  });

  it('has custom fields of every type', async () => {
    const p = await propertiesOf(demo, 'Products');
    const kinds = Object.values(p).map((s) => ({
      type: s.type,
      items: s.items as Record<string, unknown> | undefined,
      format: s.format,
      enum: s.enum,
      multilingual: s['x-multilingual'],
      asset: s['x-asset'],
      multiple: s['x-multiple'],
    }));
    const has = (test: (k: (typeof kinds)[number]) => boolean) => kinds.some(test);
    expect(has((k) => k.type === 'string' && !k.multilingual && !k.asset && !k.format && !k.enum)).toBe(true);
    expect(has((k) => k.type === 'string' && k.multilingual === true && !k.asset)).toBe(true);
    expect(has((k) => k.type === 'number')).toBe(true);
    expect(has((k) => k.type === 'integer' && !k.multiple)).toBe(true);
    expect(has((k) => k.type === 'boolean')).toBe(true);
    expect(has((k) => k.format === 'date-time')).toBe(true);
    expect(has((k) => Array.isArray(k.enum) || Array.isArray(k.items?.enum))).toBe(true);
    expect(has((k) => k.asset === 'image')).toBe(true);
    expect(has((k) => k.asset === 'file')).toBe(true);
    expect(has((k) => k.multiple === true && k.type === 'array')).toBe(true);
  });

  it('has products, variants, and a category tree three levels deep', async () => {
    expect((await list(demo, '/Products?$top=1'))['@count']).toBeGreaterThan(0);
    expect((await list(demo, '/Variants?$top=1'))['@count']).toBeGreaterThan(0);
    const categories = await list(demo, '/Categories?$select=cat_parent_id');
    expect(categories['@nextLink']).toBeUndefined();
    const parentOf = new Map(
      categories.value.map((c) => [c.cat_id as number, c.cat_parent_id as number | null]),
    );
    const depth = (id: number): number => {
      const parent = parentOf.get(id);
      return parent === null || parent === undefined ? 1 : 1 + depth(parent);
    };
    expect(Math.max(...[...parentOf.keys()].map(depth))).toBeGreaterThanOrEqual(3);
  });

  it('has a legacy and a v2 attribute set besides the default one', async () => {
    const legacy = await list(demo, '/AttributeSets');
    expect(legacy.value.length).toBeGreaterThanOrEqual(2);
    const v2 = await demo.get('/v2/AttributeSets');
    expect(v2.status).toBe(200);
    expect(JSON.stringify(v2.body)).toContain('ProductLayout');
  });

  it('has a custom entity whose denominator contains a space, with items and a layout', async () => {
    const r = await demo.get('/CustomEntities/$metadata');
    const denominators = (r.body as { value: { 'x-denominators': string[] } }).value['x-denominators'];
    const spaced = denominators.find((d) => d.includes(' '));
    expect(spaced).toBeDefined();
    const path = `/CustomEntities('${q(spaced!)}')`;
    expect((await list(demo, path))['@count']).toBeGreaterThan(0);
    expect((await demo.get(`${path}/layout`)).status).toBe(200);
    expect((await demo.get('/Categories/layout')).status).toBe(200);
  });

  it('has images registered in the DAM, used by its products', async () => {
    const products = await list(demo, `/Products?$filter=${q("prod_ref eq 'LINEN-SHIRT'")}`);
    const images = products.value[0]!.prod_images as string[];
    expect(images.length).toBeGreaterThan(0);
    const { damUrl, apiKey } = demoFixture.sb;
    const found = await call(damUrl, `/images(${encodeURIComponent(images[0]!)})`, { key: apiKey });
    expect(found.status).toBe(200);
    expect((found.body as { value: { status: string } }).value.status).toBe('Ok');
  });
});
