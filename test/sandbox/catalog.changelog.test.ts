// The changelog: creations and modifications recorded per attribute (never deletions), per
// collection and per item, and the seven query rules of the spec.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Collection, catalogSandbox, failuresOf, q } from './catalog.fixtures.js';

const { client } = catalogSandbox();

interface Entry {
  id: number;
  item_id: number;
  modified_at: string;
  author_type: string;
  author_id: string;
  attribute_id: string;
  operation: string;
  changes: { old_value: unknown; new_value: unknown };
}

async function log(path: string): Promise<Collection<Entry>> {
  const r = await client.get(path);
  expect(r.status, r.text).toBe(200);
  return r.body as Collection<Entry>;
}

let productId = 0;
let variantId = 0;

beforeAll(async () => {
  productId = client.idOf(
    await client.send('POST', '/Products', {
      prod_ref: 'CL-1',
      prod_brand: 'A',
      prod_title: { en: 'One', fr: 'Un' },
    }),
  );
  await client.send('PATCH', `/Products(${productId})`, { prod_brand: 'B', prod_weight: 3 });
  await client.send('PATCH', `/Products(${productId})`, { prod_brand: 'B' }); // no change: no entry
  variantId = client.idOf(await client.send('POST', '/Variants', { frmt_ref: 'CL-V', prod_id: productId }));
});

