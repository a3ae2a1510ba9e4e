// What passes is waited out: a storm of 429s within the retry budget (more tries than maxAttempts),
// a service refusing connections within the outage budget (the circuit holds requests and probes),
// and only past that budget does a request give up (API_UNREACHABLE). A run that stops cuts its
// requests at once. Against the sandbox through a loopback fault proxy; budgets scaled down together.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OutageNotice } from '../../src/api/circuit.js';
import { ApiError, type Clients, createClients, type TransportOptions } from '../../src/api/index.js';
import { type FaultProxy, faultProxy } from '../helpers/fault-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty' });
let proxy: FaultProxy;
const opened: Clients[] = [];

beforeAll(async () => {
  proxy = await faultProxy(fixture.sb.catalogUrl);
});
afterAll(async () => {
  await proxy?.close();
});
const storms: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const t of storms.splice(0)) clearTimeout(t);
  for (const c of opened.splice(0)) await c.transport.close();
  await proxy.set({ kind: 'pass' });
  for (const k of Object.keys(proxy.faulted)) delete proxy.faulted[k];
});

function clients(options: TransportOptions = {}): Clients {
  const c = createClients({
    catalogUrl: proxy.via(fixture.sb.catalogUrl),
    damUrl: proxy.via(fixture.sb.damUrl),
    apiKey: fixture.sb.apiKey,
    rateLimit: null,
    ...options,
  });
  opened.push(c);
  return c;
}

/** Turns a fault on now and off after `ms`. */
async function storm(fault: Parameters<FaultProxy['set']>[0], ms: number): Promise<void> {
  await proxy.set(fault);
  storms.push(setTimeout(() => void proxy.set({ kind: 'pass' }), ms));
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('a storm of 429s', () => {
  it('without Retry-After: waited out with backoff for as long as the budget lasts, past maxAttempts', async () => {
    const { catalog, transport } = clients({
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 150, budgetMs: 6_000 },
    });
    await storm({ kind: 'status', status: 429 }, 1_500);
    const page = await catalog.get<{ value: unknown[] }>('/Products', { query: { $top: 1 } });
    expect(page.value).toEqual([]);
    // Many more 429s than tries allowed: a 429 is not a try that counts.
    expect(proxy.faulted['429']).toBeGreaterThan(3);
    expect(transport.snapshot().rateLimited).toBe(proxy.faulted['429']);
  });

  it('with Retry-After: each wait is what the service asks, past maxAttempts', async () => {
    // One try allowed: every retry here is a 429 waited out.
    const { catalog } = clients({ retry: { maxAttempts: 1, budgetMs: 10_000 } });
    const started = Date.now();
    await storm({ kind: 'status', status: 429, retryAfterSeconds: 1 }, 2_500);
    await catalog.get('/Products', { query: { $top: 1 } });
    expect(proxy.faulted['429']).toBeGreaterThanOrEqual(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_400);
  });

  it('longer than the retry budget: the request fails, saying which setting to raise', async () => {
    const { catalog } = clients({ retry: { baseDelayMs: 20, maxDelayMs: 100, budgetMs: 1_000 } });
    await proxy.set({ kind: 'status', status: 429 });
    const started = Date.now();
    const err = await rejection(catalog.get('/Products'));
    // No last try on a sliver of budget: the error is the service's own answer.
    expect(err.code).toBe('API_RATE_LIMITED');
    expect(err.message).toContain('--retry-budget');
    expect(proxy.faulted['429']).toBeGreaterThan(3);
    expect(Date.now() - started).toBeLessThan(1_000 + 2_000);
  });
});

