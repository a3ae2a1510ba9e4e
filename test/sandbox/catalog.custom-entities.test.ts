// Custom entities: addressed by their denominator exactly as listed (spaces, capitalisation),
// percent-encoded spaces decoded, items via /item(<itemId>), unknown denominators 404.
import { describe, expect, it } from 'vitest';
import { type Collection, catalogSandbox, expectProblem, failuresOf, q } from './catalog.fixtures.js';

const { client } = catalogSandbox();
const STORES = "/CustomEntities('Store%20Locations')";

describe('custom entities', () => {
  it('the collection is addressed by its denominator, percent-encoded spaces decoded', async () => {
    const r = await client.get(STORES);
    expect(r.status).toBe(200);
    const body = r.body as Collection;
    expect(body['@count']).toBe(4);
    expect(body['@context']).toBe(`${client.url}/$metadata#CustomEntities('Store%20Locations')`);
    expect(body.value[0]).toMatchObject({
      ce_ref: 'STORE-PARIS',
      ce_name: 'Paris Marais',
      ce_city: 'Paris',
      ce_active: true,
      ce_photo: 'store-paris.jpg',
    });
  });

  it('a denominator with other capitalisation, or unknown, is a 404', async () => {
    expectProblem(await client.get("/CustomEntities('store locations')"), 404);
    expectProblem(await client.get("/CustomEntities('Warehouses')"), 404);
    expectProblem(await client.send('POST', "/CustomEntities('Warehouses')", { ce_ref: 'W' }), 404);
  });

  it('items are filtered with the OData engine, multilingual fields with a culture suffix', async () => {
    const body = (
      await client.get(`${STORES}?$filter=${q("ce_name_es eq 'Madrid Centro' and ce_active eq true")}`)
    ).body as Collection;
    expect(body.value.map((i) => i.ce_ref)).toEqual(['STORE-MADRID']);
    const fr = (await client.get(`${STORES}?$select=ce_name&$top=1`, { 'accept-language': 'fr' }))
      .body as Collection;
    expect(fr.value[0]).toEqual({ ce_id: 1, ce_name: 'Paris Marais' });
  });

  it('items are read, patched and deleted through /item(<itemId>)', async () => {
    const created = await client.send('POST', STORES, {
      ce_ref: 'STORE-LILLE',
      ce_name: { en: 'Lille', fr: 'Lille' },
      ce_opening: '2025-01-10T09:00:00Z',
    });
    expect(created.status).toBe(201);
    const id = client.idOf(created);
    const item = `${STORES}/item(${id})`;
    const got = await client.get(item);
    expect((got.body as { '@readLink': string })['@readLink']).toBe(`${client.url}${item}`);
    expect((await client.send('PATCH', item, { ce_active: false, ce_city: 'Lille' })).status).toBe(204);
    expect((await client.get(item)).body).toMatchObject({
      value: {
        ce_ref: 'STORE-LILLE',
        ce_active: false,
        ce_city: 'Lille',
        ce_opening: '2025-01-10T09:00:00.000Z',
      },
    });
    failuresOf(await client.send('PATCH', item, { ce_ref: 'STORE-LILLE-2' }), 'ce_ref');
    expect((await client.send('DELETE', item)).status).toBe(204);
    expectProblem(await client.get(item), 404);
    expectProblem(await client.send('PATCH', item, { ce_city: 'x' }), 404);
  });

  it('item values are validated against the type schema', async () => {
    failuresOf(
      await client.send('POST', "/CustomEntities('Suppliers')", { ce_ref: 'SUP-X', ce_country: 'france' }),
      'ce_country',
    );
    failuresOf(await client.send('POST', STORES, { ce_ref: 'STORE-X', ce_photo: 'ghost.jpg' }), 'ce_photo');
    failuresOf(await client.send('POST', STORES, { ce_ref: 'STORE-PARIS' }), 'ce_ref');
  });
});
