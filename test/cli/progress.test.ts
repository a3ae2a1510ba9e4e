// Progress is drawn by a timer from the last state the work reported: off a terminal (cron logs) one
// plain line every 10 s, on a terminal a bar redrawn between batches; the share done is counted in rows
// (estimated from rows per byte when the total is unknown) and the ETA follows the recent rate.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryOutput } from '../../src/cli/output.js';
import { createProgress, duration, estimate } from '../../src/cli/progress.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
  vi.setSystemTime(new Date('2024-05-01T02:30:00Z'));
});
afterEach(() => vi.useRealTimers());

describe('progress without a TTY', () => {
  it('prints a line every 10 s by the clock, whether or not the work reported in between', () => {
    const out = memoryOutput();
    const progress = createProgress(out, 'import', { quiet: false });
    progress.update({ done: 10, bytesRead: 100, totalBytes: 1000, rowsRead: 20, counts: 'created 10' });
    vi.advanceTimersByTime(5_000);
    progress.update({
      done: 200,
      bytesRead: 600,
      totalBytes: 1000,
      rowsRead: 300,
      counts: 'created 150 · unchanged 50',
      requests: 12,
      rateLimited: 2,
    });
    expect(out.stderr).toEqual([]);
    vi.advanceTimersByTime(5_000);
    // 300 rows in 600 bytes: about 500 rows in all; 200 done is 40%, not the 60% of bytes read.
    expect(out.stderr).toEqual([
      'import: 200 rows (40%), 20 rows/s, ETA 15s, created 150 · unchanged 50, 12 requests, 2 × 429',
    ]);
    // No report for 20 s (the service is slow): the log still gets its two lines.
    vi.advanceTimersByTime(20_000);
    expect(out.stderr).toHaveLength(3);
    progress.update({ done: 500, bytesRead: 1000, totalBytes: 1000, rowsRead: 500, counts: 'created 500' });
    // The last state is told when the work ends, so a log always shows the final count.
    progress.stop();
    expect(out.stderr[3]).toMatch(/^import: 500 rows \(100%\), \d+ rows\/s, created 500$/);
    vi.advanceTimersByTime(60_000);
    expect(out.stderr).toHaveLength(4);
    expect(out.stdout).toEqual([]);
  });

  it('while the work waits: the rows and counts so far, what it waits for, for how long and until when; once stopped (a signal), later updates draw nothing', () => {
    const out = memoryOutput();
    const progress = createProgress(out, 'import', { quiet: false });
    const at = (ms: number) => new Date(Date.now() + ms);
    const clock = (d: Date) => d.toTimeString().slice(0, 8);
    progress.update({
      done: 40,
      bytesRead: 400,
      totalBytes: 1000,
      rowsRead: 40,
      counts: 'created 40',
      requests: 9,
    });
    const since = at(5_000);
    const until = at(605_000);
    vi.advanceTimersByTime(5_000);
    progress.waiting([{ what: 'the Catalog API', since, until }]);
    vi.advanceTimersByTime(5_000);
    // No rate nor ETA: they would fall and grow with the wait; the rows done stay.
    expect(out.stderr).toEqual([
      `import: 40 rows (40%), created 40, 9 requests; waiting for the Catalog API since ${clock(since)} (5s so far, until ${clock(until)})`,
    ]);
    vi.advanceTimersByTime(60_000);
    expect(out.stderr.at(-1)).toContain(`(1m05s so far, until ${clock(until)})`);
    progress.waiting([]);
    progress.stop();
    expect(out.stderr.at(-1)).toMatch(
      /^import: 40 rows \(40%\), \d+ rows\/s(, ETA \S+)?, created 40, 9 requests$/,
    );
    const lines = out.stderr.length;
    // The run then records its rows not attempted: the display does not come back, nor reach 100%.
    progress.update({ done: 40, bytesRead: 1000, totalBytes: 1000, rowsRead: 100 });
    vi.advanceTimersByTime(60_000);
    progress.stop();
    expect(out.stderr).toHaveLength(lines);
  });

  it('a wait before the first report is told too, with no rows yet', () => {
    const out = memoryOutput();
    const progress = createProgress(out, 'import', { quiet: false });
    const since = new Date(Date.now());
    progress.waiting([{ what: 'the Catalog API', since }]);
    vi.advanceTimersByTime(10_000);
    expect(out.stderr).toEqual([
      `import: no rows yet; waiting for the Catalog API since ${since.toTimeString().slice(0, 8)} (10s so far)`,
    ]);
    progress.stop();
  });

  it('a known total (export @count) is shown as "of N"', () => {
    const out = memoryOutput();
    const progress = createProgress(out, 'export products', { quiet: false });
    progress.update({ done: 0, total: 1000 });
    vi.advanceTimersByTime(9_000);
    progress.update({ done: 300, total: 1000, requests: 9 });
    vi.advanceTimersByTime(1_000);
    expect(out.stderr).toEqual(['export products: 300 of 1000 rows, 30 rows/s, ETA 23s, 9 requests']);
    progress.stop();
  });

  it('a short run prints nothing; --quiet (and --json) never print', () => {
    const out = memoryOutput();
    const short = createProgress(out, 'import', { quiet: false });
    short.update({ done: 5 });
    vi.advanceTimersByTime(3_000);
    short.stop();
    const quiet = createProgress(out, 'import', { quiet: true });
    quiet.update({ done: 1, requests: 1 });
    vi.advanceTimersByTime(60_000);
    quiet.stop();
    expect(out.stderr).toEqual([]);
  });
});

