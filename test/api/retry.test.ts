// The retry policy against a real server: what is retried, what waits, and what a POST never does.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, type Clients, createClients } from '../../src/api/index.js';
import { backoffMs, decideRetry, RETRY_DEFAULTS, retryPolicy } from '../../src/api/retry.js';
import { type Handler, sendJson, type TinyServer, tinyServer } from './tiny-server.js';

const KEY = 'retry-test-key-0001';
const opened: Array<{ server: TinyServer; clients: Clients }> = [];

async function setup(handler: Handler, retry = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 }) {
  const server = await tinyServer(handler);
  const clients = createClients({
    catalogUrl: `${server.url}/api`,
    damUrl: `${server.url}/dam`,
    apiKey: KEY,
    rateLimit: null,
    retry,
  });
  opened.push({ server, clients });
  return { server, ...clients };
}

afterEach(async () => {
  for (const { server, clients } of opened.splice(0)) {
    await clients.transport.close();
    await server.close();
  }
});

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('idempotent requests', () => {
  it('GET is retried after 5xx and connection resets, then succeeds', async () => {
    const { server, catalog, transport } = await setup((_req, res, i) => {
      if (i === 0) return sendJson(res, 503, { error: 'busy' });
      if (i === 1) return res.socket?.destroy();
      if (i === 2) return sendJson(res, 500, { error: 'oops' });
      sendJson(res, 200, { value: { prod_id: 1 } });
    });
    expect(await catalog.getEntity('/Products(1)')).toEqual({ prod_id: 1 });
    expect(server.requests).toHaveLength(4);
    const snap = transport.snapshot();
    expect(snap.retries).toBe(3);
    expect(snap.byStatus).toMatchObject({ '503': 1, '500': 1, network: 1, '200': 1 });
  });

  it('PATCH and DELETE are retried; gives up after maxAttempts with the last error', async () => {
    const { server, catalog } = await setup((_req, res) => sendJson(res, 500, { error: 'oops' }));
    const err = await rejection(catalog.patch('/Products(1)', { prod_title: 'x' }));
    expect(err.code).toBe('API_SERVER');
    expect(err.attempts).toBe(4);
    expect(err.ambiguous).toBe(false);
    expect(server.requests).toHaveLength(4);
  });

  it('a DELETE whose first attempt was cut off and whose retry finds nothing is already gone', async () => {
    const { catalog } = await setup((_req, res, i) => {
      if (i === 0) return res.socket?.destroy();
      sendJson(res, 404, { title: 'Not Found', status: 404, detail: 'gone' });
    });
    expect(await catalog.delete('/Products(7)')).toEqual({ alreadyGone: true });
  });

  it('a 400 is never retried', async () => {
    const { server, catalog } = await setup((_req, res) =>
      sendJson(res, 400, {
        validationFailures: { $top: [{ PropertyName: '$top', ErrorMessage: 'bad', AttemptedValue: 0 }] },
      }),
    );
    const err = await rejection(catalog.get('/Products'));
    expect(err.code).toBe('API_VALIDATION');
    expect(server.requests).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  it('waits the seconds a 429 asks for before trying again', async () => {
    const { server, catalog, transport } = await setup((_req, res, i) => {
      if (i === 0)
        return sendJson(res, 429, { message: 'Too Many Requests', request_id: 'r1' }, { 'retry-after': '1' });
      sendJson(res, 200, { value: [] });
    });
    await catalog.get('/Products');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
    const snap = transport.snapshot();
    expect(snap.rateLimited).toBe(1);
    expect(snap.retryWaitMs).toBeGreaterThanOrEqual(1000);
  });

  it('honours an HTTP-date Retry-After', async () => {
    const { server, catalog } = await setup((_req, res, i) => {
      if (i === 0)
        return sendJson(
          res,
          429,
          { message: 'slow down' },
          { 'retry-after': new Date(Date.now() + 2000).toUTCString() },
        );
      sendJson(res, 200, { value: [] });
    });
    await catalog.get('/Products');
    // HTTP dates have one-second resolution: at least one second must have been waited.
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });
});

describe('POST is never retried blindly', () => {
  it('a 5xx on POST is not retried and is marked ambiguous', async () => {
    const { server, catalog, transport } = await setup((_req, res) =>
      sendJson(res, 503, { error: 'unavailable' }),
    );
    const err = await rejection(catalog.create('/Products', { prod_ref: 'A1' }));
    expect(err.code).toBe('API_SERVER');
    expect(err.ambiguous).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(transport.snapshot().ambiguous).toBe(1);
  });

  it('a connection reset after sending a POST is not retried and is marked ambiguous', async () => {
    const { server, dam } = await setup((_req, res) => res.socket?.destroy());
    const err = await rejection(dam!.registerImage('https://cdn.example/a.jpg'));
    expect(err.code).toBe('API_NETWORK');
    expect(err.ambiguous).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('a 429 on POST is retried: it was refused before processing', async () => {
    const { server, catalog } = await setup((_req, res, i) => {
      if (i === 0) return sendJson(res, 429, { message: 'Too Many Requests' }, { 'retry-after': '0' });
      res.writeHead(201, { location: `${'http://x'}/api/Products(42)`, 'content-length': '0' });
      res.end();
    });
    expect(await catalog.create('/Products', { prod_ref: 'A1' })).toEqual({
      id: 42,
      location: 'http://x/api/Products(42)',
    });
    expect(server.requests).toHaveLength(2);
  });

  it('a refused connection on POST is retried: nothing was sent', () => {
    const policy = retryPolicy({ maxAttempts: 3 });
    const refused = new ApiError('API_NETWORK', 'refused', {
      service: 'Catalog API',
      method: 'POST',
      path: '/Products',
    });
    refused.details.errno = 'ECONNREFUSED';
    expect(decideRetry(policy, 'POST', 1, refused).retry).toBe(true);
    const reset = new ApiError('API_NETWORK', 'reset', {
      service: 'Catalog API',
      method: 'POST',
      path: '/Products',
    });
    reset.details.errno = 'ECONNRESET';
    expect(decideRetry(policy, 'POST', 1, reset)).toEqual({ retry: false, ambiguous: true, reason: 'final' });
  });
});

describe('what counts as a try', () => {
  const failed = (status: number | undefined, errno?: string) => {
    const err = new ApiError(status === undefined ? 'API_NETWORK' : 'API_SERVER', 'x', {
      service: 'Catalog API',
      method: 'GET',
      path: '/Products',
      ...(status !== undefined && { status }),
    });
    if (errno) err.details.errno = errno;
    return err;
  };
  const policy = retryPolicy({ maxAttempts: 3, budgetMs: 60_000 });
  const noJitter = () => 0;

  it('a 429 or a service that cannot be reached is retried past maxAttempts while the budget lasts', () => {
    for (const err of [
      failed(429),
      failed(502),
      failed(undefined, 'ECONNREFUSED'),
      failed(undefined, 'ECONNRESET'),
    ])
      expect(decideRetry(policy, 'GET', 10, err, noJitter, 30_000).retry).toBe(true);
    expect(decideRetry(policy, 'GET', 10, failed(429), noJitter, 0)).toEqual({
      retry: false,
      ambiguous: false,
      reason: 'budget',
    });
  });

  it('a 500 is a try that counts: given up after maxAttempts', () => {
    expect(decideRetry(policy, 'GET', 3, failed(500), noJitter, 30_000)).toEqual({
      retry: false,
      ambiguous: false,
      reason: 'attempts',
    });
  });
});

describe('requests as sent', () => {
  it('sends the key, JSON, Accept-Language when asked, and encodes paths and queries', async () => {
    const { server, catalog } = await setup((_req, res) => {
      res.writeHead(201, {
        location: "/api/CustomEntities('Store%20Locations')/item(9)",
        'content-length': '0',
      });
      res.end();
    });
    const created = await catalog.create(
      "/CustomEntities('Store Locations')",
      { ref: 'S1', name: 'Gare du Nord' },
      { culture: 'fr' },
    );
    expect(created.id).toBe(9);
    const req = server.requests[0]!;
    expect(req.url).toBe("/api/CustomEntities('Store%20Locations')");
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(req.headers['accept-language']).toBe('fr');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ ref: 'S1', name: 'Gare du Nord' });
  });

  it('a POST answered without a Location is API_BAD_RESPONSE', async () => {
    const { catalog } = await setup((_req, res) => sendJson(res, 201, {}));
    expect((await rejection(catalog.create('/Products', { prod_ref: 'A' }))).code).toBe('API_BAD_RESPONSE');
  });

  it('never follows a @nextLink to another origin (the key would go with it)', async () => {
    const foreign = await tinyServer((_req, res) => sendJson(res, 200, { value: [] }));
    try {
      const { catalog } = await setup((_req, res) =>
        sendJson(res, 200, { value: [{ id: 1 }], '@nextLink': `${foreign.url}/api/Products?$skiptoken=2` }),
      );
      const seen: unknown[] = [];
      const err = await rejection(
        (async () => {
          for await (const item of catalog.list('/Products')) seen.push(item);
        })(),
      );
      expect(err.code).toBe('API_BAD_RESPONSE');
      expect(seen).toHaveLength(1);
      expect(foreign.requests).toHaveLength(0);
    } finally {
      await foreign.close();
    }
  });
});

describe('backoff', () => {
  it('full jitter stays within base * 2^(n-1), capped', () => {
    const p = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 });
    expect(backoffMs(p, 1, () => 0.999)).toBeLessThan(100);
    expect(backoffMs(p, 3, () => 0.999)).toBeLessThan(400);
    expect(backoffMs(p, 10, () => 0.999)).toBeLessThan(1000);
    expect(backoffMs(p, 10, () => 0)).toBe(0);
    expect(RETRY_DEFAULTS.retryStatuses).toEqual([429, 500, 502, 503, 504]);
  });
});
