// Writes: POST 201 + Location, PATCH 204 changing only supplied fields, DELETE 204, immutable refs,
// unique case-sensitive refs, category moves, product deletion keeping variants, variant moves.
import { describe, expect, it } from 'vitest';
import { type CatalogClient, catalogSandbox, expectProblem, failuresOf, q } from './catalog.fixtures.js';

const { client } = catalogSandbox();

async function value(
  c: CatalogClient,
  path: string,
  headers?: Record<string, string>,
): Promise<Record<string, unknown>> {
  const r = await c.get(path, headers);
  expect(r.status, r.text).toBe(200);
  return (r.body as { value: Record<string, unknown> }).value;
}

async function idOfRef(collection: string, refField: string, ref: string): Promise<number> {
  const r = await client.get(`/${collection}?$filter=${q(`${refField} eq '${ref}'`)}`);
  const item = (r.body as { value: Array<Record<string, unknown>> }).value[0]!;
  return item[Object.keys(item)[0]!] as number;
}

describe('catalog writes', () => {
  it('POST answers 201 with the absolute Location of the new entity and no body', async () => {
    const r = await client.send('POST', '/Products', {
      prod_ref: 'NEW-1',
      prod_title: 'New one',
      prod_weight: 1.5,
    });
    expect(r.status).toBe(201);
    expect(r.text).toBe('');
    const location = r.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${client.url.replace(/[.]/g, '\\.')}/Products\\(\\d+\\)$`));
    const created = await value(client, location.slice(client.url.length));
    expect(created).toMatchObject({
      prod_ref: 'NEW-1',
      prod_title: 'New one',
      prod_weight: 1.5,
      prod_tags: [],
      prod_brand: null,
    });
    expect(created.prod_created_at).toMatch(/Z$/);
  });

  it('PATCH answers 204 with no body and changes only the supplied fields', async () => {
    const id = client.idOf(
      await client.send('POST', '/Products', {
        prod_ref: 'PATCH-1',
        prod_title: { en: 'Shirt', fr: 'Chemise' },
        prod_brand: 'A',
        prod_weight: 2,
      }),
    );
    const before = await value(client, `/Products(${id})`);
    const r = await client.send(
      'PATCH',
      `/Products(${id})`,
      { prod_brand: 'B', prod_title: 'Chemise rouge' },
      { 'accept-language': 'fr' },
    );
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    const after = await value(client, `/Products(${id})`);
    expect(after).toMatchObject({ prod_brand: 'B', prod_weight: 2, prod_title: 'Shirt' });
    expect((await value(client, `/Products(${id})`, { 'accept-language': 'fr' })).prod_title).toBe(
      'Chemise rouge',
    );
    expect(after.prod_created_at).toBe(before.prod_created_at);
    expect(Date.parse(after.prod_modified_at as string)).toBeGreaterThan(
      Date.parse(before.prod_modified_at as string),
    );
  });

  it('DELETE answers 204 and the entity is gone', async () => {
    const id = client.idOf(await client.send('POST', '/Categories', { cat_ref: 'DEL-CAT' }));
    const r = await client.send('DELETE', `/Categories(${id})`);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectProblem(await client.get(`/Categories(${id})`), 404);
  });

  it('refs are immutable: PATCH with frmt_ref, prod_ref or cat_ref is a 400 "Attribute <ref> is non assignable"', async () => {
    const variant = await idOfRef('Variants', 'frmt_ref', 'SUN-HAT-NAT-U');
    const f = failuresOf(
      await client.send('PATCH', `/Variants(${variant})`, { frmt_ref: 'OTHER' }),
      'frmt_ref',
    );
    expect(f).toEqual([
      {
        PropertyName: 'frmt_ref',
        ErrorMessage: 'Attribute frmt_ref is non assignable',
        AttemptedValue: 'OTHER',
      },
    ]);
    const product = await idOfRef('Products', 'prod_ref', 'SUN-HAT');
    expect(
      failuresOf(await client.send('PATCH', `/Products(${product})`, { prod_ref: 'SUN-HAT' }), 'prod_ref')[0]!
        .ErrorMessage,
    ).toBe('Attribute prod_ref is non assignable');
    const cat = await idOfRef('Categories', 'cat_ref', 'CAT-BOOTS');
    expect(
      failuresOf(await client.send('PATCH', `/Categories(${cat})`, { cat_ref: 'X' }), 'cat_ref')[0]!
        .ErrorMessage,
    ).toBe('Attribute cat_ref is non assignable');
  });

  it('cat_parent_ref in a write is a 400', async () => {
    failuresOf(
      await client.send('POST', '/Categories', { cat_ref: 'C-PR', cat_parent_ref: 'CAT-SHOES' }),
      'cat_parent_ref',
    );
    const cat = await idOfRef('Categories', 'cat_ref', 'CAT-BOOTS');
    failuresOf(
      await client.send('PATCH', `/Categories(${cat})`, { cat_parent_ref: 'CAT-SHOES' }),
      'cat_parent_ref',
    );
  });

  it('cat_parent_id null moves a category to the root; a missing parent or a cycle is a 400', async () => {
    const root = client.idOf(await client.send('POST', '/Categories', { cat_ref: 'MOVE-ROOT' }));
    const child = client.idOf(
      await client.send('POST', '/Categories', { cat_ref: 'MOVE-CHILD', cat_parent_id: root }),
    );
    const grandchild = client.idOf(
      await client.send('POST', '/Categories', { cat_ref: 'MOVE-GRANDCHILD', cat_parent_id: child }),
    );
    expect(await value(client, `/Categories(${grandchild})`)).toMatchObject({
      cat_parent_id: child,
      cat_parent_ref: 'MOVE-CHILD',
    });
    expect((await client.send('PATCH', `/Categories(${child})`, { cat_parent_id: null })).status).toBe(204);
    expect(await value(client, `/Categories(${child})`)).toMatchObject({
      cat_parent_id: null,
      cat_parent_ref: null,
    });
    failuresOf(
      await client.send('PATCH', `/Categories(${child})`, { cat_parent_id: 99999 }),
      'cat_parent_id',
    );
    const cycle = failuresOf(
      await client.send('PATCH', `/Categories(${child})`, { cat_parent_id: grandchild }),
      'cat_parent_id',
    );
    expect(cycle[0]!.ErrorMessage).toContain('below itself');
    failuresOf(
      await client.send('PATCH', `/Categories(${child})`, { cat_parent_id: child }),
      'cat_parent_id',
    );
  });

  it('refs are unique per tenant and case-sensitive: a duplicate POST is a 400 saying so', async () => {
    const f = failuresOf(await client.send('POST', '/Products', { prod_ref: 'LINEN-SHIRT' }), 'prod_ref');
    expect(f[0]!.ErrorMessage).toContain("Reference 'LINEN-SHIRT' already exists");
    expect((await client.send('POST', '/Products', { prod_ref: 'linen-shirt' })).status).toBe(201);
    failuresOf(await client.send('POST', '/Variants', { frmt_ref: 'SUN-HAT-NAT-U' }), 'frmt_ref');
  });

  it('deleting a product keeps its variants with an empty prod_ref and a new modification date', async () => {
    const prod = client.idOf(await client.send('POST', '/Products', { prod_ref: 'DOOMED' }));
    const v1 = client.idOf(await client.send('POST', '/Variants', { frmt_ref: 'DOOMED-1', prod_id: prod }));
    const before = await value(client, `/Variants(${v1})`);
    expect(before).toMatchObject({ prod_id: prod, prod_ref: 'DOOMED' });
    expect((await client.send('DELETE', `/Products(${prod})`)).status).toBe(204);
    const after = await value(client, `/Variants(${v1})`);
    expect(after).toMatchObject({ frmt_ref: 'DOOMED-1', prod_id: null, prod_ref: '' });
    expect(Date.parse(after.frmt_modified_at as string)).toBeGreaterThan(
      Date.parse(before.frmt_modified_at as string),
    );
  });

  it('a variant changes product only through prod_id; prod_ref follows and cannot be written', async () => {
    const a = client.idOf(await client.send('POST', '/Products', { prod_ref: 'OWNER-A' }));
    const b = client.idOf(await client.send('POST', '/Products', { prod_ref: 'OWNER-B' }));
    const v = client.idOf(await client.send('POST', '/Variants', { frmt_ref: 'MOVER', prod_id: a }));
    failuresOf(await client.send('PATCH', `/Variants(${v})`, { prod_ref: 'OWNER-B' }), 'prod_ref');
    expect((await client.send('PATCH', `/Variants(${v})`, { prod_id: b })).status).toBe(204);
    expect(await value(client, `/Variants(${v})`)).toMatchObject({ prod_id: b, prod_ref: 'OWNER-B' });
    failuresOf(await client.send('PATCH', `/Variants(${v})`, { prod_id: 99999 }), 'prod_id');
  });

  it('deleting a category moves its children to the root and drops it from product cat_ids', async () => {
    const parent = client.idOf(await client.send('POST', '/Categories', { cat_ref: 'GONE-PARENT' }));
    const child = client.idOf(
      await client.send('POST', '/Categories', { cat_ref: 'KEPT-CHILD', cat_parent_id: parent }),
    );
    const keep = client.idOf(await client.send('POST', '/Categories', { cat_ref: 'KEPT-OTHER' }));
    const prod = client.idOf(
      await client.send('POST', '/Products', { prod_ref: 'IN-TWO', cat_ids: [parent, keep] }),
    );
    expect((await client.send('DELETE', `/Categories(${parent})`)).status).toBe(204);
    expect(await value(client, `/Categories(${child})`)).toMatchObject({ cat_parent_id: null });
    expect((await value(client, `/Products(${prod})`)).cat_ids).toEqual([keep]);
  });

  it('a PATCH that changes nothing answers 204 and keeps the modification date', async () => {
    const id = client.idOf(await client.send('POST', '/Products', { prod_ref: 'SAME', prod_brand: 'A' }));
    const before = await value(client, `/Products(${id})`);
    expect((await client.send('PATCH', `/Products(${id})`, { prod_brand: 'A' })).status).toBe(204);
    expect((await value(client, `/Products(${id})`)).prod_modified_at).toBe(before.prod_modified_at);
  });

  it('a custom entity POST answers its /item(<id>) Location', async () => {
    const r = await client.send('POST', "/CustomEntities('Store%20Locations')", {
      ce_ref: 'STORE-NANTES',
      ce_city: 'Nantes',
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toMatch(/\/CustomEntities\('Store%20Locations'\)\/item\(\d+\)$/);
  });
});
