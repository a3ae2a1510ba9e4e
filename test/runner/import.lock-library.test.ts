// importFile as a library caller uses it: two calls on one state folder never write at once. With no
// lockStore, the run takes a lock file in `<stateDir>/locks`; the second call is refused with LOCKED
// and no row of either fails. `lockStore: false` takes none.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCatalogIoError } from '../../src/errors.js';
import { useSandbox } from '../helpers/sandbox.js';
import { importWith, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty', latencyMs: 5 });
let cwd: string;
let feed: string;

beforeAll(async () => {
  cwd = tempDir('import-lock-library');
  const rows = ['prod_ref,prod_title'];
  for (let i = 1; i <= 200; i++) rows.push(`LL-${i},Item ${i}`);
  feed = await writeFeed(cwd, 'feed.csv', rows.join('\n'));
});

describe('importFile on one state folder', () => {
  it('without a lockStore, a second call at the same time is refused with LOCKED; no row fails', async () => {
    const stateDir = join(cwd, '.catalog-io');
    const options = { stateDir, tenant: 'lib-tenant', batchSize: 20 };
    const results = await Promise.allSettled([
      importWith(fixture.sb, feed, options),
      importWith(fixture.sb, feed, options),
    ]);
    const done = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(done).toHaveLength(1);
    expect(refused).toHaveLength(1);
    const err = (refused[0] as PromiseRejectedResult).reason;
    expect(isCatalogIoError(err, 'LOCKED'), String(err)).toBe(true);
    const summary = (done[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof importWith>>>).value;
    expect(summary.outcomes.failed).toBe(0);
    expect(summary.outcomes.created).toBe(200);
    // The lock lived in the state folder and was given back.
    expect(existsSync(join(stateDir, 'locks'))).toBe(true);
    expect(
      readdirSync(join(stateDir, 'locks')).filter((f) => f.endsWith('.json') || f.endsWith('.lock')),
    ).toEqual([]);
  });

  it('lockStore: false takes no lock', async () => {
    const stateDir = join(cwd, 'no-lock', '.catalog-io');
    const summary = await importWith(fixture.sb, feed, { stateDir, tenant: 'lib-tenant', lockStore: false });
    expect(summary.outcomes.failed).toBe(0);
    expect(existsSync(join(stateDir, 'locks'))).toBe(false);
  });
});
