// With --json every ending of a command prints one JSON object on stdout, refusals included: a run
// refused because another holds the lock (exit 75) or stopped while it waits for it, bad flags, a missing
// file or config file (exit 2), and `runs report --json`, which printed nothing either.
// The object is the console's error shape (`error`, `code`) with the exit code; the stderr line stays.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli-process.js';
import { useSandbox } from '../helpers/sandbox.js';
import { runCli, runIds, startCli } from '../runner/import.nightly.support.js';
import { tempDir, writeFeed } from '../runner/import.support.js';

const fixture = useSandbox({ seed: 'empty' });

/** stdout as the one JSON object it must be. */
function oneObject(stdout: string): Record<string, unknown> {
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines, stdout).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe('--json: every ending prints one JSON object on stdout', () => {
  it('an import refused by the lock (LOCKED, exit 75) or stopped while it waits for it; runs report', async () => {
    const cwd = tempDir('json-locked');
    const rows = ['prod_ref,prod_title'];
    for (let i = 1; i <= 200; i++) rows.push(`JL-${i},Item ${i}`);
    const feed = await writeFeed(cwd, 'products.csv', rows.join('\n'));
    const args = ['import', feed, '--batch-size', '50', '--rate-limit', 'off'];
    const holder = startCli(args, cwd, fixture.sb, { CATALOG_IO_TEST_PAUSE_AT: 'batch:2' });
    try {
      await holder.waitFor('paused at batch:2');
      const [runId] = await runIds(cwd);
      const refused = await runCli([...args, '--json'], tempDir('json-locked-2'), fixture.sb);
      expect(refused.code, refused.stderr).toBe(75);
      const end = oneObject(refused.stdout);
      expect(end).toMatchObject({ code: 'LOCKED', exitCode: 75 });
      expect(end.error).toContain(`run ${runId}`);
      // The line on stderr is said as without --json.
      expect(refused.stderr).toContain('[LOCKED]');
      // Without --json, stdout stays empty: the refusal is on stderr.
      const plain = await runCli(args, tempDir('json-locked-3'), fixture.sb);
      expect(plain.code, plain.stderr).toBe(75);
      expect(plain.stdout).toBe('');
      // Stopped (SIGTERM) while it waits for the lock, before its first row: said too.
      const waiter = startCli([...args, '--json', '--wait-lock', '60'], tempDir('json-locked-4'), fixture.sb);
      await waiter.waitFor('waiting up to 60 s for the lock');
      waiter.process.kill('SIGTERM');
      const stopped = await waiter.exited;
      expect(stopped.code, stopped.stderr).toBe(143);
      expect(oneObject(stopped.stdout)).toMatchObject({ code: 'API_STOPPED', exitCode: 143 });
      expect(stopped.stderr).toContain('before the first row: nothing was written');
    } finally {
      holder.process.kill('SIGKILL');
      await holder.exited;
    }
    // A run's report written from its journal says so too.
    const [runId] = await runIds(cwd);
    const report = await runCliProcess(['runs', 'report', runId!, '--out', 'again.csv', '--json'], { cwd });
    expect(report.code, report.stderr).toBe(0);
    expect(oneObject(report.stdout)).toEqual({ runId, report: 'again.csv' });
  }, 120_000);

  it('bad flags, a missing file or config file: the error and its code, exit 2', async () => {
    const cwd = tempDir('json-refused');
    writeFileSync(join(cwd, 'feed.csv'), 'prod_ref,prod_title\nA,a\n');
    writeFileSync(join(cwd, 'broken.json'), '{ "catalogUrl": ');
    const cases: Array<{ args: string[]; code: string }> = [
      { args: ['import', '--json'], code: 'CONFIG_INVALID' },
      { args: ['import', 'feed.csv', '--json', '--mode', 'sideways'], code: 'CONFIG_INVALID' },
      { args: ['runs', '--json', '--bogus'], code: 'CONFIG_INVALID' },
      { args: ['export', '--out', '-', '--json'], code: 'CONFIG_INVALID' },
      { args: ['validate', 'missing.csv', '--json'], code: 'SOURCE_NOT_FOUND' },
      { args: ['validate', 'feed.csv', '--json', '--config', 'missing.json'], code: 'CONFIG_MISSING' },
      { args: ['validate', 'feed.csv', '--json', '--config', 'broken.json'], code: 'CONFIG_INVALID' },
      { args: ['--json'], code: 'CONFIG_INVALID' },
    ];
    for (const { args, code } of cases) {
      const run = await runCliProcess(args, { cwd, timeoutMs: 60_000 });
      const what = `catalog-io ${args.join(' ')}:\n${run.stderr}`;
      expect(run.code, what).toBe(2);
      const end = oneObject(run.stdout);
      expect(end, what).toMatchObject({ code, exitCode: 2 });
      expect(typeof end.error).toBe('string');
      // The same sentence as on stderr, without its prefix and code.
      expect(run.stderr, what).toContain(`catalog-io: ${end.error} [${code}]`);
    }
    // Without --json (or with --no-json), stdout stays empty.
    for (const args of [['import'], ['validate', 'missing.csv', '--json', '--no-json']]) {
      const run = await runCliProcess(args, { cwd, timeoutMs: 60_000 });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
    }
  }, 120_000);
});
