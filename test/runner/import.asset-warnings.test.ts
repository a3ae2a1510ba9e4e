// Images never sink a record: a URL the DAM cannot take leaves the row created or updated with a
// warning (the record written without it), costs one registration attempt per run, and is remembered
// so the next run spends no request on it. `--on-asset-error fail` keeps the strict behaviour.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { byRef, importWith, readCsv, resetStats, stats, tempDir, writeFeed } from './import.support.js';

const synthetic = useSandbox({ seed: 'empty', processingMs: 5, remoteAssets: 'synthetic' });
const live = useSandbox({ seed: 'empty', processingMs: 5 });
let dir: string;

beforeAll(() => {
  dir = tempDir('import-asset-warnings');
});

const DEAD = 'https://dead.example.com/img/gone.jpg';

describe('a URL the DAM refuses (synthetic remote assets, a dead. host)', () => {
  it('the rows are created with a warning, written without the image, for one POST of that URL', async () => {
    const { sb } = synthetic;
    const feed = await writeFeed(
      dir,
      'dead.csv',
      [
        'prod_ref,prod_title,prod_images',
        `W-1,One,"${DEAD}"`,
        `W-2,Two,"https://cdn.example.com/p/w2.jpg|${DEAD}"`,
        `W-3,Three,${DEAD}`,
        'W-4,Four,https://cdn.example.com/p/w4.png',
      ].join('\n'),
    );
    const report = join(dir, 'dead.report.csv');
    const jsonReport = join(dir, 'dead.report.jsonl');
    await resetStats(sb);
    const summary = await importWith(sb, feed, { reportFile: report });
    expect(summary.outcomes).toMatchObject({ created: 4, failed: 0 });
    expect(summary.exitCode).toBe(0);
    expect(summary.assetWarnings).toBe(3);
    expect(summary.assets).toMatchObject({ registered: 2, failed: 1 });

    const lines = await readCsv(report);
    expect(lines.map((l) => [l.ref, l.outcome, l.warnings !== ''])).toEqual([
      ['W-1', 'created', true],
      ['W-2', 'created', true],
      ['W-3', 'created', true],
      ['W-4', 'created', false],
    ]);
    expect(lines[0]!.warnings).toBe(
      `image ${DEAD} left out: URL is not accessible. HTTP status: 404 Not Found`,
    );
    expect(lines[0]!.message).toBe('');

    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('W-1')!.prod_images ?? []).toEqual([]);
    expect(products.get('W-2')!.prod_images).toEqual(['w2.jpg']);
    expect(products.get('W-4')!.prod_images).toEqual(['w4.png']);

    // POSTs: 4 products and 3 image registrations (w2, w4, and the dead URL once); no retries.
    const s = await stats(sb);
    expect(s.byMethod.POST).toBe(7);
    expect(s.byStatus['400']).toBe(1);
    expect(summary.requests.retries).toBe(0);

    // The same in a JSON Lines report.
    await importWith(sb, feed, { reportFile: jsonReport, refreshAssets: true });
    const json = (await readFile(jsonReport, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(json[0]).toMatchObject({ ref: 'W-1', outcome: 'unchanged' });
    expect(json[0]!.warnings).toMatch(/left out: URL is not accessible/);
  });

  it('the next run remembers the failed URL (cache file): no request for it until its time to live ends', async () => {
    const { sb } = synthetic;
    const cacheFile = join(dir, 'assets-cache.json');
    const feed = await writeFeed(dir, 'night.csv', `prod_ref,prod_title,prod_images\nN-1,Night,${DEAD}\n`);
    const first = await importWith(sb, feed, { assetCacheFile: cacheFile });
    expect(first.assetWarnings).toBe(1);
    const saved = JSON.parse(await readFile(cacheFile, 'utf8')) as { failed: Record<string, unknown> };
    expect(Object.keys(saved.failed)).toEqual([DEAD]);

    await resetStats(sb);
    const report = join(dir, 'night.report.csv');
    const second = await importWith(sb, feed, { assetCacheFile: cacheFile, reportFile: report });
    expect(second.outcomes.unchanged).toBe(1);
    expect(second.assetWarnings).toBe(1);
    expect((await stats(sb)).byMethod.POST ?? 0).toBe(0);
    expect((await readCsv(report))[0]!.warnings).toMatch(
      /not tried again before .*--refresh-assets tries it now/,
    );

    // Past its time to live, the URL is tried again: one POST.
    await resetStats(sb);
    const third = await importWith(sb, feed, { assetCacheFile: cacheFile, failedAssetTtlMs: 0 });
    expect(third.assetWarnings).toBe(1);
    expect((await stats(sb)).byMethod.POST).toBe(1);
  });

  it('an existing record keeps the image it has when the new URL cannot be registered', async () => {
    const { sb } = synthetic;
    const feed1 = await writeFeed(
      dir,
      'keep1.csv',
      'prod_ref,prod_title,prod_images\nK-1,Keep,https://cdn.example.com/k/keep.jpg\n',
    );
    expect((await importWith(sb, feed1)).outcomes.created).toBe(1);
    const feed2 = await writeFeed(
      dir,
      'keep2.csv',
      'prod_ref,prod_title,prod_images\nK-1,Kept,https://cdn.example.com/404/newer.jpg\n',
    );
    const summary = await importWith(sb, feed2);
    expect(summary.outcomes.updated).toBe(1);
    expect(summary.assetWarnings).toBe(1);
    const product = (await byRef(sb, '/Products', 'prod_ref')).get('K-1')!;
    expect(product).toMatchObject({ prod_title: 'Kept', prod_images: ['keep.jpg'] });
  });

  it('--on-asset-error fail: the row fails and nothing is written', async () => {
    const { sb } = synthetic;
    const feed = await writeFeed(dir, 'strict.csv', `prod_ref,prod_title,prod_images\nS-1,Strict,${DEAD}\n`);
    const report = join(dir, 'strict.report.csv');
    const summary = await importWith(sb, feed, { onAssetError: 'fail', reportFile: report });
    expect(summary.outcomes).toMatchObject({ failed: 1, created: 0 });
    expect(summary.exitCode).toBe(1);
    expect(summary.assetWarnings).toBe(0);
    const line = (await readCsv(report))[0]!;
    expect(line.message).toBe(`${DEAD}: URL is not accessible. HTTP status: 404 Not Found`);
    expect(line.warnings).toBe('');
    expect((await byRef(sb, '/Products', 'prod_ref')).has('S-1')).toBe(false);
  });
});

describe("the DAM's own 500 (a host it cannot reach)", () => {
  it('costs one POST and one look-up per URL, not a POST per retry', async () => {
    const { sb } = live;
    const unreachable = 'https://unreachable.example.com/a.jpg';
    const feed = await writeFeed(
      dir,
      'unreachable.csv',
      `prod_ref,prod_title,prod_images\nU-1,One,${unreachable}\nU-2,Two,${unreachable}\n`,
    );
    const report = join(dir, 'unreachable.report.csv');
    await resetStats(sb);
    const summary = await importWith(sb, feed, { reportFile: report });
    expect(summary.outcomes.created).toBe(2);
    expect(summary.assetWarnings).toBe(2);
    const s = await stats(sb);
    // Two product POSTs and one image POST; a 500 answered once.
    expect(s.byMethod.POST).toBe(3);
    expect(s.byStatus['500']).toBe(1);
    expect(summary.requests.retries).toBe(0);
    expect((await readCsv(report))[0]!.warnings).toMatch(/could not be reached/);
  });
});
