// A resume that cannot be fooled or broken: a same-size change in the middle of a 3 MB feed is
// refused by --resume <id> (and a bare --resume starts a new run, marking the old one abandoned); a
// journal missing, cut short or holding a line of the wrong shape is JOURNAL_INVALID with the report
// left byte for byte as it was; a URL source changed since is caught as it is read again; and a
// run killed with SIGKILL (images registered, batches written) and resumed writes a report
// byte-identical to a clean run's, its asset counts included. Child processes, real signals.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { useSandbox } from '../helpers/sandbox.js';
import { journalRecords, runCli, runIds, startCli } from './import.nightly.support.js';
import { tempDir } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let root: string;

beforeAll(() => {
  root = tempDir('resume-checks');
});

const runJson = (cwd: string, id: string) =>
  JSON.parse(readFileSync(join(cwd, '.catalog-io', 'runs', id, 'run.json'), 'utf8')) as Record<
    string,
    unknown
  >;

/** A run killed with SIGKILL where it pauses; its run id. */
async function killedAt(args: string[], cwd: string, sb: SandboxHandle, point: string): Promise<string> {
  const child = startCli(args, cwd, sb, { CATALOG_IO_TEST_PAUSE_AT: point });
  await child.waitFor(`paused at ${point}`, 120_000);
  child.process.kill('SIGKILL');
  expect((await child.exited).signal).toBe('SIGKILL');
  return (await runIds(cwd)).at(-1)!;
}

