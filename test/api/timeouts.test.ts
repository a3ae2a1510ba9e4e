// A hostile network against the client: a service that accepts and never answers, one that sends its
// headers and then stalls or trickles the body, 503s with Retry-After. One deadline bounds each try
// (headers and whole body), one budget bounds all tries of a request, and the error says which
// request gave up, after how many tries, and what to raise — never the key.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, type Clients, createClients, RETRY_DEFAULTS } from '../../src/api/index.js';
import { TIMEOUT_DEFAULTS } from '../../src/api/transport.js';
import { sendJson, type TinyServer, tinyServer } from './tiny-server.js';

const KEY = 'timeouts-test-key-0001';
const opened: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

/** A server whose answers are scripted by path; it counts connections and requests. */
async function hostileServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ url: string; requests: number; close(): Promise<void> }> {
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    state.requests += 1;
    req.resume();
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const handle = {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  opened.push(handle);
  return handle;
}

function clientsFor(
  url: string,
  options: { timeoutMs: number; budgetMs: number; maxAttempts?: number },
): Clients {
  const clients = createClients({
    catalogUrl: `${url}/catalog`,
    apiKey: KEY,
    rateLimit: null,
    timeoutMs: options.timeoutMs,
    // One request alone here: the circuit (a service found unreachable again and again holds the
    // requests, test/api/outage.test.ts) is turned off, so the try deadline and budget show.
    outage: { threshold: Number.POSITIVE_INFINITY },
    retry: {
      budgetMs: options.budgetMs,
      baseDelayMs: 20,
      maxDelayMs: 50,
      ...(options.maxAttempts !== undefined && { maxAttempts: options.maxAttempts }),
    },
  });
  opened.push({ close: () => clients.transport.close() });
  return clients;
}

async function failure(p: Promise<unknown>): Promise<{ err: ApiError; ms: number }> {
  const started = Date.now();
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return { err: err as ApiError, ms: Date.now() - started };
}

describe('a service that hangs', () => {
  const cases: Array<[string, (req: http.IncomingMessage, res: http.ServerResponse) => void]> = [
    ['accepts and never answers', () => undefined],
    [
      'sends its headers, then stalls the body',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"value":');
      },
    ],
    [
      // undici's body timeout waits between chunks: a byte every 50 ms would hold it for ever.
      'trickles the body a byte at a time, never finishing',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(timer));
      },
    ],
  ];

  it.each(cases)('%s: each try ends at its deadline, all tries within the budget', async (_name, handler) => {
    const server = await hostileServer(handler);
    const { catalog } = clientsFor(server.url, { timeoutMs: 400, budgetMs: 1500 });
    const { err, ms } = await failure(catalog.get('/Products'));
    expect(err.code).toBe('API_TIMEOUT');
    // The budget bounds the whole request, retries included (plus a margin for a loaded machine).
    expect(ms).toBeGreaterThanOrEqual(1400);
    expect(ms).toBeLessThan(1500 + 3000);
    expect(err.attempts).toBeGreaterThanOrEqual(3);
    expect(err.details.attempts).toBe(err.attempts);
    expect(server.requests).toBe(err.attempts);
    expect(err.message).toContain('Catalog API GET /Products');
    expect(err.message).toContain(`after ${err.attempts} tries`);
    expect(err.message).toContain('--timeout');
    expect(err.message).toContain('--retry-budget');
    expect(err.message).not.toContain(KEY);
  });

  it('a POST that times out is not tried again: it may have been processed', async () => {
    const server = await hostileServer(() => undefined);
    const { catalog } = clientsFor(server.url, { timeoutMs: 300, budgetMs: 5000 });
    const { err } = await failure(catalog.create('/Products', { prod_ref: 'X' }));
    expect(err.code).toBe('API_TIMEOUT');
    expect(err.ambiguous).toBe(true);
    expect(err.attempts).toBe(1);
    expect(server.requests).toBe(1);
    expect(err.message).toMatch(/no complete answer within 300 ms/);
    expect(err.message).toContain('--timeout or timeoutMs, now 300 ms');
  });

  it('by default one try has 30 s and a request 2 minutes in all, retries included', () => {
    expect(TIMEOUT_DEFAULTS.timeoutMs).toBe(30_000);
    expect(RETRY_DEFAULTS.budgetMs).toBe(120_000);
  });
});

