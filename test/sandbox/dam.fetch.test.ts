// The DAM's real traffic to a source: a HEAD probe then a streamed GET, redirects never followed,
// the size limit enforced while streaming, the download time-out, transport failures, and the
// allowHosts list. A tiny loopback server records what the DAM actually asked for.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { monotonicNow, resolveOptions, type ServiceContext } from '../../src/sandbox/context.js';
import { createDamService } from '../../src/sandbox/dam/index.js';
import type { SandboxRequest } from '../../src/sandbox/http.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const seen: string[] = [];
let endlessBytesSent = 0;
let png: Buffer;
let source: Server;
let origin = '';
let closedPort = 0;

function startSource(): Promise<void> {
  source = createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push(`${req.method} ${path}`);
    if (path === '/moved.png') {
      res.writeHead(302, { location: '/ok.png' }).end();
    } else if (path === '/nohead.png' && req.method === 'HEAD') {
      res.writeHead(405).end();
    } else if (path === '/endless.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      if (req.method === 'HEAD') return void res.end();
      // Far more than the limit; the DAM must hang up long before the end.
      const chunk = Buffer.alloc(1024 * 1024);
      const total = 1024;
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent++;
          endlessBytesSent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => {
        sent = total;
      });
      pump();
    } else if (path === '/slow.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) });
      if (req.method === 'HEAD') return void res.end();
      res.flushHeaders();
      const timer = setTimeout(() => res.end(png), 5_000);
      res.on('close', () => clearTimeout(timer));
    } else {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) });
      res.end(req.method === 'HEAD' ? undefined : png);
    }
  });
  return new Promise((resolve) => source.listen(0, '127.0.0.1', resolve));
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

const options = { seed: 'empty' as const, processingMs: 5, allowHosts: [] as string[] };
beforeAll(async () => {
  png = await sharp({ create: { width: 12, height: 34, channels: 3, background: '#000' } })
    .png()
    .toBuffer();
  await startSource();
  const { port } = source.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  closedPort = await freePort();
  options.allowHosts.push(`127.0.0.1:${port}`, `127.0.0.1:${closedPort}`);
});
afterAll(() => new Promise((resolve) => source.close(resolve)));
beforeEach(() => {
  seen.length = 0;
});

const fx = useSandbox(options);

function post(url: string) {
  return call(fx.sb.damUrl, '/images', { method: 'POST', key: fx.sb.apiKey, body: { url } });
}

describe('allowHosts', () => {
  it('an allowed loopback host is probed with HEAD, then downloaded with GET', async () => {
    const res = await post(`${origin}/ok.png`);
    expect(res.status).toBe(201);
    expect(seen).toEqual(['HEAD /ok.png', 'GET /ok.png']);
  });

  it('the same server under a name that is not allowed is refused without any traffic', async () => {
    const port = new URL(origin).port;
    const res = await post(`http://localhost:${port}/other.png`);
    expect(res.body).toEqual({ validationFailures: { error: ["URL host 'localhost' is not allowed."] } });
    expect(seen).toEqual([]);
  });
});

describe('probe', () => {
  it('a redirect is rejected and its target never requested', async () => {
    const res = await post(`${origin}/moved.png`);
    expect(res.body).toEqual({
      validationFailures: { error: ['URL is not accessible. HTTP status: 302 Found'] },
    });
    expect(seen).toEqual(['HEAD /moved.png']);
  });

  it('a source that refuses HEAD is not accessible, and nothing is downloaded', async () => {
    const res = await post(`${origin}/nohead.png`);
    expect(res.body).toEqual({
      validationFailures: { error: ['URL is not accessible. HTTP status: 405 Method Not Allowed'] },
    });
    expect(seen).toEqual(['HEAD /nohead.png']);
  });

  it('a transport failure (nothing listening) is a 500 with a support code', async () => {
    const res = await post(`http://127.0.0.1:${closedPort}/x.png`);
    expect(res.status).toBe(500);
    expect((res.body as { error: string }).error).toMatch(/could not be reached\. Support code: DAM-/);
  });
});

describe('download', () => {
  it('stops reading once the 250 MB limit is passed, without a Content-Length to go by', async () => {
    endlessBytesSent = 0;
    const res = await post(`${origin}/endless.png`);
    expect(res.status).toBe(400);
    expect((res.body as { validationFailures: { error: string[] } }).validationFailures.error[0]).toMatch(
      /^Image file size \(250\.\d\d MB\) exceeds maximum allowed size of 250 MB$/,
    );
    expect(endlessBytesSent).toBeLessThan(1024 * 1024 * 1024);
  });
});

describe('download time-out', () => {
  it('a download slower than the time-out is a 500 with a support code', async () => {
    const resolved = resolveOptions({ seed: 'empty', allowHosts: [new URL(origin).host] });
    const ctx: ServiceContext = {
      options: resolved,
      urls: {
        origin,
        catalogUrl: `${origin}/catalog`,
        damUrl: `${origin}/dam`,
        assetsUrl: `${origin}/assets`,
      },
      markDirty: () => {},
      now: monotonicNow,
    };
    const dam = createDamService(ctx, { downloadTimeoutMs: 300 });
    try {
      const body = Buffer.from(JSON.stringify({ url: `${origin}/slow.png` }));
      const req: SandboxRequest = {
        method: 'POST',
        path: '/images',
        rawPath: '/images',
        query: new URLSearchParams(),
        headers: { 'content-type': 'application/json' },
        body,
        readOnly: false,
        origin,
        json: () => JSON.parse(body.toString('utf8')),
      };
      const res = await dam.handle(req);
      expect(res.status).toBe(500);
      expect((res.body as { error: string }).error).toMatch(
        /^Could not download the file: the download timed out after 0\.3 seconds\. Support code: DAM-[0-9A-F]{8}$/,
      );
      expect(seen).toEqual(['HEAD /slow.png', 'GET /slow.png']);
      expect(dam.imageExists('slow.png')).toBe(false);
    } finally {
      await dam.close();
    }
  });
});
