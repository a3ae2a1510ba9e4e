// An import through a loopback fault proxy, as the CLI runs it: a storm of 429s and a refusal that
// pass are waited out (every row written once), a refusal past --outage-budget stops the run as
// interrupted and --resume finishes it (a DAM gone past it too: no record is written without its image),
// a DAM that answers 500 costs only the rows that need a new image, and SIGTERM / SIGINT while the service hangs end the run within 5 s with a true report.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { faultProxy, useFaultProxy } from '../helpers/fault-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { productsByRef, runCli, runIds, startCli, summaryOf } from './import.nightly.support.js';
import { readCsv, tempDir, writeFeed } from './import.support.js';

// Some latency, so a run lasts long enough for a fault to start in its middle.
const fixture = useSandbox({ seed: 'empty', latencyMs: 15 });
let dir: string;
const proxy = useFaultProxy(() => fixture.sb.catalogUrl);

beforeAll(() => {
  dir = tempDir('import-outage');
});

/**
 * The client's waits (retry backoff, Retry-After, outage probes) run at this fraction of real time;
 * the faults below are scaled with it where their length matters, so each scenario keeps its shape.
 */
const TIME_SCALE = 0.1;

/** The CLI talks to both services through the proxy, on the scaled clock. */
const viaProxy = () => ({
  CATALOG_URL: proxy.via(fixture.sb.catalogUrl),
  DAM_URL: proxy.via(fixture.sb.damUrl),
  CATALOG_IO_TEST_TIME_SCALE: String(TIME_SCALE),
});

async function setup(
  name: string,
  rows: number,
  image?: (i: number) => string | undefined,
): Promise<{ cwd: string; feed: string }> {
  const cwd = join(dir, name);
  mkdirSync(cwd);
  const lines = ['prod_ref,prod_title,prod_images'];
  for (let i = 1; i <= rows; i++) lines.push(`${name}-${i},Item ${i},${image?.(i) ?? ''}`);
  return { cwd, feed: await writeFeed(cwd, 'feed.csv', lines.join('\n')) };
}

const args = (feed: string, ...more: string[]) => [
  'import',
  feed,
  '--report',
  'report.csv',
  '--batch-size',
  '10',
  '--rate-limit',
  'off',
  ...more,
];

