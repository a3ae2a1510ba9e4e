// The run transport over real HTTP: concurrency and the default rate limit, the connection pool, a
// POST whose connection was refused, counted bytes, and Retry-After honoured against the sandbox.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { useSandbox } from '../helpers/sandbox.js';
import { sendJson, tinyServer } from './tiny-server.js';

const KEY = 'transport-test-key-0001';

/** A server that answers after `delayMs`, recording the most requests it held at once and the sockets used. */
async function slowServer(delayMs: number) {
  let inFlight = 0;
  const seen = { requests: 0, maxInFlight: 0, sockets: new Set<number>() };
  const server = http.createServer((req, res) => {
    seen.requests += 1;
    seen.sockets.add(req.socket.remotePort ?? -1);
    inFlight += 1;
    seen.maxInFlight = Math.max(seen.maxInFlight, inFlight);
    req.resume();
    setTimeout(() => {
      inFlight -= 1;
      sendJson(res, 200, { value: [] });
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('concurrency', () => {
  it('never more requests in flight than configured, over at most that many keep-alive connections', async () => {
    const server = await slowServer(40);
    const clients = createClients({
      catalogUrl: `${server.url}/catalog`,
      damUrl: `${server.url}/dam`,
      apiKey: KEY,
      rateLimit: null,
      concurrency: 3,
    });
    try {
      await Promise.all([
        ...Array.from({ length: 6 }, () => clients.catalog.get('/Products')),
        ...Array.from({ length: 6 }, () => clients.dam!.http.request({ method: 'GET', path: '/images' })),
      ]);
      expect(server.seen.requests).toBe(12);
      expect(server.seen.maxInFlight).toBe(3);
      // One pool per origin, sized to the concurrency: connections are reused, never more than 3.
      expect(server.seen.sockets.size).toBeLessThanOrEqual(3);
    } finally {
      await clients.transport.close();
      await server.close();
    }
  });

  it('by default at most 50 requests leave per 10 s (the real service limit)', async () => {
    const server = await tinyServer((_req, res) => sendJson(res, 200, { value: [] }));
    const clients = createClients({ catalogUrl: `${server.url}/catalog`, apiKey: KEY });
    const settled: Array<'ok' | 'dropped'> = [];
    const calls = Array.from({ length: 55 }, () =>
      clients.catalog.get('/Products').then(
        () => settled.push('ok'),
        () => settled.push('dropped'),
      ),
    );
    try {
      while (settled.length < 50) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 300));
      expect(server.requests).toHaveLength(50);
    } finally {
      await clients.transport.close();
      await Promise.all(calls);
      await server.close();
    }
    expect(settled.filter((s) => s === 'ok')).toHaveLength(50);
    expect(settled.filter((s) => s === 'dropped')).toHaveLength(5);
  });
});

describe('a POST whose connection was refused', () => {
  it('is retried (nothing was sent) and succeeds once the service listens', async () => {
    // A port nothing listens on for now.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const clients = createClients({
      catalogUrl: `http://127.0.0.1:${port}/catalog`,
      apiKey: KEY,
      rateLimit: null,
      retry: { maxAttempts: 10, baseDelayMs: 50, maxDelayMs: 200 },
    });
    const posts: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      req.on('end', () => {
        posts.push(body);
        res.writeHead(201, { location: `/catalog/Products(77)`, 'content-length': '0' });
        res.end();
      });
    });
    try {
      const created = clients.catalog.create('/Products', { prod_ref: 'REFUSED-1' });
      while ((clients.transport.snapshot().byStatus.network ?? 0) < 1)
        await new Promise((r) => setTimeout(r, 5));
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      expect(await created).toMatchObject({ id: 77 });
      expect(posts).toEqual([JSON.stringify({ prod_ref: 'REFUSED-1' })]);
      const snap = clients.transport.snapshot();
      expect(snap.retries).toBeGreaterThanOrEqual(1);
      expect(snap.ambiguous).toBe(0);
    } finally {
      await clients.transport.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('counters', () => {
  it('count requests by method and status, and the bytes sent and received', async () => {
    const answer = { value: [{ prod_id: 1, prod_ref: 'é-1' }] };
    const server = await tinyServer((req, res) => {
      if (req.method === 'PATCH') {
        res.writeHead(204);
        return res.end();
      }
      sendJson(res, 200, answer);
    });
    const clients = createClients({ catalogUrl: `${server.url}/catalog`, apiKey: KEY, rateLimit: null });
    try {
      const patch = { prod_title: 'Chaise é' };
      await clients.catalog.get('/Products');
      await clients.catalog.get('/Products');
      await clients.catalog.patch('/Products(1)', patch);
      const snap = clients.transport.snapshot();
      expect(snap).toMatchObject({
        requests: 3,
        byMethod: { GET: 2, PATCH: 1 },
        byStatus: { '200': 2, '204': 1 },
        retries: 0,
        rateLimited: 0,
      });
      expect(snap.bytesIn).toBe(2 * Buffer.byteLength(JSON.stringify(answer)));
      expect(snap.bytesOut).toBe(Buffer.byteLength(JSON.stringify(patch)));
    } finally {
      await clients.transport.close();
      await server.close();
    }
  });
});

describe('against a rate-limited sandbox', () => {
  const fixture = useSandbox({ rateLimit: { requests: 4, windowSeconds: 1 } });

  it('every GET completes; each 429 was followed by the wait its Retry-After asked for', async () => {
    const sb = fixture.sb;
    // No client-side limit: the sandbox refuses, and the client must wait as told.
    const clients = createClients({
      catalogUrl: sb.catalogUrl,
      apiKey: sb.apiKey,
      rateLimit: null,
      concurrency: 4,
      retry: { maxAttempts: 10 },
    });
    try {
      const ids = Array.from({ length: 12 }, (_, i) => (i % 3) + 1);
      const records = await Promise.all(
        ids.map((id) => clients.catalog.getEntity<{ prod_id: number }>(`/Products(${id})`)),
      );
      expect(records.map((r) => r.prod_id)).toEqual(ids);
      const snap = clients.transport.snapshot();
      expect(snap.rateLimited).toBeGreaterThan(0);
      // The sandbox's Retry-After is at least 1 s: every 429 cost at least that long a wait.
      expect(snap.retryWaitMs).toBeGreaterThanOrEqual(1000 * snap.rateLimited);
      const stats = (await (await fetch(`${sb.origin}/_sandbox/stats`)).json()) as {
        byStatus: Record<string, number>;
      };
      expect(stats.byStatus['429']).toBe(snap.rateLimited);
      expect(snap.requests).toBe(12 + snap.rateLimited);
    } finally {
      await clients.transport.close();
    }
  }, 60_000);
});
