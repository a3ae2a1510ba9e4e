// Collection and entity reads: envelopes, $select, $expand, $filter (with culture suffixes),
// Accept-Language, 404s and embedded paths.
import { describe, expect, it } from 'vitest';
import { seedBulkProducts } from '../../src/sandbox/catalog/index.js';
import { type Collection, catalogSandbox, expectProblem, failuresOf, q } from './catalog.fixtures.js';

const { client } = catalogSandbox();

async function list(path: string, headers?: Record<string, string>): Promise<Collection> {
  const r = await client.get(path, headers);
  expect(r.status, r.text).toBe(200);
  return r.body as Collection;
}

async function idOfRef(collection: string, refField: string, ref: string): Promise<number> {
  const body = await list(`/${collection}?$filter=${q(`${refField} eq '${ref}'`)}`);
  const key = Object.keys(body.value[0]!)[0]!;
  return body.value[0]![key] as number;
}

describe('catalog collections', () => {
  it('a collection answers @readLink, @context, @count and value', async () => {
    const body = await list('/Products?$top=3');
    expect(Object.keys(body)).toEqual(['@readLink', '@context', '@count', 'value', '@nextLink']);
    expect(body['@readLink']).toBe(`${client.url}/Products?$top=3`);
    expect(body['@context']).toBe(`${client.url}/$metadata#Products`);
    expect(body['@count']).toBe(20);
    expect(body.value).toHaveLength(3);
  });

  it('$select returns only the root properties named, and the id always', async () => {
    const body = await list('/Products?$select=prod_ref,prod_title&$top=2');
    for (const item of body.value) expect(Object.keys(item)).toEqual(['prod_id', 'prod_ref', 'prod_title']);
  });

  it('$select of an unknown or nested property is a 400 keyed by $select', async () => {
    expect(failuresOf(await client.get('/Products?$select=prod_nope'), '$select')[0]!.AttemptedValue).toBe(
      'prod_nope',
    );
    failuresOf(await client.get('/Products?$select=Variants/frmt_ref'), '$select');
  });

  it('$expand=Variants embeds the product variants; other names are a 400 keyed by $expand', async () => {
    const body = await list(`/Products?$filter=${q("prod_ref eq 'LINEN-SHIRT'")}&$expand=Variants`);
    const variants = body.value[0]!.Variants as Array<Record<string, unknown>>;
    expect(variants.map((v) => v.frmt_ref)).toEqual([
      'LINEN-SHIRT-WHT-S',
      'LINEN-SHIRT-WHT-M',
      'LINEN-SHIRT-BLU-M',
    ]);
    failuresOf(await client.get('/Products?$expand=Categories'), '$expand');
    failuresOf(await client.get('/Variants?$expand=Products'), '$expand');
    const cats = await list(`/Categories?$filter=${q("cat_ref eq 'CAT-BOOTS'")}&$expand=Products,Variants`);
    expect((cats.value[0]!.Products as unknown[]).length).toBe(2);
    expect((cats.value[0]!.Variants as unknown[]).length).toBe(5);
  });

  it('a single GET answers the entity envelope @readLink, @editLink, @etag, @context, value', async () => {
    const id = await idOfRef('Products', 'prod_ref', 'SUN-HAT');
    const r = await client.get(`/Products(${id})?$select=prod_ref`);
    expect(r.status).toBe(200);
    const body = r.body as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['@readLink', '@editLink', '@etag', '@context', 'value']);
    expect(body['@readLink']).toBe(`${client.url}/Products(${id})`);
    expect(body['@editLink']).toBe(`${client.url}/Products(${id})`);
    expect(body['@etag']).toMatch(/^W\/"\d+"$/);
    expect(body['@context']).toBe(`${client.url}/$metadata#Products/$entity`);
    expect(body.value).toEqual({ prod_id: id, prod_ref: 'SUN-HAT' });
  });

  it('an unknown id is a 404 problem details', async () => {
    for (const path of ['/Products(99999)', '/Variants(99999)', '/Categories(99999)']) {
      expect(expectProblem(await client.get(path), 404).detail).toMatch(
        /^No (Product|Variant|Category) with id 99999$/,
      );
    }
    expectProblem(await client.get('/Products(abc)'), 404);
    expectProblem(await client.send('PATCH', '/Products(99999)', { prod_brand: 'x' }), 404);
    expectProblem(await client.send('DELETE', '/Variants(99999)'), 404);
  });
});

