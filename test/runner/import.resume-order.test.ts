// A resumed run's report is the report of one uninterrupted run of the same file, line by line and in
// the same order, also when the rows left unfinished are in the middle of the file (rows after them
// were finished by the attempt before: a category whose POST is uncertain, a write cut by SIGTERM):
// the rows finished before are not put first.
// The CLI as a child process; the first attempt through a loopback fault proxy in front of one sandbox,
// the uninterrupted run against a second, clean sandbox.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { useFaultProxy } from '../helpers/fault-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { runCli, runIds, startCli } from './import.nightly.support.js';
import { byRef, readCsv, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
const clean = useSandbox({ seed: 'empty' });
const proxy = useFaultProxy(() => fixture.sb.catalogUrl);
let dir: string;

beforeAll(() => {
  dir = tempDir('import-resume-order');
});

const args = (...more: string[]) => [
  'import',
  'feed.csv',
  '--profile',
  'profile.json',
  '--report',
  'report.csv',
  '--rate-limit',
  'off',
  ...more,
];

/** The first category POST is made and its answer lost; every look-up of categories after it fails. */
function loseThenFailLookups() {
  let lost = false;
  return {
    kind: 'script' as const,
    answer: (method: string, path: string) => {
      if (!lost && method === 'POST' && /\/Categories\b/.test(path)) {
        lost = true;
        return 'lose' as const;
      }
      if (lost && method === 'GET' && /\/Categories\b/.test(path)) return 500;
      return 'pass' as const;
    },
  };
}

/**
 * A report's lines with each id checked against the tenant's record of its ref and then left out (two
 * tenants give their records ids of their own); everything else as written.
 */
async function withoutIds(file: string, sb: SandboxHandle): Promise<Array<Record<string, string>>> {
  const products = await byRef(sb, '/Products', 'prod_ref');
  return (await readCsv(file)).map((line) => {
    expect(line.id, `${line.ref}: ${line.message}`).toBe(String(products.get(line.ref!)?.prod_id));
    return { ...line, id: '' };
  });
}

describe('a resumed report in the order of the file', () => {
  it('rows not finished in the middle (a category whose POST is uncertain): the resumed report is, line by line, the uninterrupted run’s', async () => {
    const feed = [
      'SKU,Name,Categories',
      'ORD-1,Trowel,',
      'ORD-2,Spade,Ord Garden > Tools',
      'ORD-3,Rake,',
      'ORD-4,Hoe,Ord Garden',
      'ORD-5,Fork,',
    ].join('\n');
    const profile = JSON.stringify({
      entity: 'products',
      columns: {
        SKU: 'prod_ref',
        Name: 'prod_title',
        Categories: { field: 'cat_refs', categoryPath: { separator: ' > ' } },
      },
    });
    const resumedDir = join(dir, 'resumed');
    const wholeDir = join(dir, 'whole');
    mkdirSync(resumedDir);
    mkdirSync(wholeDir);
    await writeFeed(resumedDir, 'feed.csv', feed);
    await writeFeed(resumedDir, 'profile.json', profile);
    copyFileSync(join(resumedDir, 'feed.csv'), join(wholeDir, 'feed.csv'));
    copyFileSync(join(resumedDir, 'profile.json'), join(wholeDir, 'profile.json'));

    await proxy.set(loseThenFailLookups());
    const env = { CATALOG_URL: proxy.via(fixture.sb.catalogUrl), CATALOG_IO_TEST_TIME_SCALE: '0.05' };
    const first = await runCli(args(), resumedDir, fixture.sb, env);
    expect(proxy.faulted.lost).toBe(1);
    expect(first.code, first.stderr).not.toBe(0);
    // The rows in the middle are left unfinished, the ones after them done.
    expect((await readCsv(join(resumedDir, 'report.csv'))).map((l) => [l.ref, l.outcome])).toEqual([
      ['ORD-1', 'created'],
      ['ORD-2', 'not-attempted'],
      ['ORD-3', 'created'],
      ['ORD-4', 'not-attempted'],
      ['ORD-5', 'created'],
    ]);

    await proxy.set({ kind: 'pass' });
    const resumed = await runCli(args('--resume'), resumedDir, fixture.sb, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming run \S+: 3 rows done, 2 to go/);

    const whole = await runCli(args(), wholeDir, clean.sb);
    expect(whole.code, whole.stderr).toBe(0);

    const resumedLines = await withoutIds(join(resumedDir, 'report.csv'), fixture.sb);
    const wholeLines = await withoutIds(join(wholeDir, 'report.csv'), clean.sb);
    expect(wholeLines.map((l) => [l.ref, l.outcome])).toEqual([
      ['ORD-1', 'created'],
      ['ORD-2', 'created'],
      ['ORD-3', 'created'],
      ['ORD-4', 'created'],
      ['ORD-5', 'created'],
    ]);
    // Line by line, order included.
    expect(resumedLines).toEqual(wholeLines);

    // The report written from the journal (`runs report`, and an XLSX report) is in the same order.
    const [runId] = await runIds(resumedDir);
    const fromJournal = await runCli(
      ['runs', 'report', runId!, '--out', 'from-journal.csv'],
      resumedDir,
      fixture.sb,
    );
    expect(fromJournal.code, fromJournal.stderr).toBe(0);
    expect(await withoutIds(join(resumedDir, 'from-journal.csv'), fixture.sb)).toEqual(wholeLines);
  }, 90_000);

  it('a row cut by a signal while the rows after it were written: the resumed report is, line by line, the uninterrupted run’s', async () => {
    const refs = ['SIG-1', 'SIG-2', 'SIG-3', 'SIG-4', 'SIG-5'];
    const feed = (v: string) => ['prod_ref,prod_title', ...refs.map((r) => `${r},${r} ${v}`)].join('\n');
    const plain = ['import', 'feed.csv', '--report', 'report.csv', '--rate-limit', 'off'];
    const resumedDir = join(dir, 'signal-resumed');
    const wholeDir = join(dir, 'signal-whole');
    // Both tenants hold the records first; the feed then changes every title.
    for (const [cwd, sb] of [
      [resumedDir, fixture.sb],
      [wholeDir, clean.sb],
    ] as const) {
      mkdirSync(cwd);
      await writeFeed(cwd, 'feed.csv', feed('one'));
      const before = await runCli(plain, cwd, sb);
      expect(before.code, before.stderr).toBe(0);
      await writeFeed(cwd, 'feed.csv', feed('two'));
    }

    // The PATCH of SIG-2 is held; the others are written; then SIGTERM.
    const id = (await byRef(fixture.sb, '/Products', 'prod_ref')).get('SIG-2')!.prod_id;
    await proxy.set({ kind: 'hang', paths: new RegExp(`/Products\\(${id}\\)$`) });
    const env = { CATALOG_URL: proxy.via(fixture.sb.catalogUrl), CATALOG_IO_TEST_TIME_SCALE: '0.05' };
    const child = startCli(plain, resumedDir, fixture.sb, env);
    const others = async () => {
      const now = await byRef(fixture.sb, '/Products', 'prod_ref');
      return refs.filter((r) => r !== 'SIG-2').every((r) => now.get(r)!.prod_title === `${r} two`);
    };
    for (let waited = 0; !proxy.faulted.hang || !(await others()); waited += 50) {
      if (waited > 30_000) throw new Error(`the writes never came:\n${child.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.process.kill('SIGTERM');
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(143);
    expect((await readCsv(join(resumedDir, 'report.csv'))).map((l) => [l.ref, l.outcome])).toEqual([
      ['SIG-1', 'updated'],
      ['SIG-2', 'not-attempted'],
      ['SIG-3', 'updated'],
      ['SIG-4', 'updated'],
      ['SIG-5', 'updated'],
    ]);

    await proxy.set({ kind: 'pass' });
    const resumed = await runCli([...plain, '--resume'], resumedDir, fixture.sb, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const whole = await runCli(plain, wholeDir, clean.sb);
    expect(whole.code, whole.stderr).toBe(0);

    const wholeLines = await withoutIds(join(wholeDir, 'report.csv'), clean.sb);
    expect(wholeLines.map((l) => [l.ref, l.outcome])).toEqual(refs.map((r) => [r, 'updated']));
    expect(await withoutIds(join(resumedDir, 'report.csv'), fixture.sb)).toEqual(wholeLines);
  }, 90_000);
});
