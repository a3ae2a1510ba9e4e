// Progress without a terminal (cron logs): one plain line every 10 s with rows/s, counts by outcome,
// requests and 429s, and the share of the source read when the row count is unknown; nothing when quiet.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryOutput } from '../../src/cli/output.js';
import { createProgress, duration } from '../../src/cli/progress.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2024-05-01T02:30:00Z'));
});
afterEach(() => vi.useRealTimers());

describe('progress without a TTY', () => {
  it('prints a line every 10 s, not on every update', () => {
    const out = memoryOutput();
    const progress = createProgress(out, 'import', { quiet: false });
    progress.update({ done: 10, bytesRead: 100, totalBytes: 1000, counts: 'created 10' });
    vi.advanceTimersByTime(5_000);
    progress.update({ done: 50, bytesRead: 500, totalBytes: 1000, counts: 'created 50' });
    expect(out.stderr).toEqual([]);

    vi.advanceTimersByTime(5_000);
    progress.update({
      done: 200,
      bytesRead: 600,
      totalBytes: 1000,
      counts: 'created 150 · unchanged 50',
      requests: 12,
      rateLimited: 2,
    });
    expect(out.stderr).toEqual([
      'import: 200 rows (60% of the source), 20 rows/s, created 150 · unchanged 50, 12 requests, 2 × 429',
    ]);

    vi.advanceTimersByTime(3_000);
    progress.update({ done: 260, counts: 'created 260' });
    expect(out.stderr).toHaveLength(1);
    // The last state is told when the work ends, so a log always shows the final count.
    progress.stop();
    expect(out.stderr[1]).toBe('import: 260 rows, 20 rows/s, created 260');
    expect(out.stdout).toEqual([]);
  });

  it('a known total (export @count) is shown as "of N"', () => {
    const out = memoryOutput();
    const progress = createProgress(out, 'export products', { quiet: false });
    vi.advanceTimersByTime(10_000);
    progress.update({ done: 300, total: 1000, requests: 9 });
    expect(out.stderr).toEqual(['export products: 300 of 1000 rows, 30 rows/s, 9 requests']);
  });

  it('--quiet (and --json) prints nothing', () => {
    const out = memoryOutput();
    const progress = createProgress(out, 'import', { quiet: true });
    vi.advanceTimersByTime(60_000);
    progress.update({ done: 1, requests: 1 });
    progress.stop();
    expect(out.stderr).toEqual([]);
  });
});

describe('progress on a terminal', () => {
  it('draws the bar on the Output terminal: rows done, share of the source, a readable ETA', () => {
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
    const out = { ...memoryOutput(), isTTY: true, terminal };
    const progress = createProgress(out, 'import', { quiet: false });
    progress.update({ done: 250, bytesRead: 500, totalBytes: 1000, counts: 'created 250', requests: 4 });
    progress.stop();
    const screen = written.join('');
    expect(screen).toMatch(
      /import \[[^\]]+\] 50% \| 250 rows \| \d+ rows\/s \| created 250 \| 4 req, 0 × 429 \| ETA \d+s/,
    );
  });

  it('formats durations for people', () => {
    expect(duration(42.4)).toBe('42s');
    expect(duration(185)).toBe('3m05s');
    expect(duration(3725)).toBe('1h02m');
  });
});
