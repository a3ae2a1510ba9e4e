// The import state of a products run that drafts variants: the variants have a state of their own
// (their changelog and count, like the products'), used when looking them up would cost more than its
// 2 requests. An unchanged re-import of products with variants, category paths and images then costs the
// products' count and changelog page, the variants' count and changelog page, and one check of the image
// library; a variant edited or deleted on the tenant is corrected as a looked-up run corrects it. A feed
// with few variants looks them up (1 request) rather than check their state (2): the WooCommerce sample
// export's nightly re-import costs Catalog 3 and DAM 1. Real HTTP to a sandbox; requests counted by the
// sandbox, per service.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../src/mappers/profile-types.js';
import { importFile } from '../../src/runner/import/run.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';
import { byRef, connectTo, readCsv, resetStats, stats, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty', processingMs: 5 });
/** The demo tenant (a hand-made `Clothing` category), the real feeds' image URLs answered offline. */
const demo = useSandbox({ seed: 'demo', processingMs: 5, remoteAssets: 'synthetic' });

const PROFILE: Profile = {
  entity: 'products',
  variants: true,
  columns: {
    Handle: 'prod_ref',
    Title: 'prod_title',
    Category: { field: 'cat_refs', categoryPath: { separator: ' > ' } },
    Image: 'prod_images',
    SKU: 'frmt_ref',
    Price: 'frmt_price',
    'Variant image': 'frmt_image',
  },
};

/** `products` products of 2 variants each (S and M), each row with a category path and two image URLs. */
function feed(sb: SandboxHandle, tag: string, products: number): string {
  const lines = ['Handle,Title,Category,Image,SKU,Price,Variant image'];
  for (let p = 0; p < products; p++) {
    const category = `Home > Group ${p % 4} > Line ${p % 8}`;
    for (const size of ['S', 'M'])
      lines.push(
        `${tag}-${p},Lamp ${p},${category},${sb.assetsUrl}/${tag}-${p}.jpg,${tag}-${p}-${size},${10 + (p % 7)},${sb.assetsUrl}/${tag}-${p}-${size}.jpg`,
      );
  }
  return `${lines.join('\n')}\n`;
}

function runner(sb: SandboxHandle, dir: string, source: string, profile: Profile = PROFILE) {
  return async (extra: { reportFile?: string; fullCompare?: boolean } = {}) => {
    const connection = await connectTo(sb);
    try {
      const model = await connection.tenant.model();
      await resetStats(sb);
      const summary = await importFile({
        source,
        profile,
        model,
        catalog: connection.catalog,
        dam: () => connection.dam,
        concurrency: 8,
        tenant: 'tenant-variants',
        stateDir: join(dir, '.catalog-io'),
        assetCacheFile: join(dir, 'assets.json'),
        ...extra,
      });
      return { summary, requests: await stats(sb) };
    } finally {
      await connection.close();
    }
  };
}

/** Images done processing, so the mark a run takes is not moved by the worker afterwards. */
async function imagesSettled(sb: SandboxHandle): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await call(sb.damUrl, "/images?$filter=status eq 'Up'&$top=1", { key: sb.apiKey });
    if ((res.body as { '@count': number })['@count'] === 0) return;
    if (Date.now() > deadline) throw new Error('images still processing');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('import state of a products run with variants', () => {
  it('an unchanged re-import of products, variants, category paths and images costs Catalog 4 and DAM 1', async () => {
    const { sb } = fixture;
    const dir = tempDir('state-variants');
    // 110 products, 220 variants: looking the variants up would take 3 requests, their state 2.
    const source = await writeFeed(dir, 'feed.csv', feed(sb, 'SV', 110));
    const run = runner(sb, dir, source);

    const first = await run();
    expect(first.summary.outcomes.created).toBe(220);
    expect(first.summary.categoriesCreated.count).toBe(1 + 4 + 8);
    await imagesSettled(sb);
    // Its own writes are in the changelogs: looked up once more (and the image library marked again).
    expect((await run()).summary.outcomes.unchanged).toBe(220);

    const vouchedReport = join(dir, 'vouched.csv');
    const vouched = await run({ reportFile: vouchedReport });
    expect(vouched.summary.outcomes.unchanged).toBe(220);
    expect(vouched.summary.assets).toMatchObject({ cached: 110 + 220, registered: 0, reused: 0 });
    // Products: count, changelog page; variants: count, changelog page; the image library's mark.
    expect(vouched.requests.byService).toEqual({ catalog: 4, dam: 1 });
    expect(vouched.requests.total).toBe(5);

    // A looked-up run says the same of every row, for more requests.
    const lookedUpReport = join(dir, 'looked-up.csv');
    const lookedUp = await run({ reportFile: lookedUpReport, fullCompare: true });
    expect(lookedUp.requests.byService.catalog).toBeGreaterThan(4);
    expect(lookedUp.summary.outcomes).toEqual(vouched.summary.outcomes);
    expect(lookedUp.summary.assets).toEqual(vouched.summary.assets);
    const pick = (rows: Array<Record<string, string>>) =>
      rows.map((r) => [r.location, r.ref, r.outcome, r.assets, r.id].join(' '));
    expect(pick(await readCsv(vouchedReport))).toEqual(pick(await readCsv(lookedUpReport)));
    // The full compare's run noted the changelogs again: back to 5.
    expect((await run()).requests.total).toBe(5);

    // On the tenant: one variant's price edited, another variant deleted.
    const variants = await byRef(sb, '/Variants', 'frmt_ref');
    const edited = variants.get('SV-7-M')!;
    const gone = variants.get('SV-42-S')!;
    expect(
      (
        await call(sb.catalogUrl, `/Variants(${edited.frmt_id})`, {
          method: 'PATCH',
          key: sb.apiKey,
          body: { frmt_price: 99 },
        })
      ).status,
    ).toBe(204);
    expect(
      (await call(sb.catalogUrl, `/Variants(${gone.frmt_id})`, { method: 'DELETE', key: sb.apiKey })).status,
    ).toBe(204);
    const afterReport = join(dir, 'after.csv');
    const after = await run({ reportFile: afterReport });
    // The deletion shows in the variants' count only: every variant is looked up, the edit undone, the
    // deleted one created again; the products' state still holds.
    expect(after.summary.outcomes).toMatchObject({ unchanged: 218, updated: 1, created: 1 });
    const rows = new Map((await readCsv(afterReport)).map((r) => [r.ref, r.outcome]));
    expect(rows.get('SV-7-M')).toBe('updated');
    expect(rows.get('SV-42-S')).toBe('created');
    const now = await byRef(sb, '/Variants', 'frmt_ref');
    expect(now.get('SV-7-M')!.frmt_price).toBe(10 + (7 % 7));
    expect(now.get('SV-42-S')).toBeDefined();
    expect(now.size).toBe(220);
    // Its writes are in the changelog (read once); then the bound again.
    await run();
    expect((await run()).requests).toMatchObject({ total: 5, byService: { catalog: 4, dam: 1 } });
  });

  it('few variants are looked up (1 request) rather than checked by their state (2), until the feed grows', async () => {
    const { sb } = fixture;
    const dir = tempDir('state-variants-few');
    const source = await writeFeed(dir, 'feed.csv', feed(sb, 'SF', 20));
    const run = runner(sb, dir, source);
    await run();
    await imagesSettled(sb);
    await run();
    const few = await run();
    expect(few.summary.outcomes.unchanged).toBe(40);
    // Products: count, changelog page; the 40 variants: one lookup; the image library's mark.
    expect(few.requests.byService).toEqual({ catalog: 3, dam: 1 });

    // The feed grows past 200 variants: the run that sees them looks them up and counts them, the next
    // notes their state (and looks them up once more), the one after uses it.
    await writeFeed(dir, 'feed.csv', feed(sb, 'SF', 120));
    const grown = await run();
    expect(grown.summary.outcomes).toMatchObject({ unchanged: 40, created: 200 });
    await imagesSettled(sb);
    const noting = await run();
    expect(noting.summary.outcomes.unchanged).toBe(240);
    expect(noting.requests.byService.catalog).toBeGreaterThan(4);
    const noted = await run();
    expect(noted.summary.outcomes.unchanged).toBe(240);
    expect(noted.requests.byService).toEqual({ catalog: 4, dam: 1 });
  });

  it('the WooCommerce sample export, unchanged: Catalog 3 (its 7 variants looked up), DAM 1', async () => {
    const { sb } = demo;
    const dir = tempDir('state-variants-woo');
    const profile = JSON.parse(
      await readFile(join(process.cwd(), 'samples', 'profiles', 'woocommerce.json'), 'utf8'),
    ) as Profile;
    const run = runner(sb, dir, join(REALWORLD, 'woocommerce_sample_products.csv'), profile);
    expect((await run()).summary.outcomes.created).toBe(25);
    await imagesSettled(sb);
    await run();
    const nightly = await run();
    expect(nightly.summary.outcomes.unchanged).toBe(25);
    // The products' count and changelog page, one lookup of the 7 variants (their state would take 2),
    // the image library's mark.
    expect(nightly.requests.byService).toEqual({ catalog: 3, dam: 1 });
  });
});
