// The ETA of an import bound by the service's rate limit: from the first batch on, the time it
// promises holds (the run ends when it said, within 10% of the run), because it counts the requests
// still to send at the limit's pace, not only the rows per second seen so far (which the window's burst
// and the start-up distort). A real sandbox with the same limit as the client, scaled down in time:
// 40 requests per 2 s instead of 50 per 10 s, lines every second instead of every 10.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli-child.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const ROWS = 240;
const fixture = useSandbox({ seed: 'empty', rateLimit: { requests: 40, windowSeconds: 2 } });

/** `42s`, `3m05s` back to seconds. */
function seconds(text: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

describe('the ETA of an import at the rate limit', () => {
  it('says from the first batch when the run ends, and keeps saying it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eta-'));
    const feed = join(dir, 'feed.csv');
    const lines = ['prod_ref,prod_title'];
    for (let i = 0; i < ROWS; i += 1) lines.push(`ETA-${String(i).padStart(5, '0')},Product ${i}`);
    writeFileSync(feed, `${lines.join('\n')}\n`);

    const stamps: Array<{ at: number; line: string }> = [];
    const started = Date.now();
    const run = startCli(
      [
        'import',
        feed,
        '--entity',
        'products',
        '--batch-size',
        '20',
        ...sandboxFlags(fixture.sb, { rateLimit: '40/2' }),
      ],
      { cwd: dir, env: { CATALOG_IO_PROGRESS_EVERY_MS: '1000' } },
    );
    let seen = 0;
    run.child.stderr!.on('data', () => {
      const text = run.stderr();
      const all = text.split('\n');
      for (; seen < all.length - 1; seen += 1) stamps.push({ at: Date.now(), line: all[seen]! });
    });
    const result = await run.done;
    const ended = Date.now();
    expect(result.code, result.stderr).toBe(0);

    const etas = stamps
      .map(({ at, line }) => ({ at, m: /^import: (\d+) rows.*ETA (\S+?),/.exec(line) }))
      .filter((x): x is { at: number; m: RegExpExecArray } => x.m !== null)
      .map(({ at, m }) => ({ at, done: Number(m[1]), eta: seconds(m[2]!) }));
    // 240 creates and 12 lookups at 40 per 2.14 s take about 13 s: a line a second, most with an ETA.
    expect(etas.length).toBeGreaterThanOrEqual(6);
    const runSeconds = (ended - started) / 1000;
    for (const { at, done, eta } of etas) {
      const promised = at / 1000 + eta;
      // Within 10% of the run, plus the second the ETA is rounded to and the process's own exit.
      expect(Math.abs(promised - ended / 1000), `at ${done} rows the ETA said ${eta}s`).toBeLessThanOrEqual(
        runSeconds * 0.1 + 1.5,
      );
    }
  }, 60_000);
});
