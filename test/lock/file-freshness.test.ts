// The lock file says, before each write, whether the run surely still holds it: at once (no I/O) while
// its last confirmed refresh is recent; once that is older than two thirds of the stale threshold (the
// process stalled), only after the next refresh found the lock still its own, and never once another
// run took it over meanwhile. The stall is the event loop held (as a stopped process would be), the
// stale threshold shortened to 2 s (refreshes every second) by the store's option.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileLockStore } from '../../src/lock/file.js';

const scope = { tenant: 'fresh', entity: 'products' };
const holder = () => ({
  runId: 'r',
  pid: process.pid,
  host: hostname(),
  startedAt: new Date().toISOString(),
});

/** Holds this process (its event loop) for `seconds`, running `then` in a shell at the end. */
function stall(seconds: number, then = 'true'): void {
  execFileSync('sh', ['-c', `sleep ${seconds}; ${then}`]);
}

describe('a lock file before each write', () => {
  it('a recent refresh: at once; after a stall: once a refresh confirmed it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-fresh-'));
    const held = await new FileLockStore(dir, { staleMs: 2000 }).acquire(scope, holder());
    try {
      expect(held.confirmed?.()).toBeUndefined();
      stall(1.5);
      const waiting = held.confirmed?.();
      expect(waiting).toBeInstanceOf(Promise);
      await expect(waiting).resolves.toBeUndefined();
      expect(held.confirmed?.()).toBeUndefined();
    } finally {
      await held.release();
    }
  });

  it('taken over while the holder stalled: the write is refused, the lock lost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-fresh-'));
    const held = await new FileLockStore(dir, { staleMs: 2000 }).acquire(scope, holder());
    const lockDir = join(dir, 'fresh-products.json.lock');
    try {
      // Another run found it stale and took it: the lock folder is made again, with its own mtime.
      stall(2.5, `rmdir '${lockDir}' && mkdir '${lockDir}'`);
      const waiting = held.confirmed?.();
      expect(waiting).toBeInstanceOf(Promise);
      await expect(waiting).rejects.toThrow();
      await expect(held.lost).rejects.toThrow();
      await expect(held.confirmed?.()).rejects.toThrow();
    } finally {
      await held.release();
    }
  });
});
