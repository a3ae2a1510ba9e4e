// Paging: at most 100 per page, $top caps it, token paging without $orderby, offset paging with it,
// @nextLink continuing the same query, and the legacy attribute-set list limits.
import { describe, expect, it } from 'vitest';
import { seedBulkProducts } from '../../src/sandbox/catalog/index.js';
import { below, type Collection, catalogSandbox, failuresOf, q } from './catalog.fixtures.js';

const { fixture, client } = catalogSandbox();
const BULK = 250;
let bulkReady = false;

async function page(path: string): Promise<Collection> {
  if (!bulkReady) {
    seedBulkProducts(fixture.sb.services.catalog, BULK);
    bulkReady = true;
  }
  const r = await client.get(path);
  expect(r.status, r.text).toBe(200);
  return r.body as Collection;
}

describe('catalog paging', () => {
  it('a page holds at most 100 items by default and @nextLink is absent on the last page', async () => {
    const seen: number[] = [];
    let path: string | undefined = '/Products?$select=prod_ref';
    let pages = 0;
    while (path) {
      const body = await page(path);
      expect(body.value.length).toBeLessThanOrEqual(100);
      expect(body['@count']).toBe(20 + BULK);
      seen.push(...body.value.map((p) => p.prod_id as number));
      path = body['@nextLink'] ? below(client.url, body['@nextLink']) : undefined;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(20 + BULK);
    expect(new Set(seen).size).toBe(20 + BULK);
  });

  it('$top caps the page size, and never above 100', async () => {
    expect((await page('/Products?$top=7')).value).toHaveLength(7);
    expect((await page('/Products?$top=500')).value).toHaveLength(100);
  });

  it('without $orderby the @nextLink continues the same query with $skipToken', async () => {
    const filter = q("startswith(prod_ref, 'BULK-')");
    const first = await page(`/Products?$filter=${filter}&$select=prod_ref&$top=40`);
    expect(first['@count']).toBe(BULK);
    const next = first['@nextLink']!;
    expect(next.startsWith(`${client.url}/Products?`)).toBe(true);
    const params = new URL(next).searchParams;
    expect(params.get('$filter')).toBe("startswith(prod_ref, 'BULK-')");
    expect(params.get('$select')).toBe('prod_ref');
    expect(params.get('$top')).toBe('40');
    expect(params.get('$skipToken')).toBeTruthy();
    expect(params.has('$skip')).toBe(false);
    const second = await page(below(client.url, next));
    expect(second.value[0]!.prod_id).toBe((first.value[39]!.prod_id as number) + 1);
    expect(Object.keys(second.value[0]!)).toEqual(['prod_id', 'prod_ref']);
  });

  it('$skip/$top with $orderby page by offset and @nextLink uses $skip', async () => {
    const first = await page(`/Products?$orderby=${q('prod_ref desc')}&$top=10&$skip=5&$select=prod_ref`);
    const params = new URL(first['@nextLink']!).searchParams;
    expect(params.get('$skip')).toBe('15');
    expect(params.has('$skipToken')).toBe(false);
    const all = await page(`/Products?$orderby=${q('prod_ref desc')}&$top=100&$select=prod_ref`);
    expect(first.value.map((p) => p.prod_ref)).toEqual(all.value.slice(5, 15).map((p) => p.prod_ref));
    const refs = all.value.map((p) => p.prod_ref as string);
    expect([...refs].sort().reverse()).toEqual(refs);
  });

  it('$orderby with several properties is a 400 keyed by $orderby', async () => {
    failuresOf(await client.get(`/Products?$orderby=${q('prod_ref,prod_id desc')}`), '$orderby');
  });

  it('$skipToken with $orderby is a 400 keyed by $skipToken', async () => {
    const first = await page('/Products?$top=2');
    const token = new URL(first['@nextLink']!).searchParams.get('$skipToken')!;
    failuresOf(await client.get(`/Products?$orderby=prod_ref&$skipToken=${q(token)}`), '$skipToken');
  });

  it('an invalid $skipToken, a negative $skip or a non-numeric $top is a 400 keyed by its parameter', async () => {
    failuresOf(await client.get('/Products?$skipToken=garbage'), '$skipToken');
    failuresOf(await client.get('/Products?$skip=-1'), '$skip');
    failuresOf(await client.get('/Products?$top=ten'), '$top');
  });

  it('the legacy attribute-set list pages 100 by default and 1 item under $top or $skipToken', async () => {
    const all = await page('/AttributeSets');
    expect(all.value).toHaveLength(4);
    expect(all['@nextLink']).toBeUndefined();
    const small = await page('/AttributeSets?$top=3');
    expect(small.value).toHaveLength(1);
    const next = new URL(small['@nextLink']!).searchParams;
    expect(next.get('$skip')).toBe('1');
    const rest = await page(below(client.url, small['@nextLink']!));
    expect(rest.value[0]!.typ_id).toBe(2);
  });
});
