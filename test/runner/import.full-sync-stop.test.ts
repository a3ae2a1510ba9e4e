// A full sync stopped in its deletions (SIGTERM) is interrupted, not finished with failed rows: the
// records not deleted yet are `not-attempted`, the exit code is 143, and `--resume` deletes them, each
// named once in the report.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, useSandbox } from '../helpers/sandbox.js';
import { runCli, runIds, startCli, summaryOf } from './import.nightly.support.js';
import { byRef, readCsv, tempDir, writeFeed } from './import.support.js';

// Each request takes ~40 ms: the deletions last long enough to be stopped among them.
const fixture = useSandbox({ seed: 'empty', latencyMs: 40 });
let cwd: string;

const feedOf = (to: number) => {
  const rows = ['prod_ref,prod_title'];
  for (let i = 1; i <= to; i++) rows.push(`FX-${i},Item ${i}`);
  return rows.join('\n');
};

beforeAll(async () => {
  cwd = tempDir('import-full-sync-stop');
  const all = await writeFeed(cwd, 'all.csv', feedOf(300));
  const seeded = await runCli(['import', all, '--rate-limit', 'off', '--concurrency', '16'], cwd, fixture.sb);
  expect(seeded.code, seeded.stderr).toBe(0);
}, 300_000);

async function deletes(): Promise<number> {
  const body = (await call(fixture.sb.origin, '/_sandbox/stats')).body as {
    byMethod: Record<string, number>;
  };
  return body.byMethod.DELETE ?? 0;
}

describe('--missing delete stopped in its deletions', () => {
  it('SIGTERM: exit 143, interrupted, the rest not-attempted; --resume deletes them, each once', async () => {
    const half = await writeFeed(cwd, 'half.csv', feedOf(100));
    const args = [
      'import',
      half,
      '--missing',
      'delete',
      '--max-missing',
      '80%',
      '--report',
      'r.csv',
      '--rate-limit',
      'off',
      '--concurrency',
      '2',
    ];
    const run = startCli(args, cwd, fixture.sb);
    const started = Date.now();
    while ((await deletes()) < 5 && Date.now() - started < 60_000)
      await new Promise((r) => setTimeout(r, 50));
    run.process.kill('SIGTERM');
    const end = await run.exited;
    expect(end.code, end.stderr).toBe(143);
    const ids = await runIds(cwd);
    const runId = ids.at(-1)!;
    expect(await summaryOf(cwd, runId)).toMatchObject({ state: 'interrupted' });
    const first = await readCsv(join(cwd, 'r.csv'));
    const missing = first.filter((l) => l.location === 'not in the feed');
    expect(missing).toHaveLength(200);
    expect(missing.filter((l) => l.outcome === 'failed')).toEqual([]);
    const deleted = missing.filter((l) => l.outcome === 'deleted').length;
    expect(deleted).toBeGreaterThan(0);
    expect(missing.filter((l) => l.outcome === 'not-attempted')).toHaveLength(200 - deleted);

    const resumed = await runCli([...args, '--resume'], cwd, fixture.sb);
    expect(resumed.code, resumed.stderr).toBe(0);
    const lines = await readCsv(join(cwd, 'r.csv'));
    const gone = lines.filter((l) => l.location === 'not in the feed');
    expect(gone.map((l) => l.outcome)).toEqual(new Array(200).fill('deleted'));
    expect(new Set(gone.map((l) => l.ref)).size).toBe(200);
    expect((await byRef(fixture.sb, '/Products', 'prod_ref')).size).toBe(100);
  }, 300_000);
});