describe('the estimate', () => {
  it('counts rows: rows per byte read times the size, the bytes share only without rows read', () => {
    expect(estimate({ done: 100, bytesRead: 500, totalBytes: 1000, rowsRead: 250 })).toEqual({
      fraction: 0.2,
      total: 500,
    });
    // Everything read: the rows read are the total.
    expect(estimate({ done: 450, bytesRead: 1000, totalBytes: 1000, rowsRead: 500 })).toEqual({
      fraction: 0.9,
      total: 500,
    });
    expect(estimate({ done: 10, bytesRead: 1000, totalBytes: 1000 }).fraction).toBe(0.99);
    expect(estimate({ done: 10 })).toEqual({});
  });

  it('the ETA converges on the time left at a steady rate, though the reader runs ahead', () => {
    const out = memoryOutput();
    const progress = createProgress(out, 'import', { quiet: false });
    progress.update({ done: 0, rowsRead: 400, bytesRead: 40_000, totalBytes: 100_000 });
    // 1000 rows of 100 bytes at 5 rows/s (200 s in all); the reader is always 400 rows ahead.
    for (let t = 1; t <= 150; t++) {
      vi.advanceTimersByTime(1_000);
      const done = t * 5;
      const rowsRead = Math.min(1000, done + 400);
      progress.update({ done, rowsRead, bytesRead: rowsRead * 100, totalBytes: 100_000 });
    }
    const lines = out.stderr.map((line) => {
      const m = /^import: (\d+) rows \((\d+)%\), 5 rows\/s, ETA (?:(\d+)m)?(\d+)s$/.exec(line);
      return m && { done: Number(m[1]), pct: Number(m[2]), eta: Number(m[3] ?? 0) * 60 + Number(m[4]) };
    });
    // A line every 10 s; each tells the share of rows done and the time the rows left take at 5 rows/s.
    expect(lines).toHaveLength(15);
    for (const line of lines) {
      expect(line).not.toBeNull();
      expect(Math.abs(line!.pct - line!.done / 10)).toBeLessThanOrEqual(0.5);
      // The rate is measured up to now and the last report is up to a second old (the first line sees
      // 45 rows in 10 s): up to a tenth slow.
      const left = (1000 - line!.done) / 5;
      expect(Math.abs(line!.eta - left)).toBeLessThanOrEqual(2 + left * 0.12);
    }
    progress.stop();
  });
});

describe('progress on a terminal', () => {
  function terminalOutput() {
    const written: string[] = [];
    // A writable that says it is a terminal, as cli-progress expects of one.
    const terminal = Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          written.push(chunk.toString());
          done();
        },
      }),
      { isTTY: true, columns: 200, cursorTo: () => true, clearLine: () => true, moveCursor: () => true },
    );
    return { out: { ...memoryOutput(), isTTY: true, terminal }, written };
  }

  /** Half the file read and its rows created, in 4 requests. */
  const HALF_WAY = {
    done: 250,
    bytesRead: 500,
    rowsRead: 250,
    totalBytes: 1000,
    counts: 'created 250',
    requests: 4,
  };

  it('draws the bar: rows done, share in rows, rate, a readable ETA', () => {
    const { out, written } = terminalOutput();
    const progress = createProgress(out, 'import', { quiet: false });
    vi.advanceTimersByTime(10_000);
    progress.update(HALF_WAY);
    progress.stop();
    expect(written.join('')).toMatch(
      /import \[[^\]]+\] 50% \| 250 rows \| 25 rows\/s \| created 250 \| 4 req, 0 × 429 \| ETA 10s/,
    );
  });

  it('while the work waits, the bar keeps its rows and counts and says what it waits for', () => {
    const { out, written } = terminalOutput();
    const progress = createProgress(out, 'import', { quiet: false });
    progress.update(HALF_WAY);
    const since = new Date(Date.now());
    progress.waiting([{ what: 'the DAM API', since }]);
    vi.advanceTimersByTime(3_000);
    written.length = 0;
    vi.advanceTimersByTime(1_000);
    const screen = written.join('');
    expect(screen).toMatch(
      /import \[[^\]]+\] 50% \| 250 rows \| created 250 \| 4 req, 0 × 429 \| waiting for the DAM API since \d\d:\d\d:\d\d \(4s so far\)/,
    );
    expect(screen).not.toMatch(/rows\/s|ETA/);
    progress.stop();
  });

  it('is redrawn on a timer between reports: the clock and the rate move while a batch is out', () => {
    const { out, written } = terminalOutput();
    const progress = createProgress(out, 'import', { quiet: false });
    progress.update({ done: 100, total: 1000 });
    vi.advanceTimersByTime(1_000);
    written.length = 0;
    // No report for 9 s: the bar is drawn again and again, its rate falling as the time passes.
    vi.advanceTimersByTime(9_000);
    const screen = written.join('');
    expect(screen).toMatch(/ 50 rows\/s /); // at 2 s
    expect(screen).toMatch(/ 20 rows\/s /); // at 5 s
    expect(screen).toMatch(/ 10 rows\/s /); // at 10 s
    progress.stop();
  });

  it('formats durations for people', () => {
    expect(duration(42.4)).toBe('42s');
    expect(duration(185)).toBe('3m05s');
    expect(duration(3725)).toBe('1h02m');
  });
});
