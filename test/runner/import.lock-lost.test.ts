// A run whose lock is lost (its lock file or Redis key removed, or gone stale while the process
// stalled) stops before its next batch: another run may hold the lock now, and two runs must never
// write the same records. The rows not reached are reported `not-attempted`, the exit code is 2.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HeldLock, LockHolder, RunLockStore } from '../../src/lock/types.js';
import { useSandbox } from '../helpers/sandbox.js';
import { byRef, importWith, readCsv, tempDir, writeFeed } from './import.support.js';

/** A lock store whose lock can be taken away, as a removed lock file or an expired key would be. */
class RevocableLocks implements RunLockStore {
  revoke: () => void = () => {};

  async acquire(_scope: unknown, holder: LockHolder): Promise<HeldLock> {
    let reject: (err: Error) => void = () => {};
    const lost = new Promise<never>((_, r) => {
      reject = r;
    });
    lost.catch(() => {});
    this.revoke = () => reject(new Error('the lock file was removed'));
    return { holder, lost, release: async () => {} };
  }

  async holder(): Promise<LockHolder | undefined> {
    return undefined;
  }
}

const fixture = useSandbox({ seed: 'empty' });

describe('a lost lock', () => {
  it('stops the run before its next batch: exit 2, the rows not reached not-attempted, nothing deleted', async () => {
    const dir = tempDir('import-lock-lost');
    const rows = ['prod_ref,prod_title'];
    for (let i = 1; i <= 300; i++) rows.push(`LL-${i},Item ${i}`);
    const feed = await writeFeed(dir, 'feed.csv', rows.join('\n'));
    const locks = new RevocableLocks();
    const report = join(dir, 'report.csv');
    const summary = await importWith(fixture.sb, feed, {
      stateDir: join(dir, '.catalog-io'),
      tenant: 'lock-lost',
      lockStore: locks,
      batchSize: 50,
      concurrency: 1,
      rateLimit: null,
      reportFile: report,
      missing: 'delete',
      onProgress: (p) => {
        if (p.rows >= 100) locks.revoke();
      },
    });
    expect(summary.stopReason).toBe('lock-lost');
    expect(summary.exitCode).toBe(2);
    expect(summary.state).toBe('interrupted');
    expect(summary.outcomes['not-attempted']).toBeGreaterThan(0);
    expect(summary.outcomes.created + summary.outcomes['not-attempted']).toBe(300);
    // One report line per source row, whatever happened.
    const lines = await readCsv(report);
    expect(lines).toHaveLength(300);
    expect(lines.filter((l) => l.outcome === 'not-attempted')).toHaveLength(
      summary.outcomes['not-attempted'],
    );
    // The tenant holds exactly what the report says was created; a stopped run deletes nothing.
    const products = await byRef(fixture.sb, '/Products', 'prod_ref');
    expect([...products.keys()].filter((ref) => ref.startsWith('LL-'))).toHaveLength(
      summary.outcomes.created,
    );
    expect(summary.fullSync).toBeUndefined();
  });
});
