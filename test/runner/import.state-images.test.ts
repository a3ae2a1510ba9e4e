// The import state with rows that name image URLs: an unchanged re-import costs the changelog, the
// count and one check of the image library (the asset cache's mark), with the report a looked-up run
// gives; an image deleted in the DAM between runs breaks the mark, and the rows are looked up and the
// image registered again. Real HTTP to a sandbox throughout, requests counted by its counters.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFile } from '../../src/runner/import/run.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { connectTo, readCsv, resetStats, stats, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty', processingMs: 5 });
const ROWS = 300;

async function importWith(
  sb: SandboxHandle,
  source: string,
  options: { stateDir: string; assetCacheFile: string; reportFile?: string; fullCompare?: boolean },
) {
  const connection = await connectTo(sb);
  try {
    const model = await connection.tenant.model();
    await resetStats(sb);
    return await importFile({
      source,
      profile: { entity: 'products' },
      model,
      catalog: connection.catalog,
      dam: () => connection.dam,
      concurrency: 8,
      tenant: 'tenant-img',
      ...options,
    });
  } finally {
    await connection.close();
  }
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

describe('import state with images', () => {
  it('an unchanged re-import of rows with images costs 3 requests and reports as a looked-up run', async () => {
    const { sb } = fixture;
    const dir = tempDir('state-images');
    const stateDir = join(dir, '.catalog-io');
    const assetCacheFile = join(dir, 'assets.json');
    const lines = ['prod_ref,prod_title,prod_images'];
    for (let i = 0; i < ROWS; i++)
      lines.push(`SI-${i},Lamp ${i},${sb.assetsUrl}/si-${i}.jpg|${sb.assetsUrl}/si-shared.jpg`);
    const source = await writeFeed(dir, 'feed.csv', `${lines.join('\n')}\n`);
    const run = (extra: { reportFile?: string; fullCompare?: boolean } = {}) =>
      importWith(sb, source, { stateDir, assetCacheFile, ...extra });

    const first = await run();
    expect(first.outcomes.created).toBe(ROWS);
    expect(first.assets.registered).toBe(ROWS + 1);
    await imagesSettled(sb);
    // Its own writes are in the changelog: looked up once more (and the image library marked again).
    expect((await run()).outcomes.unchanged).toBe(ROWS);

    const vouchedReport = join(dir, 'vouched.csv');
    const vouched = await run({ reportFile: vouchedReport });
    const cheap = await stats(sb);
    expect(vouched.outcomes.unchanged).toBe(ROWS);
    expect(vouched.assets).toMatchObject({ cached: ROWS + 1, registered: 0, reused: 0 });
    // The count, one changelog page, one check of the image library.
    expect(cheap.total).toBe(3);

    // A looked-up run says the same of every row.
    const lookedUpReport = join(dir, 'looked-up.csv');
    const lookedUp = await run({ reportFile: lookedUpReport, fullCompare: true });
    expect((await stats(sb)).total).toBeGreaterThan(3);
    expect(lookedUp.outcomes).toEqual(vouched.outcomes);
    expect(lookedUp.assets).toEqual(vouched.assets);
    const pick = (rows: Array<Record<string, string>>) =>
      rows.map((r) => [r.ref, r.outcome, r.assets, r.id].join(' '));
    expect(pick(await readCsv(vouchedReport))).toEqual(pick(await readCsv(lookedUpReport)));
    expect((await readCsv(vouchedReport))[7]!.assets).toBe(
      `${sb.assetsUrl}/si-7.jpg cached; ${sb.assetsUrl}/si-shared.jpg cached`,
    );

    // An image deleted in the DAM: the mark no longer holds, nothing is vouched for, it is registered again.
    const del = await call(sb.damUrl, '/images(si-42.jpg)', { method: 'DELETE', key: sb.apiKey });
    expect(del.status).toBe(204);
    const afterDeleteReport = join(dir, 'after-delete.csv');
    const afterDelete = await run({ reportFile: afterDeleteReport });
    expect(afterDelete.outcomes.unchanged).toBe(ROWS);
    expect(afterDelete.assets).toMatchObject({ registered: 1, reused: ROWS, cached: 0 });
    const again = await call(sb.damUrl, '/images(si-42.jpg)', { key: sb.apiKey });
    expect(again.status).toBe(200);
    const row42 = (await readCsv(afterDeleteReport)).find((r) => r.ref === 'SI-42')!;
    expect(row42.assets).toContain(`${sb.assetsUrl}/si-42.jpg registered`);
  });

  it('an image replaced in the DAM (its source patched) is not vouched for', async () => {
    const { sb } = fixture;
    const dir = tempDir('state-images-replaced');
    const stateDir = join(dir, '.catalog-io');
    const assetCacheFile = join(dir, 'assets.json');
    const lines = ['prod_ref,prod_title,prod_images'];
    for (let i = 0; i < 20; i++) lines.push(`SR-${i},Lamp ${i},${sb.assetsUrl}/sr-${i}.jpg`);
    const source = await writeFeed(dir, 'feed.csv', `${lines.join('\n')}\n`);
    const run = () => importWith(sb, source, { stateDir, assetCacheFile });
    await run();
    await imagesSettled(sb);
    await run();
    expect((await run()).assets.cached).toBe(20);
    expect((await stats(sb)).total).toBe(3);

    const patch = await call(sb.damUrl, '/images(sr-3.jpg)', {
      method: 'PATCH',
      key: sb.apiKey,
      body: { url: `${sb.assetsUrl}/sr-3-new.jpg` },
    });
    expect(patch.status).toBeLessThan(300);
    const after = await run();
    expect(after.outcomes.unchanged).toBe(20);
    // Looked up in the catalog, nothing vouched for: count, changelog, the mark's two counts, one lookup
    // (the name still stands: the cache still serves it), then a new mark for the next run.
    expect(after.assets).toMatchObject({ cached: 20, reused: 0 });
    const s = await stats(sb);
    expect(s.byMethod.GET).toBeGreaterThanOrEqual(5);
    expect(s.byMethod.POST ?? 0).toBe(0);
    // Marked again: the run after it is back to 3 requests.
    expect((await run()).outcomes.unchanged).toBe(20);
    expect((await stats(sb)).total).toBe(3);
  });

  it('a cache without a mark (an earlier version wrote it) is checked by lookups once, then marked', async () => {
    const { sb } = fixture;
    const dir = tempDir('state-images-unmarked');
    const stateDir = join(dir, '.catalog-io');
    const assetCacheFile = join(dir, 'assets.json');
    const lines = ['prod_ref,prod_title,prod_images'];
    for (let i = 0; i < 10; i++) lines.push(`SU-${i},Lamp ${i},${sb.assetsUrl}/su-${i}.jpg`);
    const source = await writeFeed(dir, 'feed.csv', `${lines.join('\n')}\n`);
    const run = () => importWith(sb, source, { stateDir, assetCacheFile });
    await run();
    await imagesSettled(sb);
    await run();
    const saved = JSON.parse(await readFile(assetCacheFile, 'utf8')) as { imageMark?: unknown };
    expect(saved.imageMark).toMatchObject({ count: expect.any(Number), at: expect.any(String) });
    delete saved.imageMark;
    await writeFile(assetCacheFile, JSON.stringify(saved));

    const unmarked = await run();
    expect(unmarked.outcomes.unchanged).toBe(10);
    // Not vouched for: the names are looked up in the DAM (found, so no POST), and a mark is taken.
    expect(unmarked.assets).toMatchObject({ reused: 10, cached: 0 });
    expect((await stats(sb)).byMethod.POST ?? 0).toBe(0);
    expect((await run()).assets.cached).toBe(10);
    expect((await stats(sb)).total).toBe(3);
  });
});
