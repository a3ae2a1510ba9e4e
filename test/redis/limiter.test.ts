// The rate limit shared through Redis: limiters of one tenant in different clients together keep
// the rate; another tenant has its own. Against a real redis-server.

import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { connectRedis } from '../../src/redis/connection.js';
import { SharedLimiter, spacingMs } from '../../src/redis/limiter.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';
import { useSandbox } from '../helpers/sandbox.js';

describe.runIf(redisTestsRun('test/redis/limiter.test.ts'))('shared rate limit', () => {
  const redis = useRedis();
  let client: Redis;
  beforeAll(async () => {
    client = await connectRedis(redis.url);
  });
  afterAll(() => client?.disconnect());

  it('three limiters of one tenant together keep the rate: none over the window, at most one start per spacing', async () => {
    const rate = { requests: 20, windowSeconds: 1 };
    const limiters = [0, 1, 2].map(
      () => new SharedLimiter({ redis: client, tenant: 'tenant-a', rateLimit: rate }),
    );
    const starts: number[] = [];
    await Promise.all(
      limiters.map((limiter) =>
        Promise.all(
          Array.from({ length: 15 }, () =>
            limiter.schedule(async () => {
              starts.push(Date.now());
            }),
          ),
        ),
      ),
    );
    await Promise.all(limiters.map((l) => l.stop({ dropWaitingJobs: true })));
    starts.sort((a, b) => a - b);
    expect(starts).toHaveLength(45);
    // Redis spaces the starts by its clock; each process then runs its job on a timer, which a busy
    // machine can fire late (one gap shrinks as the one before grows): counted over windows, not gaps.
    for (let i = 0; i < starts.length; i++) {
      const inWindow = starts.filter((t) => t >= starts[i]! && t < starts[i]! + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(rate.requests);
    }
    // Spacing is the only wait: the three together run at the limit (less the margin), not a third of it.
    const rateSeen = ((starts.length - 1) / (starts.at(-1)! - starts[0]!)) * 1000;
    expect(rateSeen).toBeGreaterThan(rate.requests * 0.85);
    // Each limiter alone would allow the whole rate: three unshared ones, three times it.
    expect(rateSeen).toBeLessThanOrEqual(1000 / spacingMs(rate) + 1);
  });

  it('another tenant is not slowed by the first', async () => {
    const rate = { requests: 5, windowSeconds: 10 };
    const a = new SharedLimiter({ redis: client, tenant: 'tenant-b', rateLimit: rate });
    const b = new SharedLimiter({ redis: client, tenant: 'tenant-c', rateLimit: rate });
    const t0 = Date.now();
    await Promise.all([a.schedule(async () => 1), b.schedule(async () => 2)]);
    expect(Date.now() - t0).toBeLessThan(1500);
    await Promise.all([a.stop({ dropWaitingJobs: true }), b.stop({ dropWaitingJobs: true })]);
  });

  it('a lower limit applies even when Redis holds a higher one from an earlier run; the strictest live one wins', async () => {
    const minTime = () => client.hget('b_catalog-io:limit:tenant-d_settings', 'minTime').then(Number);
    const fast = { requests: 20, windowSeconds: 1 };
    const slow = { requests: 2, windowSeconds: 1 };
    // An earlier run at 20/1 leaves its settings in Redis (no expiry).
    const earlier = new SharedLimiter({ redis: client, tenant: 'tenant-d', rateLimit: fast });
    await earlier.ready();
    await earlier.schedule(async () => 1);
    await earlier.stop({ dropWaitingJobs: true });
    expect(await minTime()).toBe(spacingMs(fast));

    // A run at 2/1: its spacing, and its requests are spaced by it (a lower bound: never flaky).
    const slowRun = new SharedLimiter({ redis: client, tenant: 'tenant-d', rateLimit: slow });
    await slowRun.ready();
    expect(await minTime()).toBe(spacingMs(slow));
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 3 }, () => slowRun.schedule(async () => starts.push(Date.now()))));
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(2 * spacingMs(slow) - 50);

    // A faster run started while the slow one is alive does not loosen it (last started does not win).
    const later = new SharedLimiter({ redis: client, tenant: 'tenant-d', rateLimit: fast });
    await later.ready();
    expect(await minTime()).toBe(spacingMs(slow));
    // Once the slow run stops, the faster one's limit applies again.
    await slowRun.stop({ dropWaitingJobs: true });
    expect(await minTime()).toBe(spacingMs(fast));
    await later.stop({ dropWaitingJobs: true });
  });

  it('a 429 one process sees slows every process of the tenant; accepted requests bring the pace back, not past the limit', async () => {
    const minTime = () => client.hget('b_catalog-io:limit:tenant-e_settings', 'minTime').then(Number);
    /** Polls a state until it holds (a renewal comes every 2 s): no time is asserted. */
    const until = async (holds: () => Promise<boolean> | boolean) => {
      for (let i = 0; i < 200 && !(await holds()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await holds()).toBe(true);
    };
    const rate = { requests: 20, windowSeconds: 1 };
    const halved = spacingMs({ requests: 10, windowSeconds: 1 });
    const a = new SharedLimiter({ redis: client, tenant: 'tenant-e', rateLimit: rate });
    const b = new SharedLimiter({ redis: client, tenant: 'tenant-e', rateLimit: rate });
    await Promise.all([a.ready(), b.ready()]);
    expect(await minTime()).toBe(spacingMs(rate));

    a.answered(true, performance.now());
    // Said at once by the process that saw it; the other takes it up at its next renewal.
    await until(async () => (await minTime()) === halved);
    expect(a.requestRate()).toBeCloseTo(1000 / halved);
    await until(() => Math.abs(b.requestRate() - 1000 / halved) < 1e-9);

    for (let i = 0; i < 2_000; i++) a.answered(false, performance.now());
    await until(async () => (await minTime()) === spacingMs(rate));
    expect(a.requestRate()).toBeCloseTo(1000 / spacingMs(rate));
    await until(() => Math.abs(b.requestRate() - 1000 / spacingMs(rate)) < 1e-9);
    await Promise.all([a.stop({ dropWaitingJobs: true }), b.stop({ dropWaitingJobs: true })]);
  });

  describe('against a service that allows less than the limit', () => {
    // The service takes 10 requests per second; two processes of the tenant are told 50.
    const fixture = useSandbox({ rateLimit: { requests: 10, windowSeconds: 1 } });
    const REQUESTS = 80;

    it('the shared pace comes down on 429s: far fewer 429s than requests, every request answered', async () => {
      const sb = fixture.sb;
      const rate = { requests: 50, windowSeconds: 1 };
      const runs = [0, 1].map(() =>
        createClients({
          catalogUrl: sb.catalogUrl,
          apiKey: sb.apiKey,
          limiter: new SharedLimiter({ redis: client, tenant: 'tenant-f', rateLimit: rate }),
        }),
      );
      await fetch(`${sb.origin}/_sandbox/stats/reset`, { method: 'POST' });
      try {
        await Promise.all(
          runs.flatMap((run) =>
            Array.from({ length: REQUESTS / 2 }, () =>
              run.catalog.get('/Categories', { query: { $top: 1 } }),
            ),
          ),
        );
        const stats = (await (await fetch(`${sb.origin}/_sandbox/stats`)).json()) as {
          byStatus: Record<string, number>;
        };
        expect(stats.byStatus['200']).toBe(REQUESTS);
        const limited = stats.byStatus['429'] ?? 0;
        // The first windows are refused in part while the pace comes down (one cut per window: the
        // spaced starts resume at once after a cut); kept at 50, the two are refused window after
        // window, far more often than they have requests.
        expect(limited).toBeGreaterThan(0);
        expect(limited).toBeLessThan(REQUESTS * 0.75);
      } finally {
        await Promise.all(runs.map((run) => run.transport.close()));
      }
    }, 60_000);
  });
});
