// The import state survives kill -9: a run killed mid-feed, or with its new state written but not yet
// in place, leaves the last state byte for byte (its work file is removed by the next run), and that
// state still holds: the next run looks up exactly what the killed runs wrote, and the one after it
// costs the count and the changelog again. The CLI runs as a child process, over real HTTP.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { productsByRef, runCli, startCli } from './import.nightly.support.js';
import { tempDir, writeFeed } from './import.support.js';

const ROWS = 400;
const fixture = useSandbox({ seed: 'empty' });

function feed(renamed: (i: number) => boolean): string {
  const lines = ['prod_ref,prod_title,prod_weight'];
  for (let i = 0; i < ROWS; i++) lines.push(`SK-${i},${renamed(i) ? 'Renamed' : 'Lamp'} ${i},${i % 7}`);
  return `${lines.join('\n')}\n`;
}

interface CliSummary {
  outcomes: Record<string, number>;
  requests: { total: number };
}

describe('import state after kill -9', () => {
  it('a run killed mid-feed or before its state is in place leaves the last state, which still holds', async () => {
    const { sb } = fixture;
    const dir = tempDir('import-state-crash');
    const original = await writeFeed(
      dir,
      'feed.csv',
      feed(() => false),
    );
    const changed = await writeFeed(
      dir,
      'changed.csv',
      feed((i) => i % 2 === 0),
    );
    const args = (file: string) => ['import', file, '--rate-limit', 'off', '--json', '--quiet'];
    const run = async (file: string) => {
      const end = await runCli(args(file), dir, sb);
      expect(end.code, end.stderr).toBe(0);
      return JSON.parse(end.stdout) as CliSummary;
    };
    const stateFolder = () => {
      const root = join(dir, '.catalog-io', 'state');
      return join(root, readdirSync(root)[0]!);
    };
    const workFiles = () => readdirSync(stateFolder()).filter((f) => f.endsWith('.tmp'));
    const killAt = async (point: string) => {
      const child = startCli(args(changed), dir, sb, { CATALOG_IO_TEST_PAUSE_AT: point });
      await child.waitFor(`paused at ${point}`, 120_000);
      child.process.kill('SIGKILL');
      expect((await child.exited).signal).toBe('SIGKILL');
    };

    // Created, then compared once (the state cannot vouch for its own writes), then free: the
    // tenant's model, the count and one changelog page.
    expect((await run(original)).outcomes.created).toBe(ROWS);
    const compared = await run(original);
    const free = await run(original);
    expect(free.outcomes.unchanged).toBe(ROWS);
    expect(free.requests.total).toBeLessThanOrEqual(compared.requests.total - ROWS / 100);
    const file = join(stateFolder(), 'products.state');
    const before = readFileSync(file);

    // Killed after its first batch of 100 updates: the state is untouched, its work file left behind.
    await killAt('batch:2');
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(workFiles()).toHaveLength(1);
    const abandoned = workFiles()[0];

    // Killed with its whole new state written, before the rename: still the last state.
    await killAt('state');
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(workFiles()).not.toContain(abandoned);
    expect(workFiles()).toHaveLength(1);

    // The last state, less what the killed runs wrote (the changelog names it), vouches for the rest:
    // the 200 renamed records are looked up, found as the feed has them, and not written again.
    const next = await run(changed);
    expect(next.outcomes).toMatchObject({ unchanged: ROWS });
    // Two more changelog pages (the last run's newest entry, read to know the changelog still holds it,
    // and 200 writes: 100 a page) and 2 lookups of 100 refs.
    expect(next.requests.total).toBe(free.requests.total + 4);
    expect(workFiles()).toEqual([]);
    expect(readFileSync(file).equals(before)).toBe(false);
    const tenant = await productsByRef(sb);
    expect(tenant.records).toBe(ROWS);
    expect(tenant.byRef['SK-0']!.prod_title).toBe('Renamed 0');
    expect(tenant.byRef['SK-1']!.prod_title).toBe('Lamp 1');

    const after = await run(changed);
    expect(after.outcomes).toMatchObject({ unchanged: ROWS });
    expect(after.requests.total).toBe(free.requests.total);
  }, 300_000);
});
