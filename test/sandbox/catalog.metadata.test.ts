// $metadata in all seven forms: the envelope, JSON Schema 2020-12 per resource, and the x- keywords
// the client reads (languages, key, reference, multilingual, assets, multi-values, links).
import { describe, expect, it } from 'vitest';
import { catalogSandbox, expectProblem } from './catalog.fixtures.js';

type Schema = Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };

const { client } = catalogSandbox();

async function meta(path: string): Promise<{ uri: string; value: Schema }> {
  const r = await client.get(path);
  expect(r.status).toBe(200);
  const body = r.body as { readLink: { uri: string }; value: Schema };
  expect(Object.keys(body).sort()).toEqual(['readLink', 'value']);
  return { uri: body.readLink.uri, value: body.value };
}

describe('catalog $metadata', () => {
  it('/$metadata holds every resource under $defs with the tenant languages, base first', async () => {
    const { uri, value } = await meta('/$metadata');
    expect(uri).toBe(`${client.url}/$metadata`);
    expect(value.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(value['x-languages']).toEqual(['en', 'fr', 'es']);
    const defs = value.$defs as Record<string, Schema>;
    expect(Object.keys(defs)).toEqual(['Category', 'AttributeSet', 'Product', 'Variant', 'PointOfSale']);
    expect(defs.Product!['x-relationships']).toMatchObject({
      Variants: { resource: 'Variant', expandable: true },
    });
    expect(defs.PointOfSale!.properties.pos_id).toEqual({
      type: 'integer',
      description: 'Point of sale identifier',
      readOnly: true,
    });
  });

  it('/Products/$metadata describes every kind of product field with its keywords', async () => {
    const { uri, value } = await meta('/Products/$metadata');
    expect(uri).toBe(`${client.url}/Products/$metadata`);
    expect(value).toMatchObject({
      title: 'Product',
      type: 'object',
      'x-languages': ['en', 'fr', 'es'],
      'x-key': 'prod_id',
      'x-reference': 'prod_ref',
    });
    expect(value.required).toEqual(['prod_ref']);
    const p = value.properties;
    expect(p.prod_id).toMatchObject({ type: 'integer', readOnly: true });
    expect(p.prod_ref).toMatchObject({ type: 'string', maxLength: 64, 'x-immutable': true });
    expect(p.prod_title).toMatchObject({
      type: 'string',
      'x-multilingual': true,
      'x-languages': ['en', 'fr', 'es'],
    });
    expect(p.prod_tags).toMatchObject({
      type: 'array',
      items: { type: 'string', maxLength: 50 },
      'x-multiple': true,
    });
    expect(p.prod_date).toMatchObject({ type: 'string', format: 'date-time' });
    expect(p.prod_release_date).toMatchObject({ type: 'string', format: 'date' });
    expect(p.typ_id).toMatchObject({ type: 'integer', 'x-references': 'AttributeSets' });
    expect(p.cat_ids).toMatchObject({
      type: 'array',
      items: { type: 'integer' },
      'x-multiple': true,
      'x-references': 'Categories',
    });
    expect(p.prod_images).toMatchObject({
      type: 'array',
      items: { type: 'string' },
      'x-asset': 'image',
      'x-multiple': true,
      'x-multilingual': true,
    });
    expect(p.prod_manual).toMatchObject({ type: 'string', 'x-asset': 'file' });
    expect(p.prod_weight!.type).toBe('number');
    expect(p.prod_pack_size!.type).toBe('integer');
    expect(p.prod_is_new!.type).toBe('boolean');
    expect(p.prod_season!.enum).toEqual(['spring', 'summer', 'autumn', 'winter']);
    expect(p.prod_labels).toMatchObject({
      type: 'array',
      items: { enum: ['organic', 'recycled', 'fair-trade', 'vegan'] },
    });
    expect(p.prod_modified_at).toMatchObject({ format: 'date-time', readOnly: true });
  });

  it('/Variants/$metadata marks prod_ref read-only and gives enum, pattern and per-field languages', async () => {
    const { value } = await meta('/Variants/$metadata');
    expect(value['x-key']).toBe('frmt_id');
    expect(value['x-reference']).toBe('frmt_ref');
    const p = value.properties;
    expect(p.prod_ref).toMatchObject({ type: 'string', readOnly: true });
    expect(p.prod_id).toMatchObject({ type: 'integer', 'x-references': 'Products' });
    expect(p.frmt_stat!.enum).toEqual(['active', 'inactive', 'discontinued']);
    expect(p.frmt_ean!.pattern).toBe('^[0-9]{13}$');
    expect(p.frmt_color).toMatchObject({ 'x-multilingual': true, 'x-languages': ['en', 'fr'] });
    expect(p.frmt_image).toEqual({ type: 'string', description: 'Image', 'x-asset': 'image' });
  });

  it('/Categories/$metadata lists the embedded Products and Variants and the parent link', async () => {
    const { value } = await meta('/Categories/$metadata');
    expect(value.properties.cat_parent_id).toMatchObject({ type: 'integer', 'x-references': 'Categories' });
    expect(value.properties.cat_parent_ref).toMatchObject({ readOnly: true });
    expect(value['x-relationships']).toMatchObject({
      Products: { resource: 'Product', kind: 'collection', expandable: true },
      Variants: { resource: 'Variant', kind: 'collection', expandable: true },
    });
  });

  it('/AttributeSets/$metadata describes typ_id, typ_title and typ_stat with the associated Products', async () => {
    const { value } = await meta('/AttributeSets/$metadata');
    expect(value.title).toBe('AttributeSet');
    expect(Object.keys(value.properties)).toEqual(['typ_id', 'typ_title', 'typ_stat', 'typ_default']);
    expect(value['x-relationships']).toHaveProperty('Products');
  });

  it('/CustomEntities/$metadata lists the denominators, spaces included, with a $defs entry each', async () => {
    const { value } = await meta('/CustomEntities/$metadata');
    expect(value['x-denominators']).toEqual(['Store Locations', 'Suppliers']);
    const defs = value.$defs as Record<string, Schema>;
    expect(defs['Store Locations']).toMatchObject({
      title: 'Store Locations',
      'x-key': 'ce_id',
      'x-reference': 'ce_ref',
    });
  });

  it("/CustomEntities('<denominator>')/$metadata gives that entity's properties", async () => {
    const { uri, value } = await meta("/CustomEntities('Store%20Locations')/$metadata");
    expect(uri).toBe(`${client.url}/CustomEntities('Store%20Locations')/$metadata`);
    expect(value['x-denominator']).toBe('Store Locations');
    const p = value.properties;
    expect(p.ce_id).toMatchObject({ type: 'integer', readOnly: true });
    expect(p.ce_ref).toMatchObject({ 'x-immutable': true });
    expect(p.ce_name).toMatchObject({ 'x-multilingual': true });
    expect(p.ce_opening).toMatchObject({ format: 'date-time' });
    expect(p.ce_active!.type).toBe('boolean');
    expect(p.ce_photo).toMatchObject({ 'x-asset': 'image' });
  });

  it('an unknown denominator has no $metadata: 404 problem details', async () => {
    expectProblem(await client.get("/CustomEntities('Nope')/$metadata"), 404);
  });
});

describe('empty tenant', () => {
  const empty = catalogSandbox({ seed: 'empty' }).client;

  it('has the same schema as the demo tenant and no records', async () => {
    const [a, b] = await Promise.all([client.get('/$metadata'), empty.get('/$metadata')]);
    const strip = (body: unknown) =>
      JSON.stringify(body).replaceAll(client.url, '').replaceAll(empty.url, '');
    expect(strip(b.body)).toBe(strip(a.body));
    for (const path of ['/Products', '/Variants', '/Categories', "/CustomEntities('Store%20Locations')"]) {
      const r = await empty.get(path);
      expect(r.status).toBe(200);
      expect((r.body as { '@count': number; value: unknown[] })['@count']).toBe(0);
      expect((r.body as { value: unknown[] }).value).toEqual([]);
    }
  });
});
