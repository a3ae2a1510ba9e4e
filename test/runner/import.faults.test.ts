// A run through 5xx answers, connection resets and a tight rate limit ends with the same tenant as a
// clean run, and no record is created twice. Quota exhaustion mid-run stops further registrations.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { useSandbox } from '../helpers/sandbox.js';
import {
  byRef,
  damImages,
  importWith,
  readAll,
  readCsv,
  resetStats,
  stats,
  tempDir,
  writeFeed,
} from './import.support.js';

const clean = useSandbox({ seed: 'empty' });
const faulty = useSandbox({
  seed: 'empty',
  faultRate: 0.1,
  resetRate: 0.05,
  rateLimit: { requests: 15, windowSeconds: 1 },
  randomSeed: 7,
});
let dir: string;
let categories: string;
let products: string;

beforeAll(async () => {
  dir = tempDir('import-faults');
  // Children before parents, so categories wait across batches too.
  const cats = ['cat_ref,cat_title,cat_title_fr,cat_parent_ref'];
  for (let i = 0; i < 4; i++) cats.push(`FC-${i}-sub,Sub ${i},Sous ${i},FC-${i}`);
  for (let i = 0; i < 4; i++) cats.push(`FC-${i},Top ${i},Haut ${i},`);
  categories = await writeFeed(dir, 'categories.csv', cats.join('\n'));
  const rows = ['prod_ref,prod_title,prod_title_fr,prod_weight,cat_refs,frmt_ref,frmt_price'];
  for (let i = 0; i < 12; i++) {
    for (const size of ['S', 'M']) {
      rows.push(`FP-${i},Item ${i},Article ${i},${i + 0.5},FC-${i % 4}-sub,FP-${i}-${size},${10 + i}`);
    }
  }
  products = await writeFeed(dir, 'products.csv', rows.join('\n'));
});

/** The tenant's records, keyed by ref, without ids and server timestamps (they differ between tenants). */
async function state(sb: SandboxHandle) {
  const strip = (
    records: Array<Record<string, unknown>>,
    ref: string,
    links: Record<string, Map<unknown, unknown>>,
  ) => {
    const out: Record<string, Record<string, unknown>> = {};
    for (const r of records) {
      const copy: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) {
        if (
          k.endsWith('_created_at') ||
          k.endsWith('_modified_at') ||
          k === 'prod_id' ||
          k === 'cat_id' ||
          k === 'frmt_id'
        )
          continue;
        copy[k] = v;
      }
      // Links by ref instead of by id.
      for (const [field, map] of Object.entries(links)) {
        const v = r[field];
        copy[field] = Array.isArray(v) ? v.map((x) => map.get(x)).sort() : (map.get(v) ?? null);
      }
      out[String(r[ref])] = copy;
    }
    return out;
  };
  const cats = await readAll(sb, '/Categories');
  const catsFr = await readAll(sb, '/Categories', 'fr');
  const prods = await readAll(sb, '/Products');
  const prodsFr = await readAll(sb, '/Products', 'fr');
  const variants = await readAll(sb, '/Variants');
  const catRef = new Map(cats.map((c) => [c.cat_id, c.cat_ref]));
  const prodRef = new Map(prods.map((p) => [p.prod_id, p.prod_ref]));
  return {
    counts: { categories: cats.length, products: prods.length, variants: variants.length },
    categories: strip(cats, 'cat_ref', { cat_parent_id: catRef }),
    categoriesFr: strip(catsFr, 'cat_ref', { cat_parent_id: catRef }),
    products: strip(prods, 'prod_ref', { cat_ids: catRef }),
    productsFr: strip(prodsFr, 'prod_ref', { cat_ids: catRef }),
    variants: strip(variants, 'frmt_ref', { prod_id: prodRef }),
  };
}

describe('faults', () => {
  it('10% 5xx, 5% resets and a tight rate limit: the same tenant as a clean run, nothing twice', async () => {
    // The client's waits (backoff, the 429s' and 503s' Retry-After) at a tenth of real time: the same
    // faults are met and retried through, sooner.
    const timeScale = 0.1;
    for (const sb of [clean.sb, faulty.sb]) {
      const c = await importWith(sb, categories, { entity: 'categories', batchSize: 3, timeScale });
      expect(c.outcomes.created).toBe(8);
      const p = await importWith(sb, products, {
        profile: { entity: 'products', variants: true },
        batchSize: 10,
        concurrency: 8,
        timeScale,
      });
      expect(p.outcomes.failed + p.outcomes.invalid, JSON.stringify(p.topErrors)).toBe(0);
      expect(p.rows).toBe(24);
    }
    const s = await stats(faulty.sb);
    // The faults really happened.
    expect(s.byStatus['429'] ?? 0).toBeGreaterThan(0);
    expect((s.byStatus['500'] ?? 0) + (s.byStatus['502'] ?? 0) + (s.byStatus['503'] ?? 0)).toBeGreaterThan(0);
    expect(s.byStatus.reset ?? 0).toBeGreaterThan(0);

    const expected = await state(clean.sb);
    const got = await state(faulty.sb);
    expect(got.counts).toEqual({ categories: 8, products: 12, variants: 24 });
    expect(got).toEqual(expected);
  }, 120_000);
});

