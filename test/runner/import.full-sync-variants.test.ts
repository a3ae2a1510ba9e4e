// Full sync (`--missing delete`) of a feed that carries variants (one row per variant): the variants of
// the products in the feed that the feed no longer names are retired like products are: deleted, or
// `would-delete` under --plan or past --max-missing, counted apart from the products and reported.
// Finding them costs one paged list of the variants, as the products' cost one of the products. A
// variant of a product not in the feed goes with its product and is not counted again; a variant row
// that is invalid is never missing. Stopped in its deletions, `--resume` deletes the rest, each once.
// Real HTTP to a sandbox; requests counted by the sandbox.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';
import { runCli, runIds, startCli, summaryOf } from './import.nightly.support.js';
import { byRef, readCsv, resetStats, stats, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty', remoteAssets: 'synthetic', processingMs: 5 });
const PROFILE = join(process.cwd(), 'samples', 'profiles', 'woocommerce.json');
let cwd: string;
let woo: string[];

/** The row of a SKU: one line per record in that file, and each of these SKUs is named on its row only. */
const rowOf = (line: string, sku: string) => line.includes(`,${sku},`);

/** The WooCommerce sample export without the rows of these SKUs. */
const wooWithout = (...skus: string[]) =>
  woo.filter((line) => !skus.some((sku) => rowOf(line, sku))).join('\n');

const sync = (feed: string, report: string, ...more: string[]) => [
  'import',
  feed,
  '--profile',
  PROFILE,
  '--missing',
  'delete',
  '--report',
  report,
  '--rate-limit',
  'off',
  ...more,
];

const variantRefs = async () => [...(await byRef(fixture.sb, '/Variants', 'frmt_ref')).keys()].sort();

beforeAll(async () => {
  cwd = tempDir('import-full-sync-variants');
  woo = (await readFile(join(REALWORLD, 'woocommerce_sample_products.csv'), 'utf8')).split('\n');
  const all = await writeFeed(cwd, 'all.csv', wooWithout());
  const seeded = await runCli(['import', all, '--profile', PROFILE, '--rate-limit', 'off'], cwd, fixture.sb);
  expect(seeded.code, seeded.stderr).toBe(0);
  // 18 products; 22 variants: the 7 variation rows and the own variant of each of the 15 products with a price.
  expect((await byRef(fixture.sb, '/Products', 'prod_ref')).size).toBe(18);
  expect(await variantRefs()).toHaveLength(22);
}, 300_000);

describe('--missing delete with a feed of one row per variant', () => {
  it('--plan lists the variant dropped from the feed as would-delete and deletes nothing', async () => {
    const feed = await writeFeed(cwd, 'plan.csv', wooWithout('woo-hoodie-green'));
    const run = await runCli(sync(feed, 'plan.report.csv', '--plan', '--max-missing', '1'), cwd, fixture.sb);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'full sync: 0 of 18 products not in the feed (would be deleted); 1 of 22 variants not in the feed while their product is (would be deleted)',
    );
    const lines = await readCsv(join(cwd, 'plan.report.csv'));
    expect(lines.filter((l) => l.outcome === 'would-delete').map((l) => [l.entity, l.ref])).toEqual([
      ['variants', 'woo-hoodie-green'],
    ]);
    expect(await variantRefs()).toContain('woo-hoodie-green');
  }, 300_000);

  it('variation rows whose parent row is not in the file keep their product, and its other variants go', async () => {
    // The hoodie's own row gone (the file's line of `,woo-hoodie,`, not its variation rows' Parent) and
    // one of its four variation rows: the three named keep the product.
    const feed = await writeFeed(
      cwd,
      'no-parent.csv',
      woo
        .filter((line) => !/^\d+,variable,woo-hoodie,/.test(line) && !rowOf(line, 'woo-hoodie-green'))
        .join('\n'),
    );
    const run = await runCli(
      sync(feed, 'no-parent.report.csv', '--plan', '--max-missing', '100%'),
      cwd,
      fixture.sb,
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = await readCsv(join(cwd, 'no-parent.report.csv'));
    expect(lines.filter((l) => l.outcome === 'would-delete').map((l) => [l.entity, l.ref])).toEqual([
      ['variants', 'woo-hoodie-green'],
    ]);
  }, 300_000);

  it('more variants missing than --max-missing allows: exit 3, nothing deleted, the variants listed', async () => {
    const feed = await writeFeed(cwd, 'guard.csv', wooWithout('woo-hoodie-green', 'woo-vneck-tee-red'));
    const run = await runCli(sync(feed, 'guard.report.csv', '--max-missing', '1'), cwd, fixture.sb);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(
      '2 of 22 variants of products in the feed are not in the feed, more than --max-missing 1 allows (1): nothing was deleted',
    );
    expect(await variantRefs()).toHaveLength(22);
    const lines = await readCsv(join(cwd, 'guard.report.csv'));
    const listed = lines.filter((l) => l.outcome === 'would-delete').map((l) => l.ref);
    expect(listed.sort()).toEqual(['woo-hoodie-green', 'woo-vneck-tee-red']);
    const [last] = (await runIds(cwd)).slice(-1);
    expect(await summaryOf(cwd, last!)).toMatchObject({ state: 'stopped', exitCode: 3 });
  }, 300_000);

  it('deletes the variant dropped from the feed, for one more list request; an invalid variant row stays', async () => {
    // woo-hoodie-red's price is not a number here: the row is invalid, and its variant is not missing.
    const rows = wooWithout('woo-hoodie-green')
      .split('\n')
      .map((line) => (rowOf(line, 'woo-hoodie-red') ? line.replace(',45,', ',dear,') : line));
    const feed = await writeFeed(cwd, 'full.csv', rows.join('\n'));
    // The same feed without full sync first: what the rows cost, so the full sync's cost is the rest.
    const flags = ['--full-compare', '--concurrency', '1'];
    await resetStats(fixture.sb);
    const plain = await runCli(
      ['import', feed, '--profile', PROFILE, '--rate-limit', 'off', ...flags],
      cwd,
      fixture.sb,
    );
    expect(plain.code, plain.stderr).toBe(1);
    const rowsOnly = await stats(fixture.sb);
    await resetStats(fixture.sb);
    const summaryFile = join(cwd, 'full-summary.json');
    const run = await runCli(
      sync(feed, 'full.report.csv', '--max-missing', '1', '--summary', summaryFile, ...flags),
      cwd,
      fixture.sb,
    );
    expect(run.code, run.stderr).toBe(1);
    const withSync = await stats(fixture.sb);
    // One page of products and one of variants; one DELETE; nothing else.
    expect(withSync.byMethod.GET! - rowsOnly.byMethod.GET!).toBe(2);
    expect(withSync.byMethod.DELETE).toBe(1);
    expect(withSync.byService.dam).toBe(rowsOnly.byService.dam);
    expect((withSync.byMethod.POST ?? 0) + (withSync.byMethod.PATCH ?? 0)).toBe(
      (rowsOnly.byMethod.POST ?? 0) + (rowsOnly.byMethod.PATCH ?? 0),
    );

    const left = await variantRefs();
    expect(left).toHaveLength(21);
    expect(left).not.toContain('woo-hoodie-green');
    expect(left).toEqual(
      expect.arrayContaining(['woo-hoodie-red', 'woo-hoodie-blue', 'woo-hoodie-blue-logo']),
    );
    expect(run.stderr).toContain(
      'full sync: 0 of 18 products not in the feed, 0 deleted; 1 of 22 variants not in the feed while their product is, 1 deleted',
    );
    const lines = await readCsv(join(cwd, 'full.report.csv'));
    const gone = lines.filter((l) => l.location === 'not in the feed');
    expect(gone).toMatchObject([
      {
        entity: 'variants',
        ref: 'woo-hoodie-green',
        outcome: 'deleted',
        message: 'not in the feed, its product woo-hoodie is',
      },
    ]);
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    expect(summary).toMatchObject({ outcomes: { deleted: 1, invalid: 1 } });
  }, 300_000);

  it('a product dropped from the feed goes with its variants, which are not counted again', async () => {
    const feed = await writeFeed(cwd, 'product.csv', wooWithout('woo-hoodie-green', 'woo-album'));
    const run = await runCli(
      sync(feed, 'product.report.csv', '--max-missing', '1', '--json'),
      cwd,
      fixture.sb,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).fullSync).toEqual({
      total: 18,
      missing: 1,
      deleted: 1,
      failed: 0,
      variants: { total: 21, missing: 0, deleted: 0, failed: 0 },
    });
    expect((await byRef(fixture.sb, '/Products', 'prod_ref')).has('woo-album')).toBe(false);
    expect(await variantRefs()).toHaveLength(20);
    const gone = (await readCsv(join(cwd, 'product.report.csv'))).filter(
      (l) => l.location === 'not in the feed',
    );
    expect(gone).toMatchObject([
      {
        entity: 'products',
        ref: 'woo-album',
        outcome: 'deleted',
        message: 'not in the feed; 1 variant(s) deleted with it',
      },
    ]);
  }, 300_000);
});

