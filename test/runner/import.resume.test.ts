// An import killed with SIGKILL at five points (before the first write, mid-batch, between batches,
// during the DAM step, during the last batch), each time resumed with --resume, ends exactly where an
// uninterrupted run ends: the same tenant, each ref once, the same report and exit code.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import {
  comparable,
  journalRecords,
  productsByRef,
  runCli,
  runIds,
  startCli,
  summaryOf,
} from './import.nightly.support.js';
import { damImages, readCsv, tempDir, writeFeed } from './import.support.js';

const ROWS = 4000;
const faults = { seed: 'empty' as const, faultRate: 0.02, resetRate: 0.02 };
const clean = useSandbox({ ...faults, randomSeed: 3 });
const crashy = useSandbox({ ...faults, randomSeed: 5 });
let dir: string;

function feedText(assetsUrl: string): string {
  const rows = ['prod_ref,prod_title,prod_weight,prod_images'];
  for (let i = 1; i <= ROWS; i++) {
    // Two images per batch of 100, so every batch has a DAM step.
    const image = i % 50 === 1 ? `${assetsUrl}/night-${i}.jpg?w=8&h=8` : '';
    rows.push(`NR-${i},Item ${i},${(i % 97) + 0.5},${image}`);
  }
  return rows.join('\n');
}

beforeAll(() => {
  dir = tempDir('import-resume');
});

/**
 * The client's waits (the 503s' Retry-After of 1 s, retry backoff) at a tenth of real time: the faults
 * are still retried through, the kills and resumes are what is tested, not how long a retry waits.
 */
const SCALED = { CATALOG_IO_TEST_TIME_SCALE: '0.1' };

const args = (feed: string) => [
  'import',
  feed,
  '--report',
  'report.csv',
  '--concurrency',
  '16',
  '--rate-limit',
  'off',
];

describe('resume after kill -9', () => {
  it('five kill points, then --resume: tenant, refs, report and exit code as a clean run', async () => {
    const cleanDir = join(dir, 'clean');
    const crashDir = join(dir, 'crash');
    mkdirSync(cleanDir);
    mkdirSync(crashDir);
    const cleanFeed = await writeFeed(cleanDir, 'feed.csv', feedText(clean.sb.assetsUrl));
    const crashFeed = await writeFeed(crashDir, 'feed.csv', feedText(crashy.sb.assetsUrl));

    const reference = await runCli(args(cleanFeed), cleanDir, clean.sb, SCALED);
    expect(reference.code, reference.stderr).toBe(0);

    const killAt = async (point: string, resume: boolean) => {
      const child = startCli([...args(crashFeed), ...(resume ? ['--resume'] : [])], crashDir, crashy.sb, {
        ...SCALED,
        CATALOG_IO_TEST_PAUSE_AT: point,
      });
      await child.waitFor(`paused at ${point}`, 120_000);
      child.process.kill('SIGKILL');
      const end = await child.exited;
      expect(end.signal).toBe('SIGKILL');
      // What a kill leaves is a valid CSV up to its last whole line.
      const text = readFileSync(join(crashDir, 'report.csv'), 'utf8');
      expect(text.startsWith('location,') && text.endsWith('\r\n')).toBe(true);
      expect(Papa.parse(text, { header: true, delimiter: ',', skipEmptyLines: true }).errors).toEqual([]);
    };

    await killAt('batch:1', false);
    const [runId] = await runIds(crashDir);
    expect(journalRecords(crashDir, runId!).filter((r) => r.t === 'row')).toHaveLength(0);
    await killAt('write:3', true);
    // The marker of the batch in flight is on disk before its writes.
    const afterMidBatch = journalRecords(crashDir, runId!);
    expect(afterMidBatch[afterMidBatch.length - 1]!.t).toBe('inflight');
    await killAt('done:6', true);
    await killAt('dam', true);
    const finished = journalRecords(crashDir, runId!).filter((r) => r.t === 'row').length;
    const lastBatch = Math.ceil((ROWS - finished) / 100);
    await killAt(`write:${lastBatch}`, true);

    const resumed = await runCli([...args(crashFeed), '--resume'], crashDir, crashy.sb, SCALED);
    expect(resumed.code, resumed.stderr).toBe(reference.code);
    // Still one run: each resume continued it.
    expect(await runIds(crashDir)).toEqual([runId]);
    expect((await summaryOf(crashDir, runId!)).state).toBe('finished');

    const want = await productsByRef(clean.sb);
    const got = await productsByRef(crashy.sb);
    expect(got.duplicates).toEqual([]);
    expect(got.records).toBe(ROWS);
    expect(got.byRef).toEqual(want.byRef);
    const images = (await damImages(crashy.sb)).map((i) => String(i.reference));
    expect(new Set(images).size).toBe(images.length);
    expect(images).toHaveLength(ROWS / 50);

    const wantReport = await readCsv(join(cleanDir, 'report.csv'));
    const gotReport = await readCsv(join(crashDir, 'report.csv'));
    expect(gotReport).toHaveLength(ROWS);
    expect(comparable(gotReport)).toEqual(comparable(wantReport));
    expect(new Set(gotReport.map((l) => l.outcome))).toEqual(new Set(['created']));

    const listed = await runCli(['runs', '--json'], crashDir, crashy.sb);
    const runs = JSON.parse(listed.stdout) as Array<{
      runId: string;
      state: string;
      outcomes: Record<string, number>;
    }>;
    expect(runs[0]).toMatchObject({ runId, state: 'finished', outcomes: { created: ROWS } });
  }, 900_000);
});
