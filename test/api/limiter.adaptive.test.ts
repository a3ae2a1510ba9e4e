// The pace adapts to the service: a client whose --rate-limit is above the service's real limit (or
// which shares the tenant's quota) lowers its pace after 429s instead of provoking them in every
// window, and raises it back slowly while requests are accepted, never above the configured limit.
import { describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { AdaptivePace, RunLimiter } from '../../src/api/limiter.js';
import { type PaceNotice, PaceRecord } from '../../src/api/pace.js';
import { useSandbox } from '../helpers/sandbox.js';

describe('adaptive pace', () => {
  it('halves on a 429, once per window, climbs back one request per window of accepted ones, never above the limit', () => {
    // 50 requests per window; a 429 cuts again only for a try started 1000 ms or more after a cut.
    const pace = new AdaptivePace(50, 1_000);
    expect(pace.requests).toBe(50);
    expect(pace.limited(10, 100)).toBe(true);
    expect(pace.requests).toBe(25);
    // The 429s of tries started before the cut, or less than a window after it, met the service's
    // window still full of requests sent at the old pace: no second cut.
    expect(pace.limited(99, 150)).toBe(false);
    expect(pace.limited(1_050, 1_060)).toBe(false);
    expect(pace.requests).toBe(25);
    // A try started a window after the cut: the lower pace is still too high.
    expect(pace.limited(1_100, 1_200)).toBe(true);
    expect(pace.requests).toBe(12);
    // About one request more per window's worth of accepted requests.
    for (let i = 0; i < 13; i++) pace.accepted();
    expect(pace.requests).toBe(13);
    const seen: number[] = [];
    for (let i = 0; i < 5_000; i++) {
      pace.accepted();
      seen.push(pace.requests);
    }
    // Back to the configured limit, never above it, and never down while requests are accepted.
    expect(Math.max(...seen)).toBe(50);
    expect(pace.requests).toBe(50);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // Never below one request per window.
    for (let t = 10_000; t < 40_000; t += 1_000) pace.limited(t, t);
    expect(pace.requests).toBe(1);
  });

  it('a run limiter holds its starts to the lowered pace at once, and says the lowered rate', async () => {
    // A window far longer than the test: only the starts the pace allows leave.
    const limiter = new RunLimiter({ concurrency: 16, rateLimit: { requests: 8, windowSeconds: 600 } });
    const fullRate = limiter.requestRate()!;
    let started = 0;
    const job = () =>
      limiter.schedule(async () => {
        started += 1;
      });
    await Promise.all([job(), job()]);
    limiter.answered(true, performance.now());
    expect(limiter.pace?.requests).toBe(4);
    expect(limiter.requestRate()).toBeCloseTo(fullRate / 2);
    const rest = Array.from({ length: 6 }, () => job().catch(() => 'dropped'));
    await new Promise((r) => setTimeout(r, 200));
    // 4 in the window at the lowered pace, not 8.
    expect(started).toBe(4);
    await limiter.stop({ dropWaitingJobs: true });
    expect((await Promise.all(rest)).filter((r) => r === 'dropped')).toHaveLength(4);
  });

  it("the run's pace record: lowered, back at the limit, the lowest and the time below it", async () => {
    const limiter = new RunLimiter({ rateLimit: { requests: 4, windowSeconds: 10 } });
    const notices: PaceNotice[] = [];
    const record = new PaceRecord((notice) => notices.push(notice));
    expect(record.summary(limiter.paceNow())).toEqual({
      limitPerWindow: 4,
      windowSeconds: 10,
      lowestPerWindow: 4,
      timesLowered: 0,
      belowLimitMs: 0,
    });
    const answer = (limited: boolean) => {
      limiter.answered(limited, performance.now());
      record.observe('DAM API', limiter.paceNow());
    };
    answer(false);
    answer(true);
    answer(true);
    await new Promise((r) => setTimeout(r, 20));
    while (limiter.paceNow()!.requests < 4) answer(false);
    answer(false);
    // Each cut is told (the CLI decides what it says), the return to the limit once.
    expect(
      notices.map((n) => (n.state === 'lowered' ? `${n.service} ${n.from}->${n.to}` : `back ${n.lowest}`)),
    ).toEqual(['DAM API 4->2', 'DAM API 2->1', 'back 1']);
    const summary = record.summary(limiter.paceNow())!;
    expect(summary).toMatchObject({ limitPerWindow: 4, lowestPerWindow: 1, timesLowered: 2 });
    expect(summary.belowLimitMs).toBeGreaterThanOrEqual(15);
    await limiter.stop({ dropWaitingJobs: true });
  });

  it('without a rate limit there is no pace to adapt', () => {
    const limiter = new RunLimiter({ rateLimit: null });
    limiter.answered(true, performance.now());
    expect(limiter.pace).toBeUndefined();
    expect(limiter.requestRate()).toBeUndefined();
  });
});

describe('a client above the service limit', () => {
  // The service takes 10 requests per second; the client is told 50.
  const fixture = useSandbox({ rateLimit: { requests: 10, windowSeconds: 1 } });
  const REQUESTS = 60;

  it('lowers its pace after 429s: far fewer 429s than requests, every request answered', async () => {
    const sb = fixture.sb;
    const clients = createClients({
      catalogUrl: sb.catalogUrl,
      apiKey: sb.apiKey,
      concurrency: 8,
      rateLimit: { requests: 50, windowSeconds: 1 },
    });
    await fetch(`${sb.origin}/_sandbox/stats/reset`, { method: 'POST' });
    try {
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, () => clients.catalog.get('/Categories', { query: { $top: 1 } })),
      );
      expect(answers).toHaveLength(REQUESTS);
      const stats = (await (await fetch(`${sb.origin}/_sandbox/stats`)).json()) as {
        byStatus: Record<string, number>;
      };
      const limited = stats.byStatus['429'] ?? 0;
      // Every request was answered once, and the client counted the 429s the sandbox sent.
      expect(stats.byStatus['200']).toBe(REQUESTS);
      expect(clients.transport.snapshot().rateLimited).toBe(limited);
      // The first burst is refused in part (the client did not know the limit yet)...
      expect(limited).toBeGreaterThan(0);
      // ...but a client that kept its pace of 50 is refused 40 of every 50 tries, window after window
      // (140 429s here, more than two per request); one that lowers its pace is refused in a few
      // windows only (18 here).
      expect(limited).toBeLessThan(REQUESTS / 2);
    } finally {
      await clients.transport.close();
    }
  }, 60_000);
});
