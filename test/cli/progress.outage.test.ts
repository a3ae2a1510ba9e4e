// The progress line while the service cannot be reached and the run waits out its outage budget (off a
// terminal, the line every 10 s, here every 200 ms): it keeps the rows and counts done so far and says
// what it waits for, since when, for how long so far and until when the budget runs out, instead of a
// rate and an ETA that only fall and grow with the wait. A real CLI through a fault proxy that stops
// listening (connections refused) mid-run, then listens again. The import, the export, and a copy
// whose target goes away while its products are written.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedBulkProducts } from '../../src/sandbox/catalog/index.js';
import { useFaultProxy } from '../helpers/fault-proxy.js';
import { useSandbox, useTargetSandbox } from '../helpers/sandbox.js';
import { journaledRows, startCli, untilJournaled } from '../runner/import.nightly.support.js';
import { tempDir } from '../runner/import.support.js';

// Some latency, so the run is still going when the proxy stops listening.
const fixture = useSandbox({ seed: 'empty', latencyMs: 15 });
// The export follows the sandbox's @nextLink: rewritten to stay behind the proxy.
const proxy = useFaultProxy(() => fixture.sb.catalogUrl, { rewriteLinks: true });
// A copy's source (products of its own) and its target, the target behind a proxy of its own.
const copySource = useSandbox({ seed: 'empty' });
const copyTarget = useTargetSandbox(copySource, { latencyMs: 15 });
const targetProxy = useFaultProxy(() => copyTarget.sb.catalogUrl);
const COPIED = 300;

const ROWS = 400;
const WAITING =
  /^import: (\d+) rows.*; waiting for the Catalog API since (\S+) \((\S+) so far, until (\S+)\)$/;

/** `20:01:02` as seconds of the day. */
const seconds = (clock: string) => clock.split(':').reduce((s, part) => s * 60 + Number(part), 0);
/** Seconds from one clock time (HH:MM:SS) to a later one, across midnight too. */
const secondsBetween = (since: string, until: string) => (seconds(until) - seconds(since) + 86_400) % 86_400;
/** The progress lines of `prefix` that say the run waits. */
const waitingLines = (stderr: string, prefix: string) =>
  stderr.split('\n').filter((line) => line.startsWith(prefix) && line.includes('waiting for'));
/** The most rows a progress line (`pattern`'s first group) said so far. */
const mostRows = (stderr: string, pattern: RegExp) =>
  Math.max(...stderr.split('\n').map((line) => Number(pattern.exec(line)?.[1] ?? 0)));

/**
 * The CLI with its Catalog and DAM APIs behind the proxy: retries within 1 s, an outage budget of 30 s, the
 * client's pauses between probes at a tenth of real time and a progress line every 200 ms.
 */
const startBehindProxy = (args: string[], cwd: string) =>
  startCli(
    [...args, '--rate-limit', 'off', '--retry-budget', '1000', '--outage-budget', '30000'],
    cwd,
    fixture.sb,
    {
      CATALOG_URL: proxy.via(fixture.sb.catalogUrl),
      DAM_URL: proxy.via(fixture.sb.damUrl),
      CATALOG_IO_TEST_TIME_SCALE: '0.1',
      CATALOG_IO_PROGRESS_EVERY_MS: '200',
    },
  );