describe('image quota reached mid-run', () => {
  const quota = useSandbox({ seed: 'empty', imageQuota: 2 });

  it('later rows needing a new image are written without it at once, with the DAM message; no further POST /images', async () => {
    const { sb } = quota;
    const lines = ['prod_ref,prod_title,prod_images'];
    for (let i = 1; i <= 6; i++) lines.push(`Q-${i},Item ${i},${sb.assetsUrl}/quota-${i}.jpg`);
    const feed = await writeFeed(dir, 'quota.csv', lines.join('\n'));
    await resetStats(sb);
    const report = `${dir}/quota.report.csv`;
    // Batches of 3: the first learns of the quota, the second sends no registration at all.
    const summary = await importWith(sb, feed, { batchSize: 3, reportFile: report });
    expect(summary.outcomes).toMatchObject({ created: 6, failed: 0 });
    expect(summary.assetWarnings).toBe(4);
    expect((await damImages(sb)).length).toBe(2);
    // 3 POST /images (2 registered, 1 refused for the quota) + 6 product POSTs.
    expect((await stats(sb)).byMethod.POST).toBe(9);
    const report_ = await readCsv(report);
    const warned = report_.filter((l) => l.warnings !== '');
    expect(warned).toHaveLength(4);
    for (const l of warned)
      expect(l.warnings).toMatch(/Image library limit reached\. Current: 2, Maximum: 2/);
  });
});

describe('pacing under the service limit', () => {
  // The real service's 50 requests, in a window of 5 s instead of its 10: the same sliding count
  // (more requests than one window holds), the run in half the time.
  const limited = useSandbox({ seed: 'empty', rateLimit: { requests: 50, windowSeconds: 5 } });

  // The client counts a sliding window, as the service does: a fixed window refilled every 5 s
  // would let up to 100 requests through around a refill.
  it('a run paced at 50 / 5 s receives no 429', async () => {
    const { sb } = limited;
    const rows = ['prod_ref,prod_title'];
    for (let i = 0; i < 60; i++) rows.push(`RL-${i},Item ${i}`);
    const feed = await writeFeed(dir, 'paced.csv', rows.join('\n'));
    await resetStats(sb);
    const summary = await importWith(sb, feed, { rateLimit: { requests: 50, windowSeconds: 5 } });
    expect(summary.outcomes.created).toBe(60);
    expect((await stats(sb)).byStatus['429'] ?? 0).toBe(0);
  }, 60_000);
});

describe('image registrations through 5xx and resets', () => {
  // One request in flight, so the seeded faults fall on the same requests every run.
  const flaky = useSandbox({ seed: 'empty', faultRate: 0.1, resetRate: 0.1, randomSeed: 11 });

  it('an ambiguous POST /images is looked up, then sent again: every URL registered once, no row fails', async () => {
    const { sb } = flaky;
    const lines = ['prod_ref,prod_title,prod_images'];
    for (let i = 0; i < 24; i++) lines.push(`FI-${i},Item ${i},${sb.assetsUrl}/flaky-${i % 12}.jpg`);
    const feed = await writeFeed(dir, 'flaky-images.csv', lines.join('\n'));
    await resetStats(sb);
    const summary = await importWith(sb, feed, { concurrency: 1, batchSize: 8 });
    expect(summary.outcomes.failed, JSON.stringify(summary.topErrors)).toBe(0);
    expect(summary.outcomes.created).toBe(24);
    const s = await stats(sb);
    expect((s.byStatus.reset ?? 0) + (s.byStatus['500'] ?? 0) + (s.byStatus['502'] ?? 0)).toBeGreaterThan(0);

    const images = (await damImages(sb)).map((i) => String(i.reference)).sort();
    expect(images).toEqual(Array.from({ length: 12 }, (_, i) => `flaky-${i}.jpg`).sort());
    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.size).toBe(24);
    for (let i = 0; i < 24; i++) {
      expect(products.get(`FI-${i}`)!.prod_images).toEqual([`flaky-${i % 12}.jpg`]);
    }
    expect(summary.assets.failed).toBe(0);
    expect(summary.assets.registered + summary.assets.reused).toBe(12);
  }, 120_000);
});