describe('the source a resume reads', () => {
  it('a same-size change in the middle of a 3 MB feed: --resume <id> refuses, a bare --resume starts anew', async () => {
    const cwd = join(root, 'same-size');
    mkdirSync(cwd);
    // 1,500 rows of 2 KB: 3 MB, the middle far from the first and the last MiB (the filler column
    // matches no field: it is ignored).
    const rows = ['prod_ref,prod_title,prod_weight,filler'];
    for (let i = 1; i <= 1500; i++) rows.push(`SS-${i},Item ${i},${i % 50},${'x'.repeat(2000)}`);
    const feed = join(cwd, 'feed.csv');
    writeFileSync(feed, rows.join('\n'));
    const args = ['import', feed, '--report', 'report.csv', '--batch-size', '50', '--rate-limit', 'off'];
    const runId = await killedAt(args, cwd, fixture.sb, 'done:2');
    const reportBefore = readFileSync(join(cwd, 'report.csv'));

    const text = readFileSync(feed);
    const middle = Math.floor(text.length / 2);
    expect(text[middle]).toBe('x'.charCodeAt(0));
    text[middle] = 'y'.charCodeAt(0);
    writeFileSync(feed, text);

    const refused = await runCli([...args, '--resume', runId], cwd, fixture.sb);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`Cannot resume run ${runId}`);
    expect(refused.stderr).toContain('changed content');
    expect(refused.stderr).toContain('[SOURCE_CHANGED]');
    expect(readFileSync(join(cwd, 'report.csv')).equals(reportBefore)).toBe(true);
    expect(runJson(cwd, runId).state).toBe('running');

    const fresh = await runCli([...args, '--resume'], cwd, fixture.sb);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(
      new RegExp(`changed content.*run ${runId} cannot be continued.*abandoned; starting a new run`),
    );
    const ids = await runIds(cwd);
    expect(ids).toHaveLength(2);
    expect(runJson(cwd, runId).state).toBe('abandoned');
    expect(runJson(cwd, ids[1]!).state).toBe('finished');
    // The new run did every row: those the killed run had written come back unchanged.
    const outcomes = readFileSync(join(cwd, 'report.csv'), 'utf8').split('\r\n').slice(1, -1);
    expect(outcomes).toHaveLength(1500);
  }, 300_000);

  it('a URL source changed since is refused before any write; the same bytes resume', async () => {
    const cwd = join(root, 'url');
    mkdirSync(cwd);
    const feedOf = (title: string) => {
      const rows = ['prod_ref,prod_title'];
      for (let i = 1; i <= 300; i++) rows.push(`URL-${i},${title} ${i}`);
      return rows.join('\n');
    };
    let body = feedOf('First');
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.csv?token=s3cr3t`;
      const args = ['import', url, '--report', 'report.csv', '--batch-size', '20', '--rate-limit', 'off'];
      const runId = await killedAt(args, cwd, fixture.sb, 'done:3');
      expect(journalRecords(cwd, runId).some((r) => r.t === 'src')).toBe(true);
      const reportBefore = readFileSync(join(cwd, 'report.csv'));

      body = feedOf('Other');
      const refused = await runCli([...args, '--resume', runId], cwd, fixture.sb);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('[SOURCE_CHANGED]');
      expect(refused.stderr).not.toContain('s3cr3t');
      expect(readFileSync(join(cwd, 'report.csv')).equals(reportBefore)).toBe(true);

      body = feedOf('First');
      const resumed = await runCli([...args, '--resume', runId], cwd, fixture.sb);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(new RegExp(`resuming run ${runId}: 60 rows done`));
      const report = readFileSync(join(cwd, 'report.csv'), 'utf8').split('\r\n').slice(1, -1);
      expect(report).toHaveLength(300);
      expect(report.every((l) => l.includes(',created,'))).toBe(true);
    } finally {
      server.close();
    }
  }, 300_000);
});

describe('a damaged journal', () => {
  const feedRows = 120;
  async function stoppedRun(name: string): Promise<{ cwd: string; args: string[]; runId: string }> {
    const cwd = join(root, name);
    mkdirSync(cwd);
    const rows = ['prod_ref,prod_title,prod_weight'];
    for (let i = 1; i <= feedRows; i++) rows.push(`${name}-${i},Item ${i},${i === 50 ? 'heavy' : i}`);
    writeFileSync(join(cwd, 'feed.csv'), rows.join('\n'));
    const args = ['import', 'feed.csv', '--report', 'report.csv', '--max-errors', '1', '--batch-size', '10'];
    const first = await runCli([...args, '--rate-limit', 'off'], cwd, fixture.sb);
    expect(first.code, first.stderr).toBe(3);
    return { cwd, args: [...args, '--rate-limit', 'off'], runId: (await runIds(cwd))[0]! };
  }

  const damages: Array<[string, (file: string) => void, RegExp]> = [
    ['missing', (file) => rmSync(file), /is missing/],
    [
      'cut in the middle of a line',
      (file) => {
        const text = readFileSync(file, 'utf8');
        writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
      },
      /cut line.*although the run ended/,
    ],
    [
      'cut at a line end',
      (file) => {
        const lines = readFileSync(file, 'utf8').split('\n');
        writeFileSync(file, `${lines.slice(0, Math.floor(lines.length / 2)).join('\n')}\n`);
      },
      /no end line although the run ended/,
    ],
    [
      'holding a line of the wrong shape',
      (file) => {
        const lines = readFileSync(file, 'utf8').split('\n');
        lines[5] = '{"t":"row","n":5,"line":null}';
        writeFileSync(file, lines.join('\n'));
      },
      /line 6 has a row without a whole report line/,
    ],
    ['emptied', (file) => writeFileSync(file, ''), /is empty/],
  ];

  for (const [what, damage, says] of damages) {
    it(`${what}: JOURNAL_INVALID, exit 2, report and run untouched`, async () => {
      const { cwd, args, runId } = await stoppedRun(`J${damages.findIndex((d) => d[0] === what)}`);
      const journal = join(cwd, '.catalog-io', 'runs', runId, 'rows.jsonl');
      damage(journal);
      const report = readFileSync(join(cwd, 'report.csv'));
      const meta = readFileSync(join(cwd, '.catalog-io', 'runs', runId, 'run.json'));
      for (const resume of [['--resume', runId], ['--resume']]) {
        const end = await runCli([...args, ...resume], cwd, fixture.sb);
        expect(end.code, end.stderr).toBe(2);
        expect(end.stderr).toContain('[JOURNAL_INVALID]');
        expect(end.stderr).toMatch(says);
        expect(end.stderr).toContain('without --resume');
        expect(end.stderr).not.toContain('INTERNAL');
        expect(readFileSync(join(cwd, 'report.csv')).equals(report)).toBe(true);
        expect(readFileSync(join(cwd, '.catalog-io', 'runs', runId, 'run.json')).equals(meta)).toBe(true);
      }
      expect(await runIds(cwd)).toEqual([runId]);
    }, 120_000);
  }
});

describe('--resume on a cron line', () => {
  it('nothing to resume: a new run, and one line that says so', async () => {
    const cwd = join(root, 'cron-none');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'feed.csv'), 'prod_ref,prod_title\nCR-1,One\nCR-2,Two');
    const end = await runCli(['import', 'feed.csv', '--resume', '--rate-limit', 'off'], cwd, fixture.sb);
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toContain('--resume: no unfinished run of');
    expect(end.stderr).toContain('starting a new run');
    expect(await runIds(cwd)).toHaveLength(1);
  }, 60_000);

  it('a run killed during its start-up, before any row, is resumed', async () => {
    const cwd = join(root, 'cron-start');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'feed.csv'), 'prod_ref,prod_title\nCS-1,One\nCS-2,Two');
    const args = ['import', 'feed.csv', '--report', 'report.csv', '--rate-limit', 'off'];
    const runId = await killedAt(args, cwd, fixture.sb, 'start');
    const end = await runCli([...args, '--resume'], cwd, fixture.sb);
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toContain(`resuming run ${runId}: 0 rows done, the rest of the source to go`);
    expect(await runIds(cwd)).toEqual([runId]);
    expect(runJson(cwd, runId).state).toBe('finished');
  }, 60_000);
});

describe('kill -9 and --resume: the report a clean run writes', () => {
  const ROWS = 240;
  let port = 0;
  let sb: SandboxHandle | undefined;
  afterAll(async () => {
    await sb?.close();
  });

  /** A fresh, empty sandbox on the same port each time: the feeds' image URLs are the same. */
  async function freshSandbox(): Promise<SandboxHandle> {
    await sb?.close();
    sb = await startSandbox({ port, seed: 'empty' });
    port = Number(new URL(sb.catalogUrl).port);
    return sb;
  }

  function feedFor(assetsUrl: string): string {
    const rows = ['prod_ref,prod_title,prod_weight,prod_images'];
    for (let i = 1; i <= ROWS; i++) {
      const image = i % 8 === 1 ? `${assetsUrl}/kill-${i}.jpg?w=8&h=8` : '';
      rows.push(`KR-${i},Item ${i},${(i % 13) + 0.5},${image}`);
    }
    return rows.join('\n');
  }

  const args = [
    'import',
    'feed.csv',
    '--report',
    'report.csv',
    '--batch-size',
    '20',
    '--concurrency',
    '1',
    '--rate-limit',
    'off',
    '--json',
  ];

  it('killed during an image registration and between batches, resumed: byte-identical report, same asset counts', async () => {
    const clean = join(root, 'kill-clean');
    const crash = join(root, 'kill-crash');
    mkdirSync(clean);
    mkdirSync(crash);
    let handle = await freshSandbox();
    writeFileSync(join(clean, 'feed.csv'), feedFor(handle.assetsUrl));
    const reference = await runCli(args, clean, handle);
    expect(reference.code, reference.stderr).toBe(0);
    const wantAssets = (JSON.parse(reference.stdout) as { assets: Record<string, number> }).assets;
    expect(wantAssets.registered).toBe(ROWS / 8);

    handle = await freshSandbox();
    writeFileSync(join(crash, 'feed.csv'), feedFor(handle.assetsUrl));
    // Killed once the first image is registered (before its catalog write), then after batch 4.
    const runId = await killedAt(args, crash, handle, 'dam');
    await killedAt([...args, '--resume'], crash, handle, 'done:4');
    expect(journalRecords(crash, runId).some((r) => r.t === 'asset' && r.s === 'registered')).toBe(true);
    const resumed = await runCli([...args, '--resume'], crash, handle);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming run ${runId}`);

    expect(readFileSync(join(crash, 'report.csv'), 'utf8')).toBe(
      readFileSync(join(clean, 'report.csv'), 'utf8'),
    );
    expect((JSON.parse(resumed.stdout) as { assets: Record<string, number> }).assets).toEqual(wantAssets);
  }, 300_000);
});
