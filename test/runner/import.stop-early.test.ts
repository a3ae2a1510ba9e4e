// A run stopped or failed before its first row tells the truth too: a signal while it waits for the
// lock or for `$metadata` exits 130/143 at once (`interrupted`, nothing written), and a service that
// cannot be reached at the start leaves this run's summary (never yesterday's) and no stale report.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { useSandbox } from '../helpers/sandbox.js';
import { runCli, runIds, startCli, summaryOf } from './import.nightly.support.js';
import { tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let cwd: string;
let feed: string;
/** A service that takes requests and never answers them: a start-up that waits. */
let silent: Server;
let silentUrl: string;
/** Requests the silent service has taken. */
let asked = 0;

/** Resolves once `ready()` holds (checked every 50 ms). */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 50));
}

beforeAll(async () => {
  cwd = tempDir('import-stop-early');
  const rows = ['prod_ref,prod_title'];
  for (let i = 1; i <= 200; i++) rows.push(`SE-${i},Item ${i}`);
  feed = await writeFeed(cwd, 'feed.csv', rows.join('\n'));
  silent = createServer(() => {
    asked += 1;
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(() => {
  silent.closeAllConnections();
  silent.close();
});

const flags = ['--batch-size', '50', '--rate-limit', 'off'];

describe('stopped or failed before the first row', () => {
  it('a signal while waiting for the lock: exit 130 at once, no run left, a summary that says so', async () => {
    const first = startCli(['import', feed, ...flags], cwd, fixture.sb, {
      CATALOG_IO_TEST_PAUSE_AT: 'batch:2',
    });
    // The paused run never ends by itself: it is killed whatever the test finds.
    try {
      await first.waitFor('paused at batch:2');
      const before = await runIds(cwd);
      const summary = join(cwd, 'waiting.summary.json');
      const waiting = startCli(
        ['import', feed, ...flags, '--wait-lock', '300', '--summary', summary],
        cwd,
        fixture.sb,
      );
      // In its wait, as it says: a scheduler's log shows why the run has not started.
      await waiting.waitFor(/waiting up to 300 s for the lock of products, held by run \S+ \(pid \d+ on /);
      waiting.process.kill('SIGINT');
      const end = await waiting.exited;
      expect(end.code, end.stderr).toBe(130);
      expect(end.stderr).toContain('interrupted (SIGINT) before the first row: nothing was written');
      expect(JSON.parse(readFileSync(summary, 'utf8'))).toMatchObject({
        state: 'interrupted',
        exitCode: 130,
      });
      expect(await runIds(cwd)).toEqual(before);
    } finally {
      first.process.kill('SIGKILL');
      await first.exited;
    }
  }, 120_000);

  it('a signal while $metadata is awaited: exit 143, the run listed interrupted', async () => {
    const dir = tempDir('import-stop-metadata');
    const service = {
      catalogUrl: `${silentUrl}/catalog`,
      damUrl: `${silentUrl}/dam`,
      apiKey: 'k',
    } as SandboxHandle;
    const before = asked;
    const run = startCli(['import', feed, ...flags, '--summary', 'summary.json'], dir, service);
    // Its `$metadata` request is out, unanswered.
    await until(() => asked > before);
    run.process.kill('SIGTERM');
    const end = await run.exited;
    expect(end.code, end.stderr).toBe(143);
    expect(end.stderr).not.toContain('[API_STOPPED]');
    const [runId] = await runIds(dir);
    expect(await summaryOf(dir, runId!)).toMatchObject({ state: 'interrupted', exitCode: 143 });
  }, 60_000);

  it("a service unreachable at the start: this run's summary, and no report of an earlier run left", async () => {
    const dir = tempDir('import-stop-unreachable');
    writeFileSync(join(dir, 'report.csv'), 'an earlier run\n');
    writeFileSync(join(dir, 'summary.json'), '{"night":"yesterday"}');
    const closed = {
      catalogUrl: 'http://127.0.0.1:9/catalog',
      damUrl: 'http://127.0.0.1:9/dam',
      apiKey: 'k',
    } as SandboxHandle;
    const end = await runCli(
      [
        'import',
        feed,
        ...flags,
        '--report',
        'report.csv',
        '--summary',
        'summary.json',
        '--outage-budget',
        '1s',
      ],
      dir,
      closed,
    );
    expect(end.code, end.stderr).toBe(2);
    expect(end.stderr).toContain('[API_UNREACHABLE]');
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ state: 'interrupted', exitCode: 2, rows: 0 });
    expect(existsSync(join(dir, 'report.csv'))).toBe(false);
    const [runId] = await runIds(dir);
    expect(await summaryOf(dir, runId!)).toMatchObject({ state: 'interrupted' });
  }, 60_000);
});
