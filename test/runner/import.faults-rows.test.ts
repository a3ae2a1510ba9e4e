// Faults fail rows, not the run: under 10% 5xx and 20% connection resets a 3,000-row import finishes
// with one report line per row, and a second run converges with no duplicate. When the service is
// clearly gone (batches failing in a row), the run stops with exit 2 and every row is still reported.
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/config/index.js';
import { importFile } from '../../src/runner/import/run.js';
import { useSandbox } from '../helpers/sandbox.js';
import { productsByRef, runCli } from './import.nightly.support.js';
import { readCsv, tempDir, writeFeed } from './import.support.js';

const ROWS = 3000;
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

    const first = await runCli([...args, '--report', 'first.csv', '--json'], dir, faulty.sb);
    expect([0, 1], first.stderr).toContain(first.code);
    const report = await readCsv(join(dir, 'first.csv'));
    expect(report).toHaveLength(ROWS);
    expect(new Set(report.map((l) => l.ref)).size).toBe(ROWS);
    for (const l of report) expect(['created', 'failed']).toContain(l.outcome);
    // A failed row says what failed and after how many tries.
    for (const l of report.filter((r) => r.outcome === 'failed')) expect(l.message).toMatch(/API_\w+/);
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({ rows: ROWS, stopped: false, state: 'finished' });

    const second = await runCli([...args, '--report', 'second.csv'], dir, faulty.sb);
    const again = await readCsv(join(dir, 'second.csv'));
    expect(again).toHaveLength(ROWS);
    const failedAgain = again.filter((l) => l.outcome === 'failed').length;
    expect(second.code, second.stderr).toBe(failedAgain > 0 ? 1 : 0);
    for (const l of again) expect(['created', 'unchanged', 'failed']).toContain(l.outcome);

    const products = await productsByRef(faulty.sb);
    expect(products.duplicates).toEqual([]);
    expect(products.records).toBe(ROWS - failedAgain);
  }, 900_000);

  it('the service gone: stops after --max-failed-batches, exit 2, every row in the report', async () => {
    // A port nobody listens on: every request is refused, each after its retries.
    const gone = await closedPort();
    const connection = await connect({
      settings: {
        catalogUrl: `http://127.0.0.1:${gone}/catalog`,
        apiKey: 'k',
        rateLimit: null,
        maxAttempts: 2,
      },
      env: {},
    });
    const live = await connect({
      settings: { catalogUrl: healthy.sb.catalogUrl, apiKey: healthy.sb.apiKey },
      env: {},
    });
    const model = await live.tenant.model();
    await live.close();
    const rows = ['prod_ref,prod_title'];
    for (let i = 1; i <= 250; i++) rows.push(`GONE-${i},Item ${i}`);
    const feed = await writeFeed(dir, 'gone.csv', rows.join('\n'));
    const reportFile = join(dir, 'gone.report.csv');
    const stateDir = join(dir, 'gone-state');
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
      expect(summary).toMatchObject({ stopped: true, stopReason: 'service', exitCode: 2, rows: 250 });
      expect(summary.outcomes).toMatchObject({ failed: 30, 'not-attempted': 220 });
      const report = await readCsv(reportFile);
      expect(report).toHaveLength(250);
      expect(report[0]!.message).toMatch(/^API_NETWORK after 2 tries/);
      expect(report[249]!.outcome).toBe('not-attempted');

      // The service is back: --resume tries the failed and the not-attempted rows, and completes.
      const back = await connect({
        settings: { catalogUrl: healthy.sb.catalogUrl, apiKey: healthy.sb.apiKey, rateLimit: null },
        env: {},
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
    }
  }, 300_000);
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
