// Category paths created through a service that cuts connections mid-request: a POST whose outcome is
// unknown is looked up by ref before it is sent again, so each category of the tree exists once, and
// the products link to them.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../src/mappers/profile-types.js';
import { useSandbox } from '../helpers/sandbox.js';
import { importWith, readAll, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty', resetRate: 0.2, randomSeed: 11 });
let dir: string;

beforeAll(() => {
  dir = tempDir('import-faults-categories');
});

const profile: Profile = {
  entity: 'products',
  columns: {
    SKU: 'prod_ref',
    Name: 'prod_title',
    Categories: { field: 'cat_refs', categoryPath: true, split: ',' },
  },
};

describe('category paths through a faulty service', () => {
  it('creates each category once, however many POSTs lost their answer', async () => {
    const rows = ['SKU,Name,Categories'];
    for (let i = 1; i <= 60; i++) rows.push(`CF-${i},Item ${i},"Dept ${i % 6} > Shelf ${i}"`);
    const feed = await writeFeed(dir, 'products.csv', rows.join('\n'));
    const summary = await importWith(fixture.sb, feed, { profile, concurrency: 4 });
    expect(summary.outcomes).toMatchObject({ created: 60, failed: 0 });
    // The faults were there: some requests were cut and tried again.
    expect(summary.requests.retries).toBeGreaterThan(0);
    const categories = await readAll(fixture.sb, '/Categories');
    const refs = categories.map((c) => String(c.cat_ref));
    expect(refs).toHaveLength(66);
    expect(new Set(refs).size).toBe(66);
    // Every product links to its shelf.
    const idOf = new Map(categories.map((c) => [String(c.cat_ref), c.cat_id]));
    const products = await readAll(fixture.sb, '/Products');
    expect(products).toHaveLength(60);
    for (const p of products) {
      const i = Number(String(p.prod_ref).slice(3));
      expect(p.cat_ids).toEqual([idOf.get(`dept-${i % 6}/shelf-${i}`)]);
    }
  });
});