describe('catalog $filter', () => {
  it('filters through the OData engine on root properties', async () => {
    const body = await list(
      `/Variants?$filter=${q("frmt_stat eq 'inactive' and frmt_price gt 100")}&$select=frmt_ref`,
    );
    expect(body.value.map((v) => v.frmt_ref)).toEqual(['LEATHER-BOOT-BLK-43']);
    const tagged = await list(`/Products?$filter=${q("prod_tags eq 'winter'")}&$select=prod_ref`);
    expect(tagged.value.map((p) => p.prod_ref).sort()).toEqual(['WOOL-SCARF', 'WOOL-SWEATER']);
  });

  it('or, not, in, contains, startswith and endswith filter over HTTP', async () => {
    const refs = async (filter: string) =>
      (await list(`/Products?$filter=${q(filter)}&$select=prod_ref`)).value.map((p) => p.prod_ref).sort();
    expect(await refs("prod_ref eq 'SUN-HAT' or prod_ref eq 'RAIN-BOOT'")).toEqual(['RAIN-BOOT', 'SUN-HAT']);
    expect(await refs("prod_ref in ('SUN-HAT','RAIN-BOOT','NO-SUCH-REF')")).toEqual(['RAIN-BOOT', 'SUN-HAT']);
    expect(await refs("contains(prod_ref, 'BOOT')")).toEqual(['LEATHER-BOOT', 'RAIN-BOOT']);
    expect(await refs("startswith(prod_ref, 'WOOL-')")).toEqual(['WOOL-SCARF', 'WOOL-SWEATER']);
    expect(await refs("endswith(prod_ref, '-BOOT')")).toEqual(['LEATHER-BOOT', 'RAIN-BOOT']);
    const all = (await list('/Products?$top=1'))['@count'];
    const notBoots = await refs("not contains(prod_ref, 'BOOT')");
    expect(notBoots).toHaveLength(all - 2);
    expect(notBoots).not.toContain('RAIN-BOOT');
  });

  it('a date literal such as 2024-03-19 filters a date-time field from that midnight UTC', async () => {
    const day = await list(
      `/Products?$filter=${q('prod_date ge 2024-03-19 and prod_date lt 2024-03-20')}&$select=prod_ref`,
    );
    expect(day.value.map((p) => p.prod_ref)).toEqual(['RAIN-BOOT']);
  });

  it('unsupported functions such as tolower, and nested properties, are a 400 keyed by $filter', async () => {
    for (const fn of ["tolower(prod_ref) eq 'x'", "toupper(prod_ref) eq 'X'", 'length(prod_ref) gt 3']) {
      const [f] = failuresOf(await client.get(`/Products?$filter=${q(fn)}`), '$filter');
      expect(f!.ErrorMessage).toContain(fn.slice(0, fn.indexOf('(')));
    }
    const [nested] = failuresOf(
      await client.get(`/Products?$filter=${q("Variants/frmt_ref eq 'X'")}`),
      '$filter',
    );
    expect(nested!.ErrorMessage).toContain('Variants/frmt_ref');
  });

  it('a multilingual field is filtered as <field>_<culture>', async () => {
    const body = await list(`/Products?$filter=${q("prod_title_fr eq 'Chemise en lin'")}&$select=prod_ref`);
    expect(body.value).toEqual([{ prod_id: expect.any(Number), prod_ref: 'LINEN-SHIRT' }]);
    const es = await list(`/Products?$filter=${q("startswith(prod_title_es, 'Bota')")}&$select=prod_ref`);
    expect(es.value.map((p) => p.prod_ref).sort()).toEqual(['LEATHER-BOOT', 'RAIN-BOOT']);
  });

  it('a language the catalog does not have, or an unknown field, is a 400 keyed by $filter', async () => {
    failuresOf(await client.get(`/Products?$filter=${q("prod_title_de eq 'Hemd'")}`), '$filter');
    const f = failuresOf(await client.get(`/Products?$filter=${q('prod_nope eq 1')}`), '$filter');
    expect(f[0]!.ErrorMessage).toContain('prod_nope');
  });

  it('one filter may use only one language', async () => {
    failuresOf(
      await client.get(`/Products?$filter=${q("prod_title_fr eq 'a' or prod_title_en eq 'b'")}`),
      '$filter',
    );
  });

  it('date-times are filtered in UTC; an offset is a 400', async () => {
    const body = await list(
      `/Products?$filter=${q('prod_date ge 2024-03-19T00:00:00Z and prod_date lt 2024-03-20T00:00:00Z')}&$select=prod_ref`,
    );
    expect(body.value.map((p) => p.prod_ref)).toEqual(['RAIN-BOOT']);
    failuresOf(
      await client.get(`/Products?$filter=${q('prod_date ge 2024-03-19T00:00:00+02:00')}`),
      '$filter',
    );
  });

  it('typ_id eq null lists the products of the default attribute set', async () => {
    const body = await list(`/Products?$filter=${q('typ_id eq null')}&$select=prod_ref`);
    expect(body['@count']).toBe(6);
  });
});

