// Paging returns every item exactly once, for 0, 1, 100, 101 and 1,000 items, in each paging mode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startsWith } from '../../src/api/filter.js';
import { type CatalogClient, type Clients, createClients } from '../../src/api/index.js';
import type { PagingMode } from '../../src/api/paging.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty' });
const fixtureDamLinks = useSandbox({ seed: 'empty', damLinks: true });
const SIZES = [0, 1, 100, 101, 1000];
let clients: Clients;

/** Runs `work` over `inputs` with at most `limit` in flight. */
async function inBatches<T>(inputs: T[], limit: number, work: (input: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < inputs.length) await work(inputs[next++]!);
    }),
  );
}

function group(size: number): string {
  return `G${String(size).padStart(4, '0')}-`;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

beforeAll(async () => {
  const sb = fixture.sb;
  clients = createClients({
    catalogUrl: sb.catalogUrl,
    damUrl: sb.damUrl,
    apiKey: sb.apiKey,
    rateLimit: null,
    concurrency: 8,
  });
  const refs = SIZES.flatMap((size) =>
    Array.from({ length: size }, (_, i) => `${group(size)}${String(i).padStart(5, '0')}`),
  );
  await inBatches(refs, 8, (ref) => clients.catalog.create('/Products', { prod_ref: ref }));
}, 120_000);

afterAll(async () => {
  await clients?.transport.close();
});

describe('catalog paging', () => {
  const modes: Array<{ mode: PagingMode; orderby?: string }> = [
    { mode: 'token' },
    { mode: 'offset', orderby: 'prod_id asc' },
    { mode: 'skip', orderby: 'prod_ref desc' },
  ];
  for (const size of SIZES) {
    for (const { mode, orderby } of modes) {
      it(`${size} items, ${mode} paging`, async () => {
        const catalog: CatalogClient = clients.catalog;
        const query = {
          $filter: startsWith('prod_ref', group(size)),
          $select: 'prod_id,prod_ref',
          ...(orderby ? { $orderby: orderby } : {}),
        };
        const items = await collect(
          catalog.list<{ prod_id: number; prod_ref: string }>('/Products', { mode, query }),
        );
        expect(items).toHaveLength(size);
        expect(new Set(items.map((p) => p.prod_ref)).size).toBe(size);
        for (const p of items) expect(p.prod_ref.startsWith(group(size))).toBe(true);
      });
    }
  }

  it('page size is never above 100 and a smaller size is honoured', async () => {
    const before = clients.transport.snapshot().byMethod.GET ?? 0;
    const items = await collect(
      clients.catalog.list('/Products', {
        pageSize: 30,
        mode: 'offset',
        query: { $filter: startsWith('prod_ref', group(101)), $orderby: 'prod_id' },
      }),
    );
    expect(items).toHaveLength(101);
    // 30 + 30 + 30 + 11: four pages.
    expect((clients.transport.snapshot().byMethod.GET ?? 0) - before).toBe(4);
    const big = await collect(
      clients.catalog.pages('/Products', {
        pageSize: 1000,
        query: { $filter: startsWith('prod_ref', group(1000)) },
      }),
    );
    for (const page of big) expect(page.items.length).toBeLessThanOrEqual(100);
    expect(big.reduce((n, p) => n + p.items.length, 0)).toBe(1000);
  });
});

describe('DAM paging', () => {
  // Images registered from the sandbox's asset host; without @nextLink (default) and with it.
  const counts = [0, 1, 100, 101];
  for (const links of [false, true]) {
    describe(links ? 'with @nextLink' : 'by raising $skip', () => {
      let local: Clients;
      beforeAll(async () => {
        const sb = links ? fixtureDamLinks.sb : fixture.sb;
        local = createClients({
          catalogUrl: sb.catalogUrl,
          damUrl: sb.damUrl,
          apiKey: sb.apiKey,
          rateLimit: null,
        });
        const names = counts.flatMap((n) => Array.from({ length: n }, (_, i) => `d${n}-${i}.png`));
        await inBatches(names, 8, (name) => local.dam!.registerImage(`${sb.assetsUrl}/${name}`, ['paging']));
      }, 120_000);
      afterAll(async () => {
        await local?.transport.close();
      });
      for (const n of counts) {
        it(`${n} images`, async () => {
          const images = await collect(
            local.dam!.listImages({ filter: startsWith('reference', `d${n}-`), orderby: 'reference' }),
          );
          expect(images).toHaveLength(n);
          expect(new Set(images.map((i) => i.reference)).size).toBe(n);
        });
      }
    });
  }
});
