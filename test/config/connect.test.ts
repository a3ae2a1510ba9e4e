// connect(): the embedded sandbox when no catalog URL is set, a remote tenant otherwise.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { windowWithMargin } from '../../src/api/limiter.js';
import { connect } from '../../src/config/connect.js';
import { isCatalogIoError } from '../../src/errors.js';
import { tinyServer } from '../api/tiny-server.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'catalog-io-connect-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('connect', () => {
  it('with no catalog URL starts the embedded sandbox, says so first, and persists under .catalog-io/sandbox', async () => {
    const lines: string[] = [];
    const c = await connect({ cwd: dir, env: {}, announce: (l) => lines.push(l) });
    try {
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^Using the embedded sandbox tenant at http:\/\/127\.0\.0\.1:\d+\/\S* \(no CATALOG_URL set/,
      );
      expect(c.tenant).toMatchObject({ name: 'sandbox', embedded: true });
      expect(c.tenant.defaultSchemasDir).toBe(path.join(dir, '.catalog-io', 'schemas', 'sandbox'));
      const model = await c.tenant.model();
      expect(model.entity('products')).toBeDefined();
      const first = await c.catalog.getEntity<{ prod_ref: string }>('/Products(1)');
      expect(typeof first.prod_ref).toBe('string');
      expect(c.snapshot().requests).toBeGreaterThan(0);
    } finally {
      await c.close();
    }
    expect(existsSync(path.join(dir, '.catalog-io', 'sandbox'))).toBe(true);
  });

  it('with a catalog URL talks to it, names the tenant from its host and path, and never announces a sandbox', async () => {
    const sb = fixture.sb;
    const lines: string[] = [];
    const c = await connect({
      cwd: dir,
      env: { CATALOG_URL: sb.catalogUrl, CATALOG_API_KEY: sb.apiKey },
      announce: (l) => lines.push(l),
    });
    try {
      expect(lines).toEqual([]);
      expect(c.tenant.embedded).toBe(false);
      expect(c.tenant.name).toMatch(/^127\.0\.0\.1_\d+_catalog$/);
      // No DAM URL configured: asking for the DAM client is a coded error.
      let caught: unknown;
      try {
        void c.dam;
      } catch (err) {
        caught = err;
      }
      expect(isCatalogIoError(caught, 'CONFIG_MISSING')).toBe(true);
      expect((await c.catalog.metadata()).value['x-languages']).toEqual(['en', 'fr', 'es']);
    } finally {
      await c.close();
    }
  });

  it('a wrong key is API_UNAUTHORIZED and the key is not in the message', async () => {
    const sb = fixture.sb;
    const c = await connect({
      cwd: dir,
      env: {},
      flags: { catalogUrl: sb.catalogUrl, damUrl: sb.damUrl, apiKey: 'wrong-key-abcdef' },
    });
    try {
      const err = await c.catalog.get('/Products').catch((e: unknown) => e);
      expect(isCatalogIoError(err, 'API_UNAUTHORIZED')).toBe(true);
      expect(JSON.stringify(err)).not.toContain('wrong-key-abcdef');
      expect((err as Error).message).not.toContain('wrong-key-abcdef');
      const damErr = await c.dam.getImage('nothing.jpg').catch((e: unknown) => e);
      expect(isCatalogIoError(damErr, 'API_UNAUTHORIZED')).toBe(true);
    } finally {
      await c.close();
    }
  });

  it('CATALOG_IO_TEST_TIME_SCALE (tests only) shortens the wait a Retry-After asks for; out of (0, 1] it is CONFIG_INVALID', async () => {
    const server = await throttledOnce();
    try {
      const settings = { catalogUrl: `${server.url}/catalog`, apiKey: 'k', rateLimit: null };
      const c = await connect({ cwd: dir, env: { CATALOG_IO_TEST_TIME_SCALE: '0.1' }, settings });
      try {
        await c.catalog.get('/Products');
      } finally {
        await c.close();
      }
      expect(server.requests).toHaveLength(2);
      // Asked for 1 s: waited a tenth of it (plus a tenth of the jitter), not the whole second.
      const waited = server.requests[1]!.at - server.requests[0]!.at;
      expect(waited).toBeGreaterThanOrEqual(100);
      expect(waited).toBeLessThan(1_000);
      for (const bad of ['0', '2', '-0.5', 'fast']) {
        const err = await connect({ cwd: dir, env: { CATALOG_IO_TEST_TIME_SCALE: bad }, settings }).catch(
          (e: unknown) => e,
        );
        expect(isCatalogIoError(err, 'CONFIG_INVALID'), String(err)).toBe(true);
        expect((err as Error).message).toContain(
          `CATALOG_IO_TEST_TIME_SCALE must be a number above 0 and at most 1, found ${bad}`,
        );
      }
    } finally {
      await server.close();
    }
  });
  it('the request rate (for the ETA) is the pace now: halved after a 429, never above the limit', async () => {
    const server = await throttledOnce();
    try {
      const settings = {
        catalogUrl: `${server.url}/catalog`,
        apiKey: 'k',
        rateLimit: { requests: 50, windowSeconds: 1 },
      };
      const c = await connect({ cwd: dir, env: { CATALOG_IO_TEST_TIME_SCALE: '0.1' }, settings });
      try {
        const full = c.requestRate!;
        expect(full).toBeCloseTo((50 * 1000) / windowWithMargin(settings.rateLimit));
        await c.catalog.get('/Products');
        // One 429 and one accepted answer: 25 per window (plus a 25th of one), half the rate.
        expect(c.requestRate).toBeCloseTo(full / 2);
        for (let i = 0; i < 40; i++) await c.catalog.get('/Products');
        expect(c.requestRate).toBeGreaterThan(full / 2);
        expect(c.requestRate).toBeLessThanOrEqual(full);
      } finally {
        await c.close();
      }
      expect(server.requests).toHaveLength(42);
    } finally {
      await server.close();
    }
  });

  it("a library caller's settings pass the checks flags, environment and file get, named settings.<key>", async () => {
    const sb = fixture.sb;
    const key = 'caller-key-Q7x9Z';
    const refused: Array<[string, Record<string, unknown>, string]> = [
      ['not a url', { catalogUrl: 'not a url' }, 'settings.catalogUrl is not a URL'],
      ['empty', { catalogUrl: '' }, 'settings.catalogUrl is empty'],
      ['no scheme slashes', { catalogUrl: 'http//broken' }, 'settings.catalogUrl is not a URL'],
      ['ftp', { catalogUrl: 'ftp://x.example/catalog' }, 'settings.catalogUrl must be http or https'],
      ['query', { catalogUrl: `${sb.catalogUrl}?tenant=a` }, 'settings.catalogUrl must not have a query'],
      [
        'key in URL',
        { catalogUrl: `${sb.catalogUrl}?api_key=${key}` },
        'settings.catalogUrl holds the API key',
      ],
      ['bad DAM URL', { damUrl: 'garbage' }, 'settings.damUrl is not a URL'],
      ['number', { concurrency: 0 }, 'settings.concurrency must be a whole number from 1 to 64'],
      ['rate limit', { rateLimit: { requests: 0, windowSeconds: 10 } }, 'settings.rateLimit'],
    ];
    for (const [name, bad, message] of refused) {
      const settings = { catalogUrl: sb.catalogUrl, damUrl: sb.damUrl, apiKey: key, ...bad };
      const err = await connect({ cwd: dir, env: {}, settings: settings as never }).catch((e: unknown) => e);
      expect(isCatalogIoError(err, 'CONFIG_INVALID'), `${name}: ${String(err)}`).toBe(true);
      expect((err as Error).message, name).toContain(message);
      expect((err as Error).message, name).not.toContain(key);
    }
    // Good settings still connect.
    const c = await connect({
      cwd: dir,
      env: {},
      settings: { catalogUrl: sb.catalogUrl, apiKey: sb.apiKey },
    });
    try {
      expect(c.tenant.embedded).toBe(false);
    } finally {
      await c.close();
    }
  });
});

/** A service whose first answer is a 429 asking to wait 1 s, and every later one an empty page. */
function throttledOnce() {
  return tinyServer((_req, res, index) => {
    if (index === 0) {
      res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
      res.end('{"message":"Too many requests"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"value":[]}');
  });
}
