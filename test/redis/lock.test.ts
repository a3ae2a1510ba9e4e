// The run lock in Redis: one holder per tenant and entity, renewed while alive, expired after its
// holder died (a child process killed with SIGKILL), taken over with the previous holder told.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLockStore } from '../../src/lock/redis.js';
import type { LockHolder } from '../../src/lock/types.js';
import { connectRedis } from '../../src/redis/connection.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';
import { expectCode } from '../readers/helpers.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const holder = (runId: string): LockHolder => ({
  runId,
  pid: process.pid,
  host: hostname(),
  startedAt: new Date().toISOString(),
});

describe.runIf(redisTestsRun('test/redis/lock.test.ts'))('run lock in Redis', () => {
  const redis = useRedis();
  let client: Redis;
  beforeAll(async () => {
    client = await connectRedis(redis.url);
  });
  afterAll(() => client?.disconnect());

  it('one holder per tenant and entity; the refused run is told who holds it; released, it is free', async () => {
    const store = new RedisLockStore(client, { ttlMs: 2000 });
    const scope = { tenant: 'tA', entity: 'products' };
    const a = await store.acquire(scope, holder('run-a'));
    const refused = await expectCode(store.acquire(scope, holder('run-b')), 'LOCKED');
    expect(refused.message).toContain('run run-a');
    expect(await store.holder(scope)).toEqual(a.holder);
    // Another entity or tenant is not held.
    const other = await store.acquire({ tenant: 'tA', entity: 'variants' }, holder('run-c'));
    await other.release();
    await a.release();
    await a.release();
    expect(await store.holder(scope)).toBeUndefined();
    const takeovers: LockHolder[] = [];
    const b = await store.acquire(scope, holder('run-b'), { onTakeover: (p) => takeovers.push(p) });
    expect(takeovers).toEqual([]);
    await b.release();
    // Only the marker that says Redis keeps its locks (lock/redis.ts) stays.
    expect(await client.keys('*')).toEqual(['catalog-io:locks-kept']);
  });

  it('renews while alive: a holder outlives many TTLs', async () => {
    const store = new RedisLockStore(client, { ttlMs: 400 });
    const scope = { tenant: 'tB', entity: 'products' };
    const a = await store.acquire(scope, holder('run-a'));
    await new Promise((r) => setTimeout(r, 1500));
    await expectCode(store.acquire(scope, holder('run-b')), 'LOCKED');
    await a.release();
  });

  it('a waiting run gets the lock when the holder releases it', async () => {
    const store = new RedisLockStore(client, { pollMs: 50 });
    const scope = { tenant: 'tC', entity: 'products' };
    const a = await store.acquire(scope, holder('run-a'));
    setTimeout(() => void a.release(), 300);
    const b = await store.acquire(scope, holder('run-b'), { waitMs: 5000 });
    expect(b.holder.runId).toBe('run-b');
    await b.release();
  });

  it("a killed holder's lock expires; the next run takes it over and is told whose it was", async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', TSX, join(import.meta.dirname, 'fixtures/hold-lock.ts'), redis.url, '1000'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (c) => String(c).includes('held') && resolve());
      child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    const store = new RedisLockStore(client, { pollMs: 100 });
    const scope = { tenant: 't1', entity: 'products' };
    expect((await store.holder(scope))?.runId).toBe('child-run');
    await new Promise((r) => setTimeout(r, 1500));
    // Still renewed by the live child.
    await expectCode(store.acquire(scope, holder('run-b')), 'LOCKED');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const takeovers: LockHolder[] = [];
    const t0 = Date.now();
    const b = await store.acquire(scope, holder('run-b'), {
      waitMs: 10_000,
      onTakeover: (p) => takeovers.push(p),
    });
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(takeovers.map((p) => p.runId)).toEqual(['child-run']);
    await b.release();
  }, 60_000);

  it('tells a holder that lost its lock', async () => {
    const store = new RedisLockStore(client, { ttlMs: 300 });
    const scope = { tenant: 'tD', entity: 'products' };
    const a = await store.acquire(scope, holder('run-a'));
    await client.set(`catalog-io:lock:tD:products`, 'someone else');
    await expect(a.lost).rejects.toMatchObject({ code: 'LOCK_LOST' });
    await a.release();
    expect(await client.get(`catalog-io:lock:tD:products`)).toBe('someone else');
  });
});