// Each request takes ~40 ms: the deletions last long enough to be stopped among them.
const slow = useSandbox({ seed: 'empty', latencyMs: 40 });

describe('--missing delete of variants stopped in its deletions', () => {
  const profile = {
    entity: 'products',
    variants: true,
    columns: { Handle: 'prod_ref', Title: 'prod_title', SKU: 'frmt_ref', Price: 'frmt_price' },
  };
  const feedOf = (to: number) => {
    const rows = ['Handle,Title,SKU,Price'];
    for (let i = 1; i <= to; i++) rows.push(`VX,Lamp,VX-${i},${i}`);
    return rows.join('\n');
  };

  it('SIGTERM: exit 143, the variants not deleted yet not-attempted; --resume deletes them, each once', async () => {
    const dir = tempDir('import-full-sync-variants-stop');
    const profileFile = await writeFeed(dir, 'profile.json', JSON.stringify(profile));
    const imported = (feed: string, ...more: string[]) => [
      'import',
      feed,
      '--profile',
      profileFile,
      '--rate-limit',
      'off',
      ...more,
    ];
    const all = await writeFeed(dir, 'all.csv', feedOf(150));
    const seeded = await runCli(imported(all, '--concurrency', '16'), dir, slow.sb);
    expect(seeded.code, seeded.stderr).toBe(0);

    const part = await writeFeed(dir, 'part.csv', feedOf(50));
    const args = imported(part, '--missing', 'delete', '--max-missing', '80%', '--report', 'r.csv');
    const run = startCli([...args, '--concurrency', '2'], dir, slow.sb);
    const deletes = async () =>
      ((await call(slow.sb.origin, '/_sandbox/stats')).body as { byMethod: Record<string, number> }).byMethod
        .DELETE ?? 0;
    const started = Date.now();
    while ((await deletes()) < 5 && Date.now() - started < 60_000)
      await new Promise((r) => setTimeout(r, 50));
    run.process.kill('SIGTERM');
    const end = await run.exited;
    expect(end.code, end.stderr).toBe(143);
    expect(end.stderr).toMatch(/full sync not finished: \d+ records not in the feed were not deleted/);
    const first = (await readCsv(join(dir, 'r.csv'))).filter((l) => l.location === 'not in the feed');
    expect(first).toHaveLength(100);
    expect(first.every((l) => l.entity === 'variants')).toBe(true);
    const deleted = first.filter((l) => l.outcome === 'deleted').length;
    expect(deleted).toBeGreaterThan(0);
    expect(first.filter((l) => l.outcome === 'not-attempted')).toHaveLength(100 - deleted);

    const resumed = await runCli([...args, '--resume'], dir, slow.sb);
    expect(resumed.code, resumed.stderr).toBe(0);
    const gone = (await readCsv(join(dir, 'r.csv'))).filter((l) => l.location === 'not in the feed');
    expect(gone.map((l) => l.outcome)).toEqual(new Array(100).fill('deleted'));
    expect(new Set(gone.map((l) => l.ref)).size).toBe(100);
    const left = [...(await byRef(slow.sb, '/Variants', 'frmt_ref')).keys()];
    expect(left.sort()).toEqual(Array.from({ length: 50 }, (_, i) => `VX-${i + 1}`).sort());
    expect((await byRef(slow.sb, '/Products', 'prod_ref')).has('VX')).toBe(true);
  }, 300_000);
});
