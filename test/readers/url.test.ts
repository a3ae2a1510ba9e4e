// URL sources against a real server on an ephemeral loopback port.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSource, displayName, openSource } from '../../src/readers/index.js';
import { collect, expectCode, readAll } from './helpers.js';

const CSV = 'sku;name\nA;x\nB;y\n';
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/feed.csv') {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': Buffer.byteLength(CSV) });
      res.end(CSV);
    } else if (path === '/export') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[{"id":1},{"id":2},{"id":3}]');
    } else if (path === '/once') {
      res.writeHead(302, { location: '/feed.csv' });
      res.end();
    } else if (path === '/loop') {
      res.writeHead(301, { location: '/loop' });
      res.end();
    } else if (path === '/slow') {
      // never answers: the client's timeout must end it
    } else if (path === '/stalls') {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write('sku,name\nA,x\n');
    } else if (path === '/trickle') {
      // Slowloris: a byte every 50 ms, never idle long enough for a plain idle timeout.
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write('sku,name\n');
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
    } else if (path === '/private.csv') {
      // Answers only with the credentials, and echoes whether they came.
      const ok = req.headers.authorization === 'Basic c2hvcDpzM2NyM3Q=';
      res.writeHead(ok ? 200 : 401, { 'content-type': 'text/csv' });
      res.end(ok ? 'sku,name\nA,x\n' : 'no');
    } else if (path === '/elsewhere') {
      // A redirect to another origin (localhost rather than 127.0.0.1): credentials stay behind.
      res.writeHead(302, { location: `${base.replace('127.0.0.1', 'localhost')}/private.csv` });
      res.end();
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('URL sources', () => {
  it('streams a 200 answer, with its size for progress', async () => {
    const { source, rows } = await readAll(`${base}/feed.csv`);
    expect(source.format).toBe('csv');
    expect(source.totalBytes).toBe(Buffer.byteLength(CSV));
    expect(source.bytesRead()).toBe(Buffer.byteLength(CSV));
    expect(rows.map((row) => row.cells.sku)).toEqual(['A', 'B']);
    expect(rows[0]!.location.source).toBe(`${base}/feed.csv`);
  });

  it('sniffs the format when the path has no extension', async () => {
    const { source, rows } = await readAll(`${base}/export`);
    expect(source.format).toBe('json');
    expect(rows).toHaveLength(3);
  });

  it('follows a redirect', async () => {
    const { rows } = await readAll(`${base}/once`);
    expect(rows).toHaveLength(2);
  });

  it('a 404 is SOURCE_HTTP_STATUS naming the status', async () => {
    const error = await expectCode(openSource(`${base}/missing.csv`), 'SOURCE_HTTP_STATUS');
    expect(error.message).toContain('404');
  });

  it('a redirect loop ends after 5 redirects', async () => {
    await expectCode(openSource(`${base}/loop`), 'SOURCE_TOO_MANY_REDIRECTS');
  });

  it('a server that does not answer is SOURCE_TIMEOUT', async () => {
    await expectCode(openSource(`${base}/slow`, { timeoutMs: 300 }), 'SOURCE_TIMEOUT');
  });

  it('a body that stalls is SOURCE_TIMEOUT while reading', async () => {
    await expectCode(
      (async () => collect(await openSource(`${base}/stalls`, { timeoutMs: 300, format: 'csv' })))(),
      'SOURCE_TIMEOUT',
    );
  });

  it('a refused connection is SOURCE_UNREADABLE', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expectCode(openSource(`http://127.0.0.1:${port}/feed.csv`), 'SOURCE_UNREADABLE');
  });

  it('a trickling body (a byte every 50 ms) is SOURCE_TIMEOUT, saying how little came in how long', async () => {
    const started = Date.now();
    const error = await expectCode(
      (async () => collect(await openSource(`${base}/trickle`, { timeoutMs: 600, format: 'csv' })))(),
      'SOURCE_TIMEOUT',
    );
    expect(error.message).toMatch(/sent \d+ bytes in [\d.]+ s of waiting/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('credentials in the URL are refused, never shown, pointing to the header way', async () => {
    const spec = `${base.replace('http://', 'http://shop:s3cr3t@')}/private.csv?api_key=K3Y&page=2`;
    const error = await expectCode(openSource(spec), 'CONFIG_INVALID');
    for (const secret of ['s3cr3t', 'K3Y', 'shop:']) expect(error.message).not.toContain(secret);
    expect(error.message).toContain('--source-header');
    await expectCode(checkSource(spec), 'CONFIG_INVALID');
  });

  it("credentials go in a header, which is sent to the URL's origin only and never shown", async () => {
    const httpHeaders = { authorization: 'Basic c2hvcDpzM2NyM3Q=' };
    const { rows } = await readAll(`${base}/private.csv`, { httpHeaders });
    expect(rows.map((row) => row.cells.sku)).toEqual(['A']);
    const error = await expectCode(openSource(`${base}/elsewhere`, { httpHeaders }), 'SOURCE_HTTP_STATUS');
    expect(error.message).toContain('401');
    expect(error.message).not.toContain('c2hvcDpzM2NyM3Q');
  });

  it('messages never show secret query values', async () => {
    const error = await expectCode(
      openSource(`${base}/missing.csv?api_key=K3Y&token=T0K&page=2`),
      'SOURCE_HTTP_STATUS',
    );
    for (const secret of ['K3Y', 'T0K']) expect(error.message).not.toContain(secret);
    expect(error.message).toContain('page=2');
    expect(error.message).toContain('/missing.csv');
  });
});

describe('displayName', () => {
  it('strips user:password and secret-looking query values, keeps the rest', () => {
    expect(displayName('https://u:p@host.test/a/feed.csv?signature=abc&lang=fr')).toBe(
      'https://***@host.test/a/feed.csv?signature=***&lang=fr',
    );
    expect(displayName('/local/path.csv')).toBe('/local/path.csv');
  });
});
