// A resumed run's record (the console's /api/runs/<id>) is the new attempt's: while it runs it shows
// no end of the attempt before (its message, requests, finishedAt, exit code), and once killed it is
// `crashed` with a crash message of its own, not the previous attempt's `Interrupted (SIGTERM) ...`.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../src/console/server.js';
import { useSandbox } from '../helpers/sandbox.js';
import { runCli, runIds, startCli, untilJournaled } from './import.nightly.support.js';
import { tempDir, writeFeed } from './import.support.js';

const ROWS = 600;
const fixture = useSandbox({ seed: 'empty', latencyMs: 5 });
let cwd: string;
let feed: string;

beforeAll(async () => {
  cwd = join(tempDir('import-resume-record'), 'work');
  mkdirSync(cwd);
  const rows = ['prod_ref,prod_title'];
  for (let i = 1; i <= ROWS; i++) rows.push(`RR-${i},Item ${i}`);
  feed = await writeFeed(cwd, 'feed.csv', rows.join('\n'));
});

const args = () => ['import', feed, '--report', 'report.csv', '--batch-size', '20', '--rate-limit', 'off'];

describe('a resumed run', () => {
  it('shows no end of the attempt before while it runs, and a crash message of its own once killed', async () => {
    const first = startCli(args(), cwd, fixture.sb);
    await untilJournaled(cwd, 100);
    first.process.kill('SIGTERM');
    expect((await first.exited).code).toBe(143);
    const [runId] = await runIds(cwd);

    const consoleHandle = await startConsole({ stateDir: join(cwd, '.catalog-io'), port: 0 });
    const run = async () => {
      const res = await request(`${consoleHandle.url}/api/runs/${runId}`);
      return (await res.body.json()) as Record<string, unknown>;
    };
    try {
      const interrupted = await run();
      expect(interrupted).toMatchObject({ state: 'interrupted', exitCode: 143 });
      expect(String(interrupted.message)).toContain('Interrupted (SIGTERM)');

      const resumed = startCli([...args(), '--resume', runId!], cwd, fixture.sb, {
        CATALOG_IO_TEST_PAUSE_AT: 'batch:3',
      });
      try {
        await resumed.waitFor('paused at batch:3');
        const running = await run();
        expect(running.state).toBe('running');
        expect(running.resumes).toBe(1);
        for (const key of ['message', 'finishedAt', 'requests', 'exitCode'])
          expect(running[key], `${key}: ${JSON.stringify(running)}`).toBeUndefined();
      } finally {
        resumed.process.kill('SIGKILL');
        await resumed.exited;
      }
      const crashed = await run();
      expect(crashed.state).toBe('crashed');
      expect(crashed.finishedAt).toBeUndefined();
      expect(crashed.exitCode).toBeUndefined();
      expect(String(crashed.message)).not.toContain('Interrupted');
      expect(String(crashed.message)).toMatch(
        /^Crashed after \d+ rows: its process \(pid \d+ on .+, resumed 1 time\)/,
      );
      expect(String(crashed.message)).toContain(`--resume ${runId}`);
    } finally {
      await consoleHandle.close();
    }
    // The crashed attempt resumes to the end, and its summary is that attempt's.
    const last = await runCli([...args(), '--resume', runId!], cwd, fixture.sb);
    expect(last.code, last.stderr).toBe(0);
  }, 300_000);
});
