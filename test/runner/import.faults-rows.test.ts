// Faults fail rows, not the run: under 10% 5xx and 20% connection resets a 3,000-row import finishes
// with one report line per row, and a second run converges with no duplicate. When the service is
// clearly gone (batches failing in a row), the run stops with exit 2 and every row is still reported;
// when it cannot be reached at all past --outage-budget, it stops as interrupted, resumable.
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/config/index.js';
import { importFile } from '../../src/runner/import/run.js';
import { useSandbox } from '../helpers/sandbox.js';
import { productsByRef, runCli } from './import.nightly.support.js';
import { readCsv, tempDir, writeFeed } from './import.support.js';

const ROWS = 3000;
// The client's retry and outage-probe waits at a tenth: the same faults, tries and circuit openings.
const FAST_CLOCK = { CATALOG_IO_TEST_TIME_SCALE: '0.1' };
const faulty = useSandbox({ seed: 'empty', faultRate: 0.1, resetRate: 0.2, randomSeed: 17 });
const healthy = useSandbox({ seed: 'empty' });
let dir: string;

beforeAll(() => {
  dir = tempDir('import-faults-rows');
});

describe('faults fail rows, not the run', () => {
  it(`${ROWS} rows at --fault-rate 0.1 --reset-rate 0.2: finishes, each row reported once; a rerun converges`, async () => {
    const rows = ['prod_ref,prod_title,prod_weight'];
    for (let i = 1; i <= ROWS; i++) rows.push(`FR-${i},Item ${i},${i}`);
    const feed = await writeFeed(dir, 'feed.csv', rows.join('\n'));
    const args = ['import', feed, '--concurrency', '32', '--rate-limit', 'off'];

    const first = await runCli([...args, '--report', 'first.csv', '--json'], dir, faulty.sb, FAST_CLOCK);
    expect([0, 1], first.stderr).toContain(first.code);
    const report = await readCsv(join(dir, 'first.csv'));
    expect(report).toHaveLength(ROWS);
    expect(new Set(report.map((l) => l.ref)).size).toBe(ROWS);
    // A create whose answer a reset lost, and whose look-up by ref failed too, may have been made: it is
    // not finished (not attempted, for --resume to check), and the run is not either. Rare at these rates.
    for (const l of report) expect(['created', 'failed', 'not-attempted']).toContain(l.outcome);
    // A failed row says what failed and after how many tries; an unfinished one, why and what checks it.
    for (const l of report.filter((r) => r.outcome === 'failed')) expect(l.message).toMatch(/API_\w+/);
    for (const l of report.filter((r) => r.outcome === 'not-attempted'))
      expect(l.message).toMatch(/(look-up by ref that would tell failed|not finished).*--resume/);
    const unfinished = report.filter((l) => l.outcome === 'not-attempted').length;
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({
      rows: ROWS,
      stopped: false,
      state: unfinished > 0 ? 'stopped' : 'finished',
    });

    const second = await runCli([...args, '--report', 'second.csv'], dir, faulty.sb, FAST_CLOCK);
    const again = await readCsv(join(dir, 'second.csv'));
    expect(again).toHaveLength(ROWS);
    const failedAgain = again.filter((l) => l.outcome === 'failed').length;
    const unfinishedAgain = again.filter((l) => l.outcome === 'not-attempted').length;
    expect(second.code, second.stderr).toBe(failedAgain + unfinishedAgain > 0 ? 1 : 0);
    for (const l of again) expect(['created', 'unchanged', 'failed', 'not-attempted']).toContain(l.outcome);

    // No record twice; every row not failed is there (an unfinished one's create may or may not be).
    const products = await productsByRef(faulty.sb);
    expect(products.duplicates).toEqual([]);
    expect(products.records).toBeGreaterThanOrEqual(ROWS - failedAgain - unfinishedAgain);
    expect(products.records).toBeLessThanOrEqual(ROWS - failedAgain);
  }, 900_000);

  for (const gone of ['failing', 'refusing'] as const) {
    const title =
      gone === 'failing'
        ? 'a service that answers 500 to everything: stops after --max-failed-batches, exit 2, every row in the report'
        : 'a service that refuses connections past --outage-budget: interrupted, exit 2, every row in the report';
    it(title, async () => {
      // 500s are failures of the service that answers (rows fail, batches count); a port nobody listens
      // on cannot be reached at all (the run waits for it, then stops as interrupted).
      const down = gone === 'failing' ? await failingServer() : undefined;
      const port = down?.port ?? (await closedPort());
      const connection = await connect({
        settings: {
          catalogUrl: `http://127.0.0.1:${port}/catalog`,
          apiKey: 'k',
          rateLimit: null,
          maxAttempts: 2,
          outageBudgetMs: 1_000,
        },
        env: FAST_CLOCK,
      });
      const live = await connect({
        settings: { catalogUrl: healthy.sb.catalogUrl, apiKey: healthy.sb.apiKey },
        env: {},
      });
      const model = await live.tenant.model();
      await live.close();
      const rows = ['prod_ref,prod_title'];
      for (let i = 1; i <= 250; i++) rows.push(`GONE${gone}-${i},Item ${i}`);
      const feed = await writeFeed(dir, `gone-${gone}.csv`, rows.join('\n'));
      const reportFile = join(dir, `gone-${gone}.report.csv`);
      const stateDir = join(dir, `gone-${gone}-state`);
      const base = {
        source: feed,
        profile: { entity: 'products' },
        model,
        dam: () => connection.dam,
        batchSize: 10,
        maxFailedBatches: 3,
        reportFile,
        stateDir,
      };
      try {
        const summary = await importFile({ ...base, catalog: connection.catalog });
        const report = await readCsv(reportFile);
        expect(report).toHaveLength(250);
        expect(report[249]!.outcome).toBe('not-attempted');
        if (gone === 'failing') {
          expect(summary).toMatchObject({ stopped: true, stopReason: 'service', exitCode: 2, rows: 250 });
          expect(summary.outcomes).toMatchObject({ failed: 30, 'not-attempted': 220 });
          expect(report[0]!.message).toMatch(/^API_SERVER after 2 tries/);
        } else {
          // No row failed for a reason of its own: the first batch's rows were not finished either.
          expect(summary).toMatchObject({
            stopped: true,
            stopReason: 'outage',
            state: 'interrupted',
            exitCode: 2,
            rows: 250,
          });
          expect(summary.outcomes).toMatchObject({ failed: 0, 'not-attempted': 250 });
          expect(report[0]!.message).toMatch(/^not finished: the service could not be reached/);
        }

        // The service is back: --resume tries the failed and the not-attempted rows, and completes.
        const back = await connect({
          settings: { catalogUrl: healthy.sb.catalogUrl, apiKey: healthy.sb.apiKey, rateLimit: null },
          env: FAST_CLOCK,
        });
        try {
          const resumed = await importFile({ ...base, catalog: back.catalog, resume: true });
          expect(resumed).toMatchObject({ exitCode: 0, state: 'finished', rows: 250, runId: summary.runId });
          expect(resumed.outcomes).toMatchObject({ created: 250, failed: 0, 'not-attempted': 0 });
          const again = await readCsv(reportFile);
          expect(again).toHaveLength(250);
          expect(new Set(again.map((l) => l.outcome))).toEqual(new Set(['created']));
        } finally {
          await back.close();
        }
      } finally {
        await connection.close();
        await down?.close();
      }
    }, 300_000);
  }
});

/** A catalog that answers 500 to every request. */
async function failingServer(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createHttpServer((req, res) => {
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"message":"Internal server error"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