describe('Accept-Language', () => {
  it('multilingual fields are read as the string of the requested culture (base when omitted)', async () => {
    const path = `/Products?$filter=${q("prod_ref eq 'LINEN-SHIRT'")}&$select=prod_title,prod_images`;
    expect((await list(path)).value[0]).toMatchObject({
      prod_title: 'Linen shirt',
      prod_images: ['linen-shirt-front.jpg', 'linen-shirt-back.jpg'],
    });
    expect((await list(path, { 'accept-language': 'fr' })).value[0]).toMatchObject({
      prod_title: 'Chemise en lin',
      prod_images: ['linen-shirt-fr.jpg'],
    });
    expect((await list(path, { 'accept-language': 'es-ES' })).value[0]).toMatchObject({
      prod_title: 'Camisa de lino',
      prod_images: [],
    });
  });

  it('an unsupported culture, *, several codes or q-values are a 400 keyed by Accept-Language', async () => {
    for (const value of ['de', '*', 'en,fr', 'fr;q=0.8']) {
      const f = failuresOf(
        await client.get('/Products?$top=1', { 'accept-language': value }),
        'Accept-Language',
      );
      expect(f[0]!.AttemptedValue).toBe(value);
    }
  });
});

describe('embedded paths', () => {
  it('/Categories(<id>)/Products lists the products of the category', async () => {
    const cat = await idOfRef('Categories', 'cat_ref', 'CAT-SHIRTS');
    const body = await list(`/Categories(${cat})/Products?$select=prod_ref`);
    expect(body.value.map((p) => p.prod_ref)).toEqual(['LINEN-SHIRT', 'OXFORD-SHIRT']);
    expect(body['@readLink']).toBe(`${client.url}/Categories(${cat})/Products?$select=prod_ref`);
    expect(body).toMatchObject({
      Count: 2,
      Skip: 0,
      Top: 100,
      HasNext: false,
      ContinuationToken: null,
      Cultures: ['en'],
    });
    const paged = await list(`/Categories(${cat})/Products?$top=1`, { 'accept-language': 'fr' });
    expect(paged).toMatchObject({ Count: 2, Top: 1, HasNext: true, Cultures: ['fr'] });
    expect(paged.ContinuationToken).toBe(new URL(paged['@nextLink']!).searchParams.get('$skipToken'));
    const one = await client.get(`/Categories(${cat})/Products(${body.value[1]!.prod_id})`);
    expect((one.body as { value: { prod_ref: string } }).value.prod_ref).toBe('OXFORD-SHIRT');
  });

  it('/Products(<id>)/Variants(<variantId>) finds only variants of that product', async () => {
    const prod = await idOfRef('Products', 'prod_ref', 'COTTON-TEE');
    const variants = await list(`/Products(${prod})/Variants`);
    expect(variants['@count']).toBe(4);
    const vid = variants.value[2]!.frmt_id as number;
    const r = await client.get(`/Products(${prod})/Variants(${vid})`);
    expect((r.body as { value: { frmt_ref: string } }).value.frmt_ref).toBe('COTTON-TEE-BLK-M');
    const other = await idOfRef('Variants', 'frmt_ref', 'SUN-HAT-NAT-U');
    expectProblem(await client.get(`/Products(${prod})/Variants(${other})`), 404);
  });

  it('/AttributeSets(<id>)/Products lists the set products, 404 when the set does not exist', async () => {
    const body = await list('/AttributeSets(3)/Products?$select=prod_ref');
    expect(body.value.map((p) => p.prod_ref)).toEqual([
      'RUNNING-SHOE',
      'CANVAS-SNEAKER',
      'LEATHER-BOOT',
      'RAIN-BOOT',
    ]);
    expectProblem(await client.get('/AttributeSets(999)/Products'), 404);
  });
});

describe('indexed lookups on a large tenant', () => {
  const big = catalogSandbox();

  it('prod_ref in (...) with 100 refs on a 100,000-product tenant answers exactly those products', async () => {
    const { firstId } = seedBulkProducts(big.fixture.sb.services.catalog, 100_000);
    const ids = Array.from({ length: 100 }, (_, i) => firstId + i * 997);
    const refs = ids.map((id) => `'BULK-${String(id).padStart(7, '0')}'`);
    const r = await big.client.get(
      `/Products?$filter=${q(`prod_ref in (${refs.join(',')})`)}&$select=prod_ref`,
    );
    expect(r.status).toBe(200);
    const body = r.body as Collection;
    expect(body['@count']).toBe(100);
    expect(body.value.map((p) => p.prod_id)).toEqual(ids);
    const byId = await big.client.get(
      `/Products?$filter=${q(`prod_id in (${ids.slice(0, 5).join(',')}) and prod_is_new eq true`)}`,
    );
    expect((byId.body as Collection).value.every((p) => p.prod_is_new === true)).toBe(true);
  });
});
