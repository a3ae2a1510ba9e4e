// One import per tenant and entity at a time: a second one is refused before it reads its source
// (exit 75, naming the running run), rows of neither fail; --wait-lock waits instead; a lock whose
// process is gone is taken over with a warning.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, useSandbox } from '../helpers/sandbox.js';
import { productsByRef, runCli, runIds, startCli } from './import.nightly.support.js';
import { readCsv, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let cwd: string;
let feed: string;

/** Requests the sandbox has answered so far. */
async function requestsSoFar(): Promise<number> {
  return ((await call(fixture.sb.origin, '/_sandbox/stats')).body as { total: number }).total;
}

/** This machine's lock folder in the tests (the user's state folder, moved by temp-root.ts). */
const lockDir = () => join(process.env.XDG_STATE_HOME!, 'catalog-io', 'locks');

beforeAll(async () => {
  cwd = tempDir('import-lock');
  const rows = ['prod_ref,prod_title'];
  for (let i = 1; i <= 300; i++) rows.push(`LK-${i},Item ${i}`);
  // Named as the export names a products file: its entity is known before anything is asked (a file
  // named otherwise reads the schemas first, to place it by its header).
  feed = await writeFeed(cwd, 'products.csv', rows.join('\n'));
});

const args = (report: string) => [
  'import',
  feed,
  '--report',
  report,
  '--batch-size',
  '50',
  '--rate-limit',
  'off',
];

describe('one run at a time', () => {
  it('a second import of the same entity is refused with exit 75, naming the run; a dead holder is taken over', async () => {
    const first = startCli(args('first.csv'), cwd, fixture.sb, { CATALOG_IO_TEST_PAUSE_AT: 'batch:2' });
    await first.waitFor('paused at batch:2');
    const [runId] = await runIds(cwd);

    // The same feed from another working folder meets the same lock (one place per machine), and a
    // refused run asks the tenant nothing: not even its schemas.
    const elsewhere = tempDir('import-lock-elsewhere');
    const requestsBefore = await requestsSoFar();
    const second = await runCli(
      [...args('second.csv'), '--summary', join(cwd, 'second.summary.json')],
      elsewhere,
      fixture.sb,
    );
    expect(second.code, second.stderr).toBe(75);
    expect(await requestsSoFar()).toBe(requestsBefore);
    expect(existsSync(join(elsewhere, '.catalog-io', 'locks'))).toBe(false);
    // A scheduler reading --summary learns of the refusal, not of an older run.
    const refusal = JSON.parse(readFileSync(join(cwd, 'second.summary.json'), 'utf8'));
    expect(refusal).toMatchObject({ exitCode: 75, state: 'stopped', rows: 0 });
    expect(refusal.message).toContain(`run ${runId}`);
    expect(second.stderr).toContain('[LOCKED]');
    expect(second.stderr).toContain(`run ${runId}`);
    expect(second.stderr).toContain(`pid ${first.process.pid}`);
    expect(second.stderr).toContain('wait for it with --wait-lock <seconds>');
    // A run that waited and is still refused is not advised to wait: it did.
    const waited = await runCli([...args('waited.csv'), '--wait-lock', '1'], elsewhere, fixture.sb);
    expect(waited.code, waited.stderr).toBe(75);
    expect(waited.stderr).toContain('still running after 1 s of --wait-lock: try again when it ends');
    expect(waited.stderr).not.toContain('wait for it with --wait-lock');
    // Refused before anything was read or written: no report, no run folder of its own.
    expect(existsSync(join(elsewhere, 'second.csv'))).toBe(false);
    expect(await runIds(cwd)).toEqual([runId]);
    expect(await runIds(elsewhere)).toEqual([]);

    // Another entity of the same tenant is not locked.
    const categories = await writeFeed(cwd, 'cats.csv', 'cat_ref,cat_title\nLK-CAT,Top\n');
    const other = await runCli(
      ['import', categories, '--entity', 'categories', '--rate-limit', 'off'],
      cwd,
      fixture.sb,
    );
    expect(other.code, other.stderr).toBe(0);

    // The holder dies without releasing: the next run takes its lock over at once, and says so.
    first.process.kill('SIGKILL');
    await first.exited;
    const third = await runCli(args('third.csv'), cwd, fixture.sb);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain(`took over the lock of run ${runId}`);
    const report = await readCsv(join(cwd, 'third.csv'));
    expect(report).toHaveLength(300);
    expect(report.filter((l) => l.outcome === 'failed')).toHaveLength(0);
    const products = await productsByRef(fixture.sb);
    expect(products.duplicates).toEqual([]);
    // Released at the end: no lock file is left.
    expect(readdirSync(lockDir()).some((f) => f.endsWith('.json'))).toBe(false);
    expect(readdirSync(lockDir()).filter((f) => f.endsWith('.lock'))).toEqual([]);
    expect(existsSync(join(cwd, '.catalog-io', 'locks'))).toBe(false);
  }, 300_000);

  it('--wait-lock: two imports started together both finish, no row fails', async () => {
    const a = startCli(args('a.csv'), cwd, fixture.sb, { CATALOG_IO_TEST_PAUSE_AT: '' });
    const b = startCli([...args('b.csv'), '--wait-lock', '120'], cwd, fixture.sb);
    const [endA, endB] = await Promise.all([a.exited, b.exited]);
    // Whichever started first ran; the other waited for it (or was refused if it had not asked to wait).
    const codes = [endA.code, endB.code];
    expect(
      codes.every((c) => c === 0 || c === 75),
      `${endA.stderr}\n${endB.stderr}`,
    ).toBe(true);
    expect(endB.code, endB.stderr).toBe(0);
    for (const file of [endA.code === 0 ? 'a.csv' : undefined, 'b.csv'].filter(Boolean) as string[]) {
      const report = await readCsv(join(cwd, file));
      expect(report).toHaveLength(300);
      expect(report.filter((l) => l.outcome === 'failed' || l.outcome === 'invalid')).toHaveLength(0);
    }
  }, 300_000);
});
