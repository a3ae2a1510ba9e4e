// Attribute sets: the legacy OData-style list and entity, and the v2 typed endpoints with layouts,
// `default` (case-insensitive) and the default set that cannot be deleted.
import { describe, expect, it } from 'vitest';
import { type Collection, catalogSandbox, expectProblem, failuresOf, q } from './catalog.fixtures.js';

const { client } = catalogSandbox();

interface V2Set {
  identifier: number;
  name: string;
  isDefault: boolean;
  ProductLayout: { sections: unknown[] };
  VariantLayout: { sections: unknown[] };
}

describe('legacy attribute sets', () => {
  it('GET /AttributeSets lists typ_id, typ_title, typ_stat with $filter, $orderby and $select', async () => {
    const r = await client.get(
      `/AttributeSets?$filter=${q("typ_stat eq 'active'")}&$orderby=${q('typ_title desc')}&$select=typ_title`,
    );
    expect(r.status).toBe(200);
    const body = r.body as Collection;
    expect(body.value).toEqual([
      { typ_id: 3, typ_title: 'Footwear' },
      { typ_id: 1, typ_title: 'Default' },
      { typ_id: 2, typ_title: 'Apparel' },
    ]);
  });

  it('GET /AttributeSets(<id>) answers the entity envelope; $expand=Products includes its products', async () => {
    const r = await client.get('/AttributeSets(3)?$expand=Products');
    expect(r.status).toBe(200);
    const body = r.body as {
      '@readLink': string;
      value: { typ_title: string; Products: Array<{ prod_ref: string }> };
    };
    expect(body['@readLink']).toBe(`${client.url}/AttributeSets(3)`);
    expect(body.value.typ_title).toBe('Footwear');
    expect(body.value.Products.map((p) => p.prod_ref)).toEqual([
      'RUNNING-SHOE',
      'CANVAS-SNEAKER',
      'LEATHER-BOOT',
      'RAIN-BOOT',
    ]);
    expectProblem(await client.get('/AttributeSets(77)'), 404);
    failuresOf(await client.get('/AttributeSets?$expand=Variants'), '$expand');
  });
});

describe('v2 attribute sets', () => {
  it('GET /v2/AttributeSets lists every set with identifier, name, ProductLayout and VariantLayout', async () => {
    const r = await client.get('/v2/AttributeSets');
    expect(r.status).toBe(200);
    const sets = (r.body as { value: V2Set[] }).value;
    expect(sets.map((s) => s.name)).toEqual(['Default', 'Apparel', 'Footwear', 'Legacy imports']);
    expect(Object.keys(sets[1]!)).toEqual([
      'identifier',
      'name',
      'isDefault',
      'ProductLayout',
      'VariantLayout',
    ]);
    expect(sets[0]!.isDefault).toBe(true);
  });

  it("GET /v2/AttributeSets(default) is case-insensitive and finds the tenant's default set", async () => {
    for (const key of ['default', 'DEFAULT', 'Default']) {
      const r = await client.get(`/v2/AttributeSets(${key})`);
      expect(r.status).toBe(200);
      expect((r.body as V2Set).identifier).toBe(1);
    }
    expect(((await client.get('/v2/AttributeSets(2)')).body as V2Set).name).toBe('Apparel');
    failuresOf(await client.get('/v2/AttributeSets(abc)'), 'id');
    failuresOf(await client.get('/v2/AttributeSets(0)'), 'id');
    expectProblem(await client.get('/v2/AttributeSets(404)'), 404);
  });

  it('POST /v2/AttributeSets requires a name and answers 201 with the created set and a Location', async () => {
    failuresOf(await client.send('POST', '/v2/AttributeSets', { ProductLayout: { sections: [] } }), 'name');
    failuresOf(await client.send('POST', '/v2/AttributeSets', { name: 'X', colour: 'red' }), 'colour');
    const layout = { sections: [{ title: 'Main', rows: [{ fields: ['prod_ref', 'prod_title'] }] }] };
    const r = await client.send('POST', '/v2/AttributeSets', { name: 'Beauty', ProductLayout: layout });
    expect(r.status).toBe(201);
    const created = r.body as V2Set;
    expect(created).toEqual({
      identifier: created.identifier,
      name: 'Beauty',
      isDefault: false,
      ProductLayout: layout,
      VariantLayout: { sections: [] },
    });
    expect(r.headers.get('location')).toBe(`${client.url}/v2/AttributeSets(${created.identifier})`);
    const legacy = await client.get(`/AttributeSets(${created.identifier})`);
    expect((legacy.body as { value: { typ_title: string } }).value.typ_title).toBe('Beauty');
    failuresOf(
      await client.send('POST', '/v2/AttributeSets', {
        name: 'Bad',
        VariantLayout: { sections: [{ title: 't', rows: [{ fields: ['nope'] }] }] },
      }),
      'VariantLayout',
    );
  });

  it('PATCH /v2/AttributeSets(<id>) changes only what is sent and answers 204', async () => {
    const id = ((await client.send('POST', '/v2/AttributeSets', { name: 'Temp' })).body as V2Set).identifier;
    const layout = { sections: [{ title: 'V', rows: [{ fields: ['frmt_ref'] }] }] };
    const r = await client.send('PATCH', `/v2/AttributeSets(${id})`, { VariantLayout: layout });
    expect(r.status).toBe(204);
    expect((await client.get(`/v2/AttributeSets(${id})`)).body).toMatchObject({
      name: 'Temp',
      VariantLayout: layout,
    });
    expect((await client.send('PATCH', '/v2/AttributeSets(default)', { name: 'Standard' })).status).toBe(204);
    expect(((await client.get('/v2/AttributeSets(1)')).body as V2Set).name).toBe('Standard');
    failuresOf(await client.send('PATCH', `/v2/AttributeSets(${id})`, { name: '' }), 'name');
  });

  it('DELETE /v2/AttributeSets(<id>) answers 204; the default set cannot be deleted', async () => {
    const id = ((await client.send('POST', '/v2/AttributeSets', { name: 'Short-lived' })).body as V2Set)
      .identifier;
    const product = client.idOf(await client.send('POST', '/Products', { prod_ref: 'AS-P', typ_id: id }));
    expect((await client.send('DELETE', `/v2/AttributeSets(${id})`)).status).toBe(204);
    expectProblem(await client.get(`/v2/AttributeSets(${id})`), 404);
    expect(
      ((await client.get(`/Products(${product})`)).body as { value: { typ_id: unknown } }).value.typ_id,
    ).toBe(null);
    expect(failuresOf(await client.send('DELETE', '/v2/AttributeSets(1)'), 'id')[0]!.ErrorMessage).toBe(
      'The default attribute set cannot be deleted',
    );
    failuresOf(await client.send('DELETE', '/v2/AttributeSets(default)'), 'id');
  });
});
