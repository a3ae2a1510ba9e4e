// When the service allows less than --rate-limit, the run lowers its pace on 429s (src/api/limiter.ts);
// a person reading stderr or the morning summary learns it: one line when the pace is lowered (not one
// per 429), one when it is back at the limit, and in the summary (stderr, `--json`, summary.json and its
// `--summary` copy) the lowest pace and how long the run went below its limit. A real CLI against a
// sandbox that takes 10 requests per half second, told 50 per half second (windows of half a second,
// not 1 s: the pace is cut and climbs back, and the run ends, in about half the time).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PaceNotice } from '../../src/api/pace.js';
import { PaceLines } from '../../src/cli/outage-notice.js';
import { seedBulkProducts } from '../../src/sandbox/catalog/index.js';
import { useSandbox } from '../helpers/sandbox.js';
import { startCli } from '../runner/import.nightly.support.js';
import { tempDir } from '../runner/import.support.js';

/** The window of the sandbox's limit and of the client's --rate-limit, in seconds. */
const WINDOW = 0.5;
const fixture = useSandbox({ seed: 'empty', rateLimit: { requests: 10, windowSeconds: WINDOW } });

// One request per window: a client told 2 is cut to 1 by its first 429s, and back at 2 after one
// accepted answer, again and again.
const strict = useSandbox({ seed: 'empty', rateLimit: { requests: 1, windowSeconds: WINDOW } });

const ROWS = 30;
const LOWERED =
  /^pace lowered from 50 to 25 requests per 0\.5 s, below the rate limit of 50: the Catalog API answered 429 \(too many requests\) at \d\d:\d\d:\d\d; it climbs back while requests are accepted$/;

interface Pace {
  limitPerWindow: number;
  windowSeconds: number;
  lowestPerWindow: number;
  timesLowered: number;
  belowLimitMs: number;
}

describe('a run whose pace 429s lowered says so', () => {
  /** An import of ROWS new products at 50 per window into the sandbox that takes 10. */
  async function importAbove(prefix: string, extra: string[]) {
    const cwd = tempDir('pace-notice');
    const lines = ['prod_ref,prod_title'];
    for (let i = 1; i <= ROWS; i++) lines.push(`${prefix}-${i},Item ${i}`);
    writeFileSync(join(cwd, 'products.csv'), `${lines.join('\n')}\n`);
    const child = startCli(
      ['import', 'products.csv', '--batch-size', '5', '--rate-limit', `50/${WINDOW}`, ...extra],
      cwd,
      fixture.sb,
      // Retry-After waited out at a tenth: the 429s come as fast, the run is shorter.
      { CATALOG_IO_TEST_TIME_SCALE: '0.1' },
    );
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(0);
    return { cwd, end, stderr: end.stderr.split('\n') };
  }

  it('one line when lowered, and the summary (--json, --summary) records the lowest pace and the time below the limit', async () => {
    const { cwd, end, stderr } = await importAbove('PACE', ['--json', '--summary', 'out/summary.json']);
    const summary = JSON.parse(end.stdout) as { requests: { rateLimited: number; pace: Pace } };
    const pace = summary.requests.pace;
    expect(summary.requests.rateLimited, end.stderr).toBeGreaterThan(0);
    expect(pace).toMatchObject({ limitPerWindow: 50, windowSeconds: WINDOW });
    // Lowered more than once (50 -> 25 -> 12 ...: 25 per window is still above the service's 10)...
    expect(pace.timesLowered, end.stderr).toBeGreaterThanOrEqual(2);
    expect(pace.lowestPerWindow).toBeLessThanOrEqual(12);
    expect(pace.belowLimitMs).toBeGreaterThan(0);
    // ...but said once: within a minute of its first line, a deeper cut is not said again.
    const said = stderr.filter((line) => line.startsWith('pace '));
    expect(said, end.stderr).toHaveLength(1);
    expect(said[0]).toMatch(LOWERED);

    // summary.json (in the run folder, and its --summary copy) records the 429s and the pace too.
    const file = JSON.parse(readFileSync(join(cwd, 'out', 'summary.json'), 'utf8')) as {
      requests: { rateLimited: number; pace: Pace };
    };
    expect(file.requests.rateLimited).toBe(summary.requests.rateLimited);
    expect(file.requests.pace).toMatchObject({
      limitPerWindow: 50,
      windowSeconds: WINDOW,
      lowestPerWindow: pace.lowestPerWindow,
      timesLowered: pace.timesLowered,
    });
    expect(file.requests.pace.belowLimitMs).toBeGreaterThanOrEqual(pace.belowLimitMs);
  }, 120_000);

  it('the summary on stderr says how low and how long', async () => {
    const { end, stderr } = await importAbove('PACE2', []);
    expect(
      stderr.filter((line) => line.startsWith('pace ')),
      end.stderr,
    ).toHaveLength(1);
    const line = stderr.find((l) => l.startsWith('  pace: '));
    expect(line, end.stderr).toMatch(
      /^ {2}pace: lowered \d+ times by 429s, to \d+ requests per 0\.5 s at the lowest \(rate limit 50\); [\d.]+ (ms|s|min) below the rate limit$/,
    );
    // After the requests line, whose 429s lowered it.
    const requests = stderr.findIndex((l) => /^ {2}requests: \d+ .*, [1-9]\d* × 429$/.test(l));
    expect(requests, end.stderr).toBeGreaterThan(-1);
    expect(stderr[requests + 1]).toBe(line);
  }, 120_000);
});

