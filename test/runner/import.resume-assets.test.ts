// A resumed run's asset counts are those of one uninterrupted run: an image URL that could not be
// registered before the interrupt (its host answers 404) still counts as failed after --resume, as
// do the images registered before it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { runCli, runIds, startCli, summaryOf, untilJournaled } from './import.nightly.support.js';
import { readCsv, tempDir, writeFeed } from './import.support.js';

const ROWS = 1500;
const fixture = useSandbox({ seed: 'empty', latencyMs: 5 });
let cwd: string;
let feed: string;

beforeAll(async () => {
  cwd = join(tempDir('import-resume-assets'), 'work');
  mkdirSync(cwd);
  const rows = ['prod_ref,prod_title,prod_images'];
  rows.push(`RA-1,Item 1,${fixture.sb.assetsUrl}/ra-gone.jpg?status=404`);
  rows.push(`RA-2,Item 2,${fixture.sb.assetsUrl}/ra-ok.jpg`);
  for (let i = 3; i < ROWS; i++) rows.push(`RA-${i},Item ${i},`);
  // A row after the interrupt names an image too: the resume registers it, and counts it with the rest.
  rows.push(`RA-${ROWS},Item ${ROWS},${fixture.sb.assetsUrl}/ra-late.jpg`);
  feed = await writeFeed(cwd, 'feed.csv', rows.join('\n'));
});

const args = () => ['import', feed, '--report', 'report.csv', '--batch-size', '20', '--rate-limit', 'off'];

describe('a resumed run', () => {
  it('counts the image that failed before the interrupt: 1 failed, 2 registered, as one run', async () => {
    const first = startCli(args(), cwd, fixture.sb);
    await untilJournaled(cwd, 100);
    first.process.kill('SIGINT');
    const interrupted = await first.exited;
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(interrupted.stderr).toMatch(/assets: 1 registered, .*, 1 failed/);
    const [runId] = await runIds(cwd);
    const before = (await summaryOf(cwd, runId!)).outcomes as Record<string, number>;
    expect(before['not-attempted']).toBeGreaterThan(0);

    const resumed = await runCli([...args(), '--resume'], cwd, fixture.sb);
    expect(await runIds(cwd)).toEqual([runId]);
    const report = await readCsv(join(cwd, 'report.csv'));
    expect(report).toHaveLength(ROWS);
    expect(report[0]!.assets).toMatch(/ra-gone\.jpg\?status=404 failed/);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/assets: 2 registered, .*, 1 failed/);
  }, 120_000);
});