describe('progress while the service cannot be reached', () => {
  it('keeps the rows and counts done so far and says it waits, for how long so far and until when', async () => {
    const cwd = tempDir('progress-outage');
    const lines = ['prod_ref,prod_title'];
    for (let i = 1; i <= ROWS; i++) lines.push(`PO-${i},Item ${i}`);
    writeFileSync(join(cwd, 'products.csv'), `${lines.join('\n')}\n`);
    const child = startBehindProxy(['import', 'products.csv', '--batch-size', '10'], cwd);
    await untilJournaled(cwd, 50);
    await proxy.set({ kind: 'refuse' });
    // Rows done before the service went away: the lines during the wait show at least these.
    const doneBefore = await journaledRows(cwd);
    await child.waitFor('waiting for the Catalog API since');
    // A few progress lines during the wait, then the service is back.
    await child.waitFor(/(; waiting for the Catalog API since[^\n]*\n[\s\S]*){3}/);
    await proxy.set({ kind: 'pass' });
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(0);

    const waiting = waitingLines(end.stderr, 'import: ');
    expect(waiting.length, end.stderr).toBeGreaterThanOrEqual(3);
    for (const line of waiting) {
      const m = WAITING.exec(line);
      expect(m, line).not.toBeNull();
      const [, rows, since, , until] = m!;
      // The rows done so far and their counts, not 0.
      expect(Number(rows), line).toBeGreaterThanOrEqual(doneBefore);
      expect(line).toContain(`created ${rows},`);
      // Until the budget (30 s) runs out from when the wait began.
      expect(secondsBetween(since!, until!), line).toBe(30);
      // No rate nor ETA while nothing moves.
      expect(line).not.toMatch(/rows\/s|ETA/);
    }
    // The service is back: the lines after say no wait and go on counting.
    const last = end.stderr
      .split('\n')
      .filter((line) => line.startsWith('import: '))
      .at(-1);
    expect(last).toMatch(new RegExp(`^import: ${ROWS} rows \\(100%\\), \\d+ rows/s, created ${ROWS}, `));
  }, 120_000);

  it('the export too: its line keeps the rows done and says it waits', async () => {
    const cwd = tempDir('progress-outage-export');
    // Enough pages that the service goes away mid-export.
    seedBulkProducts(fixture.sb.services.catalog, 6000);
    const child = startBehindProxy(['export', 'products', '--out', 'products.csv'], cwd);
    await child.waitFor(/^export products: [1-9]\d* of \d+ rows/m);
    await proxy.set({ kind: 'refuse' });
    const before = mostRows(child.stderr(), /^export products: (\d+) of/);
    await child.waitFor(/(; waiting for the Catalog API since[^\n]*\n[\s\S]*){3}/);
    await proxy.set({ kind: 'pass' });
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(0);
    const waiting = waitingLines(end.stderr, 'export products: ');
    expect(waiting.length, end.stderr).toBeGreaterThanOrEqual(3);
    for (const line of waiting) {
      const m =
        /^export products: (\d+) of (\d+) rows, \d+ requests; waiting for the Catalog API since (\S+) \((\S+) so far, until (\S+)\)$/.exec(
          line,
        );
      expect(m, line).not.toBeNull();
      expect(Number(m![1]), line).toBeGreaterThanOrEqual(before);
      expect(secondsBetween(m![3]!, m![5]!), line).toBe(30);
    }
  }, 120_000);

  it("a copy too: its step's line keeps the rows done and says it waits for the target", async () => {
    const cwd = tempDir('progress-outage-copy');
    seedBulkProducts(copySource.sb.services.catalog, COPIED);
    const side = (sb: typeof fixture.sb, via: (url: string) => string = (url) => url) => ({
      catalogUrl: via(sb.catalogUrl),
      damUrl: via(sb.damUrl),
      apiKey: sb.apiKey,
      rateLimit: 'off',
      // A copy reads no environment: its sides' budgets come from their files.
      retryBudgetMs: 1000,
      outageBudgetMs: 30000,
    });
    writeFileSync(join(cwd, 'from.json'), JSON.stringify(side(copySource.sb)));
    writeFileSync(join(cwd, 'to.json'), JSON.stringify(side(copyTarget.sb, targetProxy.via)));
    const child = startCli(
      ['copy', '--from', 'from.json', '--to', 'to.json', '--to-concurrency', '1'],
      cwd,
      copySource.sb,
      { CATALOG_IO_PROGRESS_EVERY_MS: '200' },
    );
    await child.waitFor(/^copy products: [1-9]\d* rows/m);
    await targetProxy.set({ kind: 'refuse' });
    const before = mostRows(child.stderr(), /^copy products: (\d+) rows/);
    await child.waitFor(/(; waiting for the target's Catalog API since[^\n]*\n[\s\S]*){3}/);
    await targetProxy.set({ kind: 'pass' });
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(0);
    // The outage said as a line too, naming the side.
    expect(end.stderr).toMatch(/^target: waiting for the Catalog API since \S+: it cannot be reached/m);
    expect(end.stderr).toMatch(/^target: the Catalog API is back /m);
    const waiting = waitingLines(end.stderr, 'copy products: ');
    expect(waiting.length, end.stderr).toBeGreaterThanOrEqual(3);
    for (const line of waiting) {
      const m =
        /^copy products: (\d+) rows.*; waiting for the target's Catalog API since (\S+) \((\S+) so far, until (\S+)\)$/.exec(
          line,
        );
      expect(m, line).not.toBeNull();
      expect(Number(m![1]), line).toBeGreaterThanOrEqual(before);
      expect(secondsBetween(m![2]!, m![4]!), line).toBe(30);
      expect(line).not.toMatch(/rows\/s|ETA/);
    }
    expect(end.stderr).toMatch(new RegExp(`^products: ${COPIED} copied`, 'm'));
  }, 120_000);
});