describe('an export slowed by 429s', () => {
  it('says so once, and its --json summary records the pace', async () => {
    const cwd = tempDir('pace-export');
    // Pages of 100, one request each: more of them than the service takes in a window.
    seedBulkProducts(fixture.sb.services.catalog, 1500);
    const child = startCli(
      ['export', 'products', '--out', 'products.csv', '--rate-limit', `50/${WINDOW}`, '--json'],
      cwd,
      fixture.sb,
      { CATALOG_IO_TEST_TIME_SCALE: '0.1' },
    );
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(0);
    const requests = (JSON.parse(end.stdout) as { requests: { rateLimited: number; pace: Pace } }).requests;
    expect(requests.rateLimited, end.stderr).toBeGreaterThan(0);
    expect(requests.pace).toMatchObject({ limitPerWindow: 50, windowSeconds: WINDOW });
    expect(requests.pace.timesLowered).toBeGreaterThanOrEqual(1);
    expect(requests.pace.lowestPerWindow).toBeLessThanOrEqual(25);
    const said = end.stderr.split('\n').filter((line) => line.startsWith('pace '));
    expect(said, end.stderr).toHaveLength(1);
    expect(said[0]).toMatch(LOWERED);
  }, 120_000);
});

describe('a pace back at the limit', () => {
  it('says it once it said the pace was lowered, with how long it was below and how low', async () => {
    const cwd = tempDir('pace-back');
    writeFileSync(join(cwd, 'products.csv'), 'prod_ref,prod_title\nB-1,One\nB-2,Two\nB-3,Three\nB-4,Four\n');
    const child = startCli(
      ['import', 'products.csv', '--rate-limit', `2/${WINDOW}`, '--json'],
      cwd,
      strict.sb,
      {
        CATALOG_IO_TEST_TIME_SCALE: '0.1',
      },
    );
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(0);
    const pace = (JSON.parse(end.stdout) as { requests: { pace: Pace } }).requests.pace;
    expect(pace).toMatchObject({ limitPerWindow: 2, windowSeconds: WINDOW, lowestPerWindow: 1 });
    expect(pace.timesLowered, end.stderr).toBeGreaterThanOrEqual(1);
    // Cut and back however many times: within the minute, one line each way.
    const said = end.stderr.split('\n').filter((line) => line.startsWith('pace '));
    expect(said, end.stderr).toHaveLength(2);
    expect(said[0]).toMatch(
      /^pace lowered from 2 to 1 requests per 0\.5 s, below the rate limit of 2: the Catalog API answered 429 \(too many requests\) at (\d\d:\d\d:\d\d); it climbs back while requests are accepted$/,
    );
    const since = /at (\d\d:\d\d:\d\d);/.exec(said[0]!)![1];
    expect(said[1]).toMatch(
      new RegExp(
        `^pace back at the rate limit, 2 requests per 0\\.5 s \\(below it since ${since} for [\\d.]+ (ms|s), 1 at the lowest\\)$`,
      ),
    );
  }, 120_000);
});

describe('the pace lines', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 2, 0, s));
  const lowered = (s: number, from: number, to: number): PaceNotice => ({
    state: 'lowered',
    service: 'Catalog API',
    from,
    to,
    limit: 50,
    windowSeconds: 10,
    at: at(s),
  });
  const back = (s: number, since: number, lowest: number): PaceNotice => ({
    state: 'back',
    limit: 50,
    windowSeconds: 10,
    belowSince: at(since),
    lowest,
    at: at(s),
  });

  it('at most one line per change of direction, and a lowered line at most once a minute', () => {
    const said: string[] = [];
    const lines = new PaceLines((line) => said.push(line));
    lines.note(lowered(0, 50, 25));
    // Cut again within the minute: not said.
    lines.note(lowered(10, 25, 12));
    // Back at the limit: said, as the change of direction after the line that said it was lowered.
    lines.note(back(40, 0, 12));
    // Lowered again 5 s later: within a minute of the last line, not said; its return is not said either.
    lines.note(lowered(45, 50, 25));
    lines.note(back(50, 45, 25));
    // A minute after the last line: said; a cut no deeper than said is not; a deeper one a minute on is.
    lines.note(lowered(101, 50, 25));
    lines.note(lowered(200, 40, 25));
    lines.note(lowered(300, 25, 12));
    lines.note(back(400, 101, 12));
    expect(said.map((line) => line.replace(/\d\d:\d\d:\d\d/g, 'HH:MM:SS'))).toEqual([
      'pace lowered from 50 to 25 requests per 10 s, below the rate limit of 50: the Catalog API answered 429 (too many requests) at HH:MM:SS; it climbs back while requests are accepted',
      'pace back at the rate limit, 50 requests per 10 s (below it since HH:MM:SS for 40 s, 12 at the lowest)',
      'pace lowered from 50 to 25 requests per 10 s, below the rate limit of 50: the Catalog API answered 429 (too many requests) at HH:MM:SS; it climbs back while requests are accepted',
      'pace lowered again from 25 to 12 requests per 10 s, below the rate limit of 50: the Catalog API answered 429 (too many requests) at HH:MM:SS; it climbs back while requests are accepted',
      'pace back at the rate limit, 50 requests per 10 s (below it since HH:MM:SS for 5.0 min, 12 at the lowest)',
    ]);
  });
});