/** Resolves once the run's journal holds at least `rows` finished rows. */
async function journalReaches(cwd: string, rows: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const runs = existsSync(join(cwd, '.catalog-io', 'runs')) ? await runIds(cwd) : [];
    const file = runs.at(-1) ? join(cwd, '.catalog-io', 'runs', runs.at(-1)!, 'rows.jsonl') : undefined;
    if (file && existsSync(file)) {
      const n = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"t":"row"')).length;
      if (n >= rows) return;
    }
    if (Date.now() > deadline) throw new Error(`the journal of ${cwd} did not reach ${rows} rows`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every row of the feed once in the report, in order. */
async function reportOf(cwd: string, name: string, rows: number) {
  const report = await readCsv(join(cwd, 'report.csv'));
  expect(report.map((l) => l.ref)).toEqual(Array.from({ length: rows }, (_, i) => `${name}-${i + 1}`));
  return report;
}

async function expectAllOnce(name: string, rows: number): Promise<void> {
  const products = await productsByRef(fixture.sb);
  expect(products.duplicates).toEqual([]);
  expect(Object.keys(products.byRef).filter((r) => r.startsWith(`${name}-`))).toHaveLength(rows);
}

describe('what passes is waited out', () => {
  it('the issue’s storm: 20 s of 429s (Retry-After: 1) with default settings fails no row (scaled in time)', async () => {
    const ROWS = 800;
    const STORM_MS = 20_000 * TIME_SCALE;
    const { cwd, feed } = await setup('STORM', ROWS);
    const child = startCli(args(feed), cwd, fixture.sb, viaProxy());
    await journalReaches(cwd, 20);
    await proxy.set({ kind: 'status', status: 429, retryAfterSeconds: 1 });
    const stormStarted = Date.now();
    const stormEnds = setTimeout(() => void proxy.set({ kind: 'pass' }), STORM_MS);
    const end = await child.exited;
    clearTimeout(stormEnds);
    expect(end.code, end.stderr).toBe(0);
    // The run lived through the storm: nothing could pass for 20 Retry-After periods, so the requests
    // in flight were each refused about once a period, far more than the 6 tries a request has.
    expect(Date.now() - stormStarted).toBeGreaterThanOrEqual(STORM_MS);
    expect(proxy.faulted['429']).toBeGreaterThan(14);
    const report = await reportOf(cwd, 'STORM', ROWS);
    expect(new Set(report.map((l) => l.outcome))).toEqual(new Set(['created']));
    await expectAllOnce('STORM', ROWS);
  }, 90_000);

  it('connections refused mid-run for longer than a request’s retry budget: the run waits and goes on', async () => {
    const ROWS = 400;
    const { cwd, feed } = await setup('REFUSE', ROWS);
    // Scaled down together: a 3 s refusal, a retry budget of 1 s, an outage budget of 30 s.
    const child = startCli(
      args(feed, '--retry-budget', '1000', '--outage-budget', '30000'),
      cwd,
      fixture.sb,
      viaProxy(),
    );
    await journalReaches(cwd, 50);
    await proxy.set({ kind: 'refuse' });
    await child.waitFor('waiting for the Catalog API since');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await proxy.set({ kind: 'pass' });
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toMatch(/waiting for the Catalog API since \d\d:\d\d:\d\d: it cannot be reached/);
    expect(end.stderr).toMatch(/the Catalog API is back/);
    const report = await reportOf(cwd, 'REFUSE', ROWS);
    expect(new Set(report.map((l) => l.outcome))).toEqual(new Set(['created']));
    await expectAllOnce('REFUSE', ROWS);
  }, 120_000);

  it('refused past --outage-budget: interrupted and resumable, every row reported once; --resume finishes', async () => {
    const ROWS = 400;
    const { cwd, feed } = await setup('GONE', ROWS);
    const child = startCli(args(feed, '--outage-budget', '1500'), cwd, fixture.sb, viaProxy());
    await journalReaches(cwd, 50);
    await proxy.set({ kind: 'refuse' });
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(2);
    expect(end.stderr).toContain('could not be reached for longer than the outage budget');
    expect(end.stderr).toContain('--resume');
    const report = await reportOf(cwd, 'GONE', ROWS);
    const outcomes = new Set(report.map((l) => l.outcome));
    expect(outcomes).toEqual(new Set(['created', 'not-attempted']));
    const [runId] = await runIds(cwd);
    const summary = await summaryOf(cwd, runId!);
    expect(summary).toMatchObject({ state: 'interrupted', exitCode: 2, rows: ROWS });

    await proxy.set({ kind: 'pass' });
    const resumed = await runCli([...args(feed), '--resume'], cwd, fixture.sb, viaProxy());
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await reportOf(cwd, 'GONE', ROWS);
    expect(new Set(after.map((l) => l.outcome))).toEqual(new Set(['created']));
    await expectAllOnce('GONE', ROWS);
  }, 120_000);
});

describe('the DAM', () => {
  const imageOf = (name: string) => (i: number) =>
    i % 2 === 1 ? `${fixture.sb.assetsUrl}/${name.toLowerCase()}-${i}.png` : undefined;

  it('a DAM that answers 500: rows without images are all written; rows with a new image are written without it, warned', async () => {
    const ROWS = 60;
    const name = 'DAM500';
    const { cwd, feed } = await setup(name, ROWS, imageOf(name));
    await proxy.set({ kind: 'status', status: 500, paths: /^\/dam\// });
    const end = await runCli(args(feed, '--retry-budget', '1500'), cwd, fixture.sb, viaProxy());
    expect(end.stderr).not.toContain('[INTERNAL]');
    expect(end.code, end.stderr).toBe(0);
    expect(proxy.faulted['500']).toBeGreaterThan(0);
    const report = await reportOf(cwd, name, ROWS);
    const plain = report.filter((_, i) => (i + 1) % 2 === 0);
    const withImage = report.filter((_, i) => (i + 1) % 2 === 1);
    expect(new Set(report.map((l) => l.outcome))).toEqual(new Set(['created']));
    for (const l of plain) expect(l.warnings ?? '').toBe('');
    // Rows that need a new image are written without it, and say why.
    for (const l of withImage) {
      expect(l.assets).toMatch(/failed/);
      expect(l.warnings).toMatch(/left out: .*DAM API/);
    }
    const products = await productsByRef(fixture.sb);
    for (const l of report) expect(products.byRef[l.ref!]).toBeDefined();
    for (const l of withImage) expect(products.byRef[l.ref!]!.prod_images ?? []).toEqual([]);
  }, 120_000);

  /**
   * A run whose DAM went away for longer than --outage-budget: it stops as a Catalog outage stops it
   * (exit 2, interrupted, the rows not done `not-attempted`), no record is written without its image,
   * and --resume, the DAM back, finishes every row with its image.
   */
  async function expectStoppedThenResumed(
    name: string,
    rows: number,
    cwd: string,
    feed: string,
    end: { code: number | null; stderr: string },
    env: Record<string, string>,
    dead: () => Promise<void>,
  ): Promise<void> {
    expect(end.stderr).not.toContain('[INTERNAL]');
    expect(end.code, end.stderr).toBe(2);
    expect(end.stderr).toMatch(
      /the DAM API could not be reached since \d\d:\d\d:\d\d, longer than .*: stopping/,
    );
    expect(end.stderr).toContain('--resume');
    expect(end.stderr).not.toContain('written without it');
    const report = await reportOf(cwd, name, rows);
    expect(report.map((l) => l.outcome)).toContain('not-attempted');
    for (const l of report) expect(['created', 'not-attempted']).toContain(l.outcome);
    // No row told a registration "may have been processed", none was written without its image.
    for (const l of report) {
      expect(l.warnings ?? '').toBe('');
      expect(l.assets ?? '').not.toMatch(/failed/);
    }
    const [runId] = await runIds(cwd);
    expect(await summaryOf(cwd, runId!)).toMatchObject({ state: 'interrupted', exitCode: 2, rows });
    const products = await productsByRef(fixture.sb);
    const images = report.filter((_, i) => (i + 1) % 2 === 1);
    for (const l of images) {
      const product = products.byRef[l.ref!];
      // Written: with its image. Not attempted: not written at all.
      if (l.outcome === 'created') expect(product?.prod_images ?? []).toHaveLength(1);
      else expect(product).toBeUndefined();
    }

    await dead();
    const resumed = await runCli([...args(feed), '--resume'], cwd, fixture.sb, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await reportOf(cwd, name, rows);
    expect(new Set(after.map((l) => l.outcome))).toEqual(new Set(['created']));
    for (const l of after) expect(l.warnings ?? '').toBe('');
    await expectAllOnce(name, rows);
    const done = await productsByRef(fixture.sb);
    for (const l of after.filter((_, i) => (i + 1) % 2 === 1))
      expect(done.byRef[l.ref!]!.prod_images ?? []).toHaveLength(1);
  }

  it('the DAM (behind its own proxy) dies mid-run past --outage-budget: interrupted, exit 2, no record without its image; --resume finishes with images', async () => {
    const ROWS = 300;
    const name = 'DAMDEAD';
    const { cwd, feed } = await setup(name, ROWS, imageOf(name));
    const damProxy = await faultProxy(fixture.sb.damUrl);
    try {
      const env = {
        CATALOG_URL: fixture.sb.catalogUrl,
        DAM_URL: damProxy.via(fixture.sb.damUrl),
        CATALOG_IO_TEST_TIME_SCALE: String(TIME_SCALE),
      };
      const child = startCli(args(feed, '--outage-budget', '2s'), cwd, fixture.sb, env);
      await journalReaches(cwd, 30);
      await damProxy.set({ kind: 'refuse' });
      const end = await child.exited;
      await expectStoppedThenResumed(name, ROWS, cwd, feed, end, env, () => damProxy.set({ kind: 'pass' }));
    } finally {
      await damProxy.close();
    }
  }, 120_000);

  it('a DAM that hangs past --outage-budget stops the run the same way', async () => {
    const ROWS = 60;
    const name = 'DAMHANG';
    const { cwd, feed } = await setup(name, ROWS, imageOf(name));
    await proxy.set({ kind: 'hang', paths: /^\/dam\// });
    const end = await runCli(
      args(feed, '--timeout', '300', '--outage-budget', '1500'),
      cwd,
      fixture.sb,
      viaProxy(),
    );
    expect(proxy.faulted.hang).toBeGreaterThan(0);
    await expectStoppedThenResumed(name, ROWS, cwd, feed, end, viaProxy(), () => proxy.set({ kind: 'pass' }));
  }, 120_000);

  it('after a Catalog outage past the budget the run stops without waiting a second budget for the DAM', async () => {
    const ROWS = 400;
    const name = 'BOTHGONE';
    const { cwd, feed } = await setup(name, ROWS, imageOf(name));
    // Both services go (one proxy for both); the budget is long enough that waiting it twice shows.
    const child = startCli(args(feed, '--outage-budget', '6s'), cwd, fixture.sb, viaProxy());
    await journalReaches(cwd, 50);
    await proxy.set({ kind: 'refuse' });
    await child.waitFor('longer than 6 s: stopping', 60_000);
    const stopping = Date.now();
    const end = await child.exited;
    const took = Date.now() - stopping;
    expect(end.code, end.stderr).toBe(2);
    expect(end.stderr).toMatch(/the (Catalog|DAM) API could not be reached since .*: stopping/);
    // One outage was waited for, not two: after "stopping" no wait is announced, and the run ends
    // well within a second budget.
    const afterStop = end.stderr.slice(end.stderr.indexOf(': stopping'));
    expect(afterStop).not.toContain('waiting for the');
    expect(took).toBeLessThan(5_000);
    const [runId] = await runIds(cwd);
    expect(await summaryOf(cwd, runId!)).toMatchObject({ state: 'interrupted', exitCode: 2 });
  }, 120_000);
});

describe('stop fast when told', () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`${signal} while the catalog hangs, with default settings: out within 5 s, a true report`, async () => {
      const ROWS = 300;
      const name = `HANG${signal}`;
      const { cwd, feed } = await setup(name, ROWS);
      const child = startCli(args(feed), cwd, fixture.sb, viaProxy());
      await journalReaches(cwd, 30);
      await proxy.set({ kind: 'hang', paths: /^\/catalog\// });
      await expect.poll(() => proxy.faulted.hang ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);
      const signalled = Date.now();
      child.process.kill(signal);
      const end = await child.exited;
      const took = Date.now() - signalled;
      expect(took).toBeLessThan(5_000);
      expect(end.code, end.stderr).toBe(code);
      expect(end.stderr).toContain(`interrupted (${signal})`);
      const report = await reportOf(cwd, name, ROWS);
      const created = report.filter((l) => l.outcome === 'created');
      const notAttempted = report.filter((l) => l.outcome === 'not-attempted');
      expect(created.length + notAttempted.length).toBe(ROWS);
      expect(notAttempted.length).toBeGreaterThan(0);
      const [runId] = await runIds(cwd);
      const summary = await summaryOf(cwd, runId!);
      expect(summary).toMatchObject({ state: 'interrupted', exitCode: code, rows: ROWS });

      await proxy.set({ kind: 'pass' });
      const resumed = await runCli([...args(feed), '--resume'], cwd, fixture.sb, viaProxy());
      expect(resumed.code, resumed.stderr).toBe(0);
      const after = await reportOf(cwd, name, ROWS);
      expect(new Set(after.map((l) => l.outcome))).toEqual(new Set(['created']));
      await expectAllOnce(name, ROWS);
    }, 120_000);
  }

  it('--json --quiet: the one line "interrupted … --resume" still goes to stderr', async () => {
    const ROWS = 300;
    const { cwd, feed } = await setup('QUIET', ROWS);
    const child = startCli(args(feed, '--json', '--quiet'), cwd, fixture.sb, viaProxy());
    await journalReaches(cwd, 30);
    child.process.kill('SIGTERM');
    const end = await child.exited;
    expect(end.code).toBe(143);
    expect(JSON.parse(end.stdout)).toMatchObject({ state: 'interrupted', stopReason: 'SIGTERM' });
    expect(end.stderr).toMatch(
      /interrupted \(SIGTERM\): \d+ rows not attempted\. To finish, run the same command with --resume/,
    );
  }, 120_000);
});
