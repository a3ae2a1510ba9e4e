// One limiter per run, shared by the catalog and DAM clients: no more than N requests per window leave.
import { describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { sendJson, tinyServer } from './tiny-server.js';

describe('run limiter', () => {
  it('lets at most N requests per window out, across both clients', async () => {
    const server = await tinyServer((_req, res) => sendJson(res, 200, { value: { reference: 'x' } }));
    const clients = createClients({
      catalogUrl: `${server.url}/catalog`,
      damUrl: `${server.url}/dam`,
      apiKey: 'limiter-key-0001',
      // A window far longer than the test: only the first five may leave.
      rateLimit: { requests: 5, windowSeconds: 600 },
    });
    const settled: Array<'ok' | 'dropped'> = [];
    const calls = [
      ...Array.from({ length: 4 }, () => clients.catalog.get('/Products')),
      ...Array.from({ length: 4 }, () => clients.dam!.getImage('x.jpg')),
    ].map((p) =>
      p.then(
        () => settled.push('ok'),
        () => settled.push('dropped'),
      ),
    );
    while (settled.length < 5) await new Promise((r) => setTimeout(r, 10));
    // Give the limiter every chance to (wrongly) release more.
    await new Promise((r) => setTimeout(r, 300));
    expect(server.requests).toHaveLength(5);
    expect(new Set(server.requests.map((r) => r.url.split('/')[1]))).toEqual(new Set(['catalog', 'dam']));
    expect(clients.transport.snapshot().requests).toBe(5);
    await clients.transport.close();
    await Promise.all(calls);
    expect(settled.filter((s) => s === 'ok')).toHaveLength(5);
    expect(settled.filter((s) => s === 'dropped')).toHaveLength(3);
    await server.close();
  });

  it('keeps at most `concurrency` requests in flight and starts the next as soon as one ends', async () => {
    let inFlight = 0;
    let most = 0;
    const server = await tinyServer((_req, res) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        sendJson(res, 200, { value: [] });
      }, 5);
    });
    const clients = createClients({
      catalogUrl: `${server.url}/catalog`,
      apiKey: 'limiter-key-0002',
      rateLimit: null,
      concurrency: 3,
    });
    await Promise.all(Array.from({ length: 30 }, () => clients.catalog.get('/Products')));
    expect(server.requests).toHaveLength(30);
    expect(most).toBe(3);
    await clients.transport.close();
    await server.close();
  });
});
