// Requests are the scarce resource: exporting N items in L languages costs at most L x ceil(N/100)
// requests plus a small constant (the changelog mark, category-ref lookups), counted by the sandbox.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, connect } from '../../src/config/index.js';
import { exportCatalog } from '../../src/runner/export/index.js';
import { seedBulkProducts } from '../../src/sandbox/catalog/index.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const BULK = 380;
/** The changelog mark and the category-ref lookups. */
const CONSTANT = 3;

const fixture = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'catalog-io-export-requests-'));
let connection: Connection;
beforeAll(async () => {
  const { sb } = fixture;
  seedBulkProducts(sb.services.catalog, BULK, { variantsPerProduct: 1 });
  connection = await connect({
    settings: { catalogUrl: sb.catalogUrl, apiKey: sb.apiKey, rateLimit: null },
    cwd: dir,
  });
  await connection.tenant.model();
});
afterAll(async () => {
  await connection?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sandboxRequests(): Promise<number> {
  const res = await call(fixture.sb.origin, '/_sandbox/stats');
  return (res.body as { total: number }).total;
}

async function counted(run: () => Promise<unknown>): Promise<number> {
  const before = await sandboxRequests();
  await run();
  // The stats request itself is not counted by the sandbox.
  return (await sandboxRequests()) - before;
}

async function count(path: string): Promise<number> {
  const res = await call(fixture.sb.catalogUrl, `${path}?$top=1`, { key: fixture.sb.apiKey });
  return (res.body as { '@count': number })['@count'];
}

describe('requests of an export', () => {
  it('products in 3 languages: at most 3 x ceil(N/100) + a constant', async () => {
    const model = await connection.tenant.model();
    const n = await count('/Products');
    expect(n).toBeGreaterThanOrEqual(BULK);
    const out = join(dir, 'products.csv');
    const requests = await counted(() =>
      exportCatalog({
        catalog: connection.catalog,
        model,
        tenant: 't',
        entities: ['products'],
        out,
        cwd: dir,
      }),
    );
    expect(readFileSync(out, 'utf8').trim().split('\r\n')).toHaveLength(n + 1);
    expect(requests).toBeLessThanOrEqual(3 * Math.ceil(n / 100) + CONSTANT);
  });

  it('--languages en,fr reads two languages only', async () => {
    const model = await connection.tenant.model();
    const n = await count('/Products');
    const requests = await counted(() =>
      exportCatalog({
        catalog: connection.catalog,
        model,
        tenant: 't',
        entities: ['products'],
        languages: ['en', 'fr'],
        out: join(dir, 'en-fr.csv'),
        cwd: dir,
      }),
    );
    expect(requests).toBeLessThanOrEqual(2 * Math.ceil(n / 100) + CONSTANT);
  });

  it('variants (colour in en and fr only) and categories stay within the bound too', async () => {
    const model = await connection.tenant.model();
    const variants = await count('/Variants');
    const categories = await count('/Categories');
    const requests = await counted(() =>
      exportCatalog({
        catalog: connection.catalog,
        model,
        tenant: 't',
        entities: ['variants', 'categories'],
        out: join(dir, 'two.xlsx'),
        cwd: dir,
      }),
    );
    const bound = 2 * Math.ceil(variants / 100) + 3 * Math.ceil(categories / 100) + 2 * CONSTANT;
    expect(requests).toBeLessThanOrEqual(bound);
  });

  it('--since: the changelog pages plus L x ceil(changed/100)', async () => {
    const { sb } = fixture;
    const model = await connection.tenant.model();
    const marker = await call(sb.catalogUrl, '/Products?$top=1&$orderby=prod_id desc', { key: sb.apiKey });
    const since = (marker.body as { value: Array<{ prod_modified_at: string }> }).value[0]!.prod_modified_at;
    const changed = 150;
    for (let id = 21; id < 21 + changed; id++) {
      const res = await call(sb.catalogUrl, `/Products(${id})`, {
        method: 'PATCH',
        key: sb.apiKey,
        body: { prod_brand: `Brand changed ${id}` },
      });
      expect(res.status).toBe(204);
    }
    const out = join(dir, 'since.ndjson');
    const requests = await counted(() =>
      exportCatalog({
        catalog: connection.catalog,
        model,
        tenant: 't',
        entities: ['products'],
        since: new Date(since),
        out,
        cwd: dir,
      }),
    );
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(changed);
    // One changelog entry per changed field: 150 entries, two pages.
    const changelogPages = Math.ceil(changed / 100);
    expect(requests).toBeLessThanOrEqual(changelogPages + 3 * Math.ceil(changed / 100) + CONSTANT);
  });
});