describe('changelog records', () => {
  it('every creation and modification is recorded, one entry per changed attribute, with a UTC Z date', async () => {
    const body = await log(`/Products(${productId})/Changelog`);
    const entries = body.value;
    expect(entries.map((e) => [e.operation, e.attribute_id])).toEqual([
      ['modified', 'prod_weight'],
      ['modified', 'prod_brand'],
      ['created', 'prod_brand'],
      ['created', 'prod_title'],
      ['created', 'prod_ref'],
    ]);
    const brand = entries[1]!;
    expect(Object.keys(brand)).toEqual([
      'id',
      'item_id',
      'modified_at',
      'author_type',
      'author_id',
      'attribute_id',
      'operation',
      'changes',
    ]);
    expect(brand).toMatchObject({
      item_id: productId,
      author_type: 'api',
      changes: { old_value: 'A', new_value: 'B' },
    });
    expect(brand.modified_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(entries[3]!.changes.new_value).toEqual({ en: 'One', fr: 'Un' });
  });

  it('deletions are never recorded; an entry may refer to an item that no longer exists', async () => {
    const id = client.idOf(await client.send('POST', '/Categories', { cat_ref: 'CL-GONE' }));
    const before = (await log(`/Categories(${id})/Changelog`))['@count'];
    const total = (await log('/Categories/Changelog'))['@count'];
    expect((await client.send('DELETE', `/Categories(${id})`)).status).toBe(204);
    const after = await log(`/Categories/Changelog?$filter=${q(`item_id eq ${id}`)}`);
    expect(after['@count']).toBe(before);
    expect((await log('/Categories/Changelog'))['@count']).toBe(total);
    expect((await log(`/Categories(${id})/Changelog`))['@count']).toBe(before);
  });

  it('each collection and each custom entity type has its own changelog, per item too', async () => {
    const variants = await log(`/Variants/Changelog?$filter=${q(`item_id eq ${variantId}`)}`);
    expect(variants.value.map((e) => e.attribute_id).sort()).toEqual(['frmt_ref', 'prod_id']);
    expect((await log(`/Variants(${variantId})/Changelog`))['@count']).toBe(2);
    const store = client.idOf(
      await client.send('POST', "/CustomEntities('Store%20Locations')", {
        ce_ref: 'CL-STORE',
        ce_city: 'Nice',
      }),
    );
    await client.send('PATCH', `/CustomEntities('Store%20Locations')/item(${store})`, { ce_city: 'Nîmes' });
    const items = await log(`/CustomEntities('Store%20Locations')/Changelog(${store})`);
    expect(items.value.map((e) => [e.operation, e.attribute_id])).toEqual([
      ['modified', 'ce_city'],
      ['created', 'ce_city'],
      ['created', 'ce_ref'],
    ]);
    const all = await log("/CustomEntities('Store%20Locations')/Changelog");
    expect(all.value.every((e) => typeof e.item_id === 'number')).toBe(true);
    expect(all['@count']).toBeGreaterThan(items['@count']);
  });
});

describe('changelog query rules', () => {
  it('rule 1: id, item_id and modified_at filter freely; author_type and attribute_id take eq only', async () => {
    const body = await log(
      `/Products/Changelog?$filter=${q(`item_id eq ${productId} and attribute_id eq 'prod_brand' and id gt 0`)}`,
    );
    expect(body.value.map((e) => e.operation)).toEqual(['modified', 'created']);
    const recent = await log(
      `/Products/Changelog?$filter=${q('modified_at ge 2000-01-01T00:00:00Z')}&$top=1`,
    );
    expect(recent.value).toHaveLength(1);
    failuresOf(await client.get(`/Products/Changelog?$filter=${q("author_type ne 'api'")}`), '$filter');
    failuresOf(
      await client.get(`/Products/Changelog?$filter=${q("startswith(attribute_id, 'prod')")}`),
      '$filter',
    );
  });

  it('rule 1: author_id only together with author_type', async () => {
    failuresOf(await client.get(`/Products/Changelog?$filter=${q("author_id eq 'x'")}`), '$filter');
    const ok = await log(
      `/Products/Changelog?$filter=${q("author_type eq 'api' and author_id eq 'sandbox-api-client'")}`,
    );
    expect(ok['@count']).toBeGreaterThan(0);
    expect(ok.value.every((e) => e.author_type === 'api')).toBe(true);
  });

  it('rule 2: in (...) and or on author_type or attribute_id apply only the first value, without an error', async () => {
    const inList = await log(
      `/Products/Changelog?$filter=${q(`item_id eq ${productId} and attribute_id in ('prod_weight','prod_brand')`)}`,
    );
    expect(inList.value.map((e) => e.attribute_id)).toEqual(['prod_weight']);
    const orred = await log(
      `/Products/Changelog?$filter=${q("author_type eq 'system' or author_type eq 'api'")}`,
    );
    expect(orred['@count']).toBeGreaterThan(0);
    expect(orred.value.every((e) => e.author_type === 'system')).toBe(true);
  });

  it('rule 3: $orderby takes id, item_id or modified_at; the default is newest first', async () => {
    const byDefault = await log('/Products/Changelog?$top=20');
    const ids = byDefault.value.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const asc = await log('/Products/Changelog?$orderby=id&$top=5');
    expect(asc.value.map((e) => e.id)).toEqual([1, 2, 3, 4, 5].map((k) => asc.value[0]!.id + k - 1));
    const byItem = await log(`/Products/Changelog?$orderby=${q('item_id desc')}&$top=1`);
    expect(byItem.value[0]!.item_id).toBe(productId);
    failuresOf(await client.get('/Products/Changelog?$orderby=author_type'), '$orderby');
  });

  it('rule 4: $top is 1 to 100 (default 100) and $skip is 0 or more', async () => {
    const all = await log('/Products/Changelog');
    expect(all.value).toHaveLength(100);
    expect(all['@nextLink']).toContain('$skip=100');
    failuresOf(await client.get('/Products/Changelog?$top=0'), '$top');
    failuresOf(await client.get('/Products/Changelog?$top=101'), '$top');
    failuresOf(await client.get('/Products/Changelog?$skip=-1'), '$skip');
    const skipped = await log('/Products/Changelog?$skip=2&$top=1');
    expect(skipped.value[0]!.id).toBe(all.value[2]!.id);
  });

  it('rule 5: $select, $expand and $skipToken are ignored, not rejected', async () => {
    const body = await log('/Products/Changelog?$top=1&$select=id&$expand=Things&$skipToken=abc');
    expect(Object.keys(body.value[0]!)).toContain('changes');
  });

  it("rule 6: an unknown property in $filter or $orderby is a 400 'Unknown property: '<name>''", async () => {
    const f = failuresOf(await client.get(`/Products/Changelog?$filter=${q('prod_brand eq 1')}`), '$filter');
    expect(f[0]!.ErrorMessage).toBe("Unknown property: 'prod_brand'");
    const o = failuresOf(await client.get('/Products/Changelog?$orderby=when'), '$orderby');
    expect(o[0]!.ErrorMessage).toBe("Unknown property: 'when'");
  });
});