describe('a service that cannot be reached', () => {
  const outage = { budgetMs: 4_000, probeBaseMs: 100, probeMaxMs: 400 };

  it('refusing connections for a while: requests wait for it, then go on; notices say since when', async () => {
    const notices: OutageNotice[] = [];
    const { catalog } = clients({
      retry: { baseDelayMs: 10, maxDelayMs: 50, budgetMs: 500 },
      outage,
      onOutage: (service, n) => {
        expect(service).toBe('Catalog API');
        notices.push(n);
      },
    });
    await storm({ kind: 'refuse' }, 1_500);
    const started = Date.now();
    // Four requests at once, each with a retry budget far shorter than the outage.
    const pages = await Promise.all(
      [1, 2, 3, 4].map(() => catalog.get<{ value: unknown[] }>('/Products', { query: { $top: 1 } })),
    );
    expect(pages.every((p) => Array.isArray(p.value))).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_300);
    expect(notices.map((n) => n.state)).toEqual(['waiting', 'back']);
    expect(notices[0]!.why).toBe('ECONNREFUSED');
    expect(notices[0]!.since.getTime()).toBeGreaterThanOrEqual(started - 50);
  });

  it('one request alone, out of time before five failures: it waits for the service instead of failing', async () => {
    const notices: string[] = [];
    const { catalog } = clients({
      retry: { baseDelayMs: 100, maxDelayMs: 200, budgetMs: 300 },
      outage,
      onOutage: (_s, n) => notices.push(n.state),
    });
    await storm({ kind: 'refuse' }, 1_500);
    await expect(catalog.get('/Products', { query: { $top: 1 } })).resolves.toBeDefined();
    expect(notices).toEqual(['waiting', 'back']);
  });

  it('gateway 502s count as unreachable too; a POST refused at connect waits and is sent once', async () => {
    const { catalog } = clients({ retry: { baseDelayMs: 10, maxDelayMs: 50, budgetMs: 500 }, outage });
    await storm({ kind: 'status', status: 502 }, 1_200);
    await expect(catalog.get('/Products', { query: { $top: 1 } })).resolves.toBeDefined();
    // A new transport: no kept-alive connection the refusal could cut while the POST is on it.
    const fresh = clients({ retry: { baseDelayMs: 10, maxDelayMs: 50, budgetMs: 500 }, outage }).catalog;
    await storm({ kind: 'refuse' }, 1_200);
    const created = await fresh.create('/Products', { prod_ref: 'OUTAGE-POST', prod_title: 'Once' });
    expect(created.id).toBeDefined();
    const found = await catalog.get<{ value: unknown[] }>('/Products', {
      query: { $filter: "prod_ref eq 'OUTAGE-POST'" },
    });
    expect(found.value).toHaveLength(1);
  });

  it('past the outage budget: the waiting requests give up with API_UNREACHABLE, in bounded time', async () => {
    const notices: string[] = [];
    const { catalog } = clients({
      retry: { baseDelayMs: 10, maxDelayMs: 50 },
      outage: { budgetMs: 1_500, probeBaseMs: 100, probeMaxMs: 400 },
      onOutage: (_s, n) => notices.push(n.state),
    });
    await proxy.set({ kind: 'refuse' });
    const started = Date.now();
    const errs = await Promise.all([1, 2, 3].map(() => rejection(catalog.get('/Products'))));
    const ms = Date.now() - started;
    for (const err of errs) {
      expect(err.code).toBe('API_UNREACHABLE');
      expect(err.message).toMatch(
        /^Catalog API GET \/Products: the service could not be reached \(ECONNREFUSED\) since \d\d:/,
      );
      expect(err.message).toContain('--outage-budget');
      expect(err.message).not.toContain(fixture.sb.apiKey);
    }
    expect(ms).toBeGreaterThanOrEqual(1_400);
    expect(ms).toBeLessThan(1_500 + 3_000);
    expect(notices).toEqual(['waiting', 'gone']);
    // Gone: a new request does not wait the budget again.
    const again = Date.now();
    expect((await rejection(catalog.get('/Products'))).code).toBe('API_UNREACHABLE');
    expect(Date.now() - again).toBeLessThan(1_000);
    // The probes go on: once the service answers again, requests go through.
    await proxy.set({ kind: 'pass' });
    await expect.poll(() => notices.at(-1), { timeout: 5_000 }).toBe('back');
    await expect(catalog.get('/Products', { query: { $top: 1 } })).resolves.toBeDefined();
  });

  it('a service that hangs (no answer within the try deadline) is unreachable as well', async () => {
    const notices: string[] = [];
    const { catalog } = clients({
      timeoutMs: 200,
      retry: { baseDelayMs: 10, maxDelayMs: 50, budgetMs: 10_000 },
      outage: { budgetMs: 1_500, probeBaseMs: 100, probeMaxMs: 400 },
      onOutage: (_s, n) => notices.push(n.state),
    });
    await proxy.set({ kind: 'hang' });
    const started = Date.now();
    const err = await rejection(catalog.get('/Products'));
    expect(err.code).toBe('API_UNREACHABLE');
    // Five tries of 200 ms open the circuit; the budget then bounds the wait, not the 10 s retry budget.
    expect(Date.now() - started).toBeLessThan(1_000 + 1_500 + 3_000);
    expect(notices).toEqual(['waiting', 'gone']);
  });
});

describe('a run that stops', () => {
  it('cuts the tries in flight after the grace, and waits end at once', async () => {
    const { catalog, transport } = clients({ timeoutMs: 60_000, retry: { budgetMs: 120_000 } });
    await proxy.set({ kind: 'hang' });
    const pending = rejection(catalog.get('/Products'));
    await expect.poll(() => proxy.faulted.hang ?? 0).toBeGreaterThan(0);
    const started = Date.now();
    transport.interrupt(300);
    const err = await pending;
    expect(err.code).toBe('API_STOPPED');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(2_000);
    // Nothing new is sent once the run stops.
    const before = proxy.faulted.hang;
    expect((await rejection(catalog.get('/Products'))).code).toBe('API_STOPPED');
    expect(proxy.faulted.hang).toBe(before);
  });

  it('ends the wait for an unreachable service at once', async () => {
    const { catalog, transport } = clients({
      retry: { baseDelayMs: 10, maxDelayMs: 50 },
      outage: { budgetMs: 60_000, probeBaseMs: 100, probeMaxMs: 400 },
    });
    await proxy.set({ kind: 'refuse' });
    const pending = rejection(catalog.get('/Products'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    transport.interrupt(0);
    expect((await pending).code).toBe('API_STOPPED');
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe('one service given up on', () => {
  it('the other is not waited for a second budget: its waits and its next unreachable request end at once', async () => {
    const notices: string[] = [];
    const { catalog, dam } = clients({
      retry: { baseDelayMs: 10, maxDelayMs: 50 },
      outage: { budgetMs: 1_500, probeBaseMs: 100, probeMaxMs: 400 },
      onOutage: (s, n) => notices.push(`${s} ${n.state}`),
    });
    // Both services go (one proxy for both): the Catalog API is given up on after its budget.
    await proxy.set({ kind: 'refuse' });
    expect((await rejection(catalog.get('/Products'))).code).toBe('API_UNREACHABLE');
    expect(notices).toEqual(['Catalog API waiting', 'Catalog API gone']);
    // The DAM, unreachable too, is not waited for: the run is stopping.
    const started = Date.now();
    const err = await rejection(dam!.getAsset('image', 'nothing.png'));
    expect(err.code).toBe('API_STOPPED');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(notices).toEqual(['Catalog API waiting', 'Catalog API gone']);
  });
});