describe('giving up', () => {
  let server: TinyServer;

  it('after maxAttempts 5xx, the error says how many tries and carries them in its details', async () => {
    server = await tinyServer((_req, res) => sendJson(res, 500, { error: 'boom' }));
    opened.push(server);
    const { catalog } = clientsFor(server.url, { timeoutMs: 2000, budgetMs: 60_000, maxAttempts: 6 });
    const { err } = await failure(catalog.get('/Products(1)'));
    expect(err.code).toBe('API_SERVER');
    expect(err.attempts).toBe(6);
    expect(err.details.attempts).toBe(6);
    expect(err.message).toMatch(/^Catalog API GET \/Products\(1\): 500 .*boom.*after 6 tries/);
    expect(server.requests).toHaveLength(6);
  });

  it('a first failure that is not retried says nothing of tries', async () => {
    server = await tinyServer((_req, res) => sendJson(res, 404, { title: 'Not Found', detail: 'no' }));
    opened.push(server);
    const { catalog } = clientsFor(server.url, { timeoutMs: 2000, budgetMs: 60_000 });
    const { err } = await failure(catalog.get('/Products(1)'));
    expect(err.code).toBe('API_NOT_FOUND');
    expect(err.attempts).toBe(1);
    expect(err.message).not.toContain('tries');
  });
});

describe('503 with Retry-After', () => {
  it('waits the seconds it asks for, then succeeds', async () => {
    const server = await tinyServer((_req, res, index) =>
      index < 2
        ? sendJson(res, 503, { message: 'Service Unavailable' }, { 'retry-after': '1' })
        : sendJson(res, 200, { value: [] }),
    );
    opened.push(server);
    const { catalog } = clientsFor(server.url, { timeoutMs: 2000, budgetMs: 60_000 });
    await catalog.get('/Products');
    const at = server.requests.map((r) => r.at);
    expect(at).toHaveLength(3);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(950);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(950);
  });

  it('a wait that does not fit in the budget is not started: the request gives up and says so', async () => {
    const server = await tinyServer((_req, res) =>
      sendJson(res, 503, { message: 'Service Unavailable' }, { 'retry-after': '5' }),
    );
    opened.push(server);
    const { catalog } = clientsFor(server.url, { timeoutMs: 2000, budgetMs: 3000 });
    const { err, ms } = await failure(catalog.get('/Products'));
    expect(ms).toBeLessThan(2500);
    expect(server.requests).toHaveLength(1);
    expect(err.code).toBe('API_SERVER');
    expect(err.retryAfterSeconds).toBe(5);
    expect(err.message).toContain('(retry after 5 s)');
    expect(err.message).toContain('--retry-budget or retryBudgetMs, now 3000 ms');
  });

  it('a Retry-After longer than the longest wait honoured fails at once, naming both', async () => {
    const server = await tinyServer((_req, res) =>
      sendJson(res, 503, { message: 'Service Unavailable' }, { 'retry-after': '600' }),
    );
    opened.push(server);
    const { catalog } = clientsFor(server.url, { timeoutMs: 2000, budgetMs: 60_000 });
    const { err } = await failure(catalog.get('/Products'));
    expect(server.requests).toHaveLength(1);
    expect(err.message).toContain('the service asked to wait 600 s, longer than the 2 min waited at most');
  });
});

describe('time limits given by a library caller', () => {
  it.each([
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ timeoutMs: 2 ** 31 }, 'timeoutMs'],
    [{ timeoutMs: Number.NaN }, 'timeoutMs'],
    [{ retry: { budgetMs: -1 } }, 'retry.budgetMs'],
  ])(
    '%j is CONFIG_INVALID naming the option (a timer past 24.8 days would fire at once)',
    (options, name) => {
      let caught: unknown;
      try {
        createClients({ catalogUrl: 'http://127.0.0.1:9/catalog', apiKey: KEY, ...options });
      } catch (err) {
        caught = err;
      }
      expect((caught as { code?: string }).code).toBe('CONFIG_INVALID');
      expect((caught as Error).message).toContain(`${name} must be a number of milliseconds`);
    },
  );
});
