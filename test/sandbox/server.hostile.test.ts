// The sandbox under requests a careless or hostile client sends: body keys that are names of
// Object.prototype members, request lines past every limit, and the 503 that says when to come back.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FAULT_RETRY_AFTER_SECONDS } from '../../src/sandbox/server.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const PROTOTYPE_KEYS = ['constructor', 'hasOwnProperty', '__proto__', 'toString', 'valueOf', 'isPrototypeOf'];

/** Sends raw bytes and reads the whole answer (the server closes or answers with a length). */
function rawRequest(origin: string, text: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      const head = answer.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(answer);
      if (head !== -1 && length && answer.length >= head + 4 + Number(length[1])) socket.destroy();
    });
    socket.on('error', (err) => (answer ? resolve(answer) : reject(err)));
    socket.on('close', () => resolve(answer));
    socket.write(text);
  });
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
}

describe('body keys named like Object.prototype members', () => {
  const fixture = useSandbox();

  it.each(PROTOTYPE_KEYS)(
    '%s in a catalog POST or PATCH is an unknown attribute: 400 naming it',
    async (key) => {
      const { catalogUrl, apiKey } = fixture.sb;
      for (const [method, path] of [
        ['POST', '/Products'],
        ['PATCH', '/Products(1)'],
        ['POST', "/CustomEntities('Store%20Locations')"],
        ['PATCH', '/Categories(1)'],
      ] as const) {
        const body = `{"prod_ref":"PROTO-${key}","${key}":{"a":1}}`;
        const res = await call(catalogUrl, path, { method, key: apiKey, body });
        expect(res.status, `${method} ${path}`).toBe(400);
        const failures = (res.body as { validationFailures: Record<string, Array<{ PropertyName: string }>> })
          .validationFailures;
        expect(Object.keys(failures)).toContain(key);
        expect(failures[key]?.[0]?.PropertyName).toBe(key);
      }
      // Nothing was written, and the product still reads back as before.
      const product = await call(catalogUrl, '/Products(1)', { key: apiKey });
      expect(product.status).toBe(200);
      expect((product.body as { value: Record<string, unknown> }).value.prod_ref).toBe('LINEN-SHIRT');
      const listed = await call(catalogUrl, `/Products?$filter=prod_ref eq 'PROTO-${key}'`, { key: apiKey });
      expect((listed.body as { value: unknown[] }).value).toEqual([]);
    },
  );

  it('a multilingual value keyed by a prototype member is a language the field does not have', async () => {
    const { catalogUrl, apiKey } = fixture.sb;
    for (const key of PROTOTYPE_KEYS) {
      const res = await call(catalogUrl, '/Products(1)', {
        method: 'PATCH',
        key: apiKey,
        body: `{"prod_title":{"${key}":"x"}}`,
      });
      expect(res.status, key).toBe(400);
      expect(res.text).toContain('prod_title');
    }
  });

  it('attribute sets (v2) refuse them as unknown members; the DAM ignores fields it does not know', async () => {
    const { catalogUrl, damUrl, apiKey } = fixture.sb;
    for (const key of PROTOTYPE_KEYS) {
      const res = await call(catalogUrl, '/v2/AttributeSets', {
        method: 'POST',
        key: apiKey,
        body: `{"name":"Set ${key}","${key}":1}`,
      });
      expect(res.status, key).toBe(400);
      expect(Object.keys((res.body as { validationFailures: object }).validationFailures)).toContain(key);
      const dam = await call(damUrl, '/images(linen-shirt-front.jpg)', {
        method: 'PATCH',
        key: apiKey,
        body: `{"tags":["t"],"${key}":{"x":1}}`,
      });
      expect(dam.status, key).toBe(200);
    }
    const image = await call(damUrl, '/images(linen-shirt-front.jpg)', { key: apiKey });
    expect((image.body as { value: { tags: string[] } }).value.tags).toEqual(['t']);
    // Nothing leaked into the process either.
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});

describe('long request lines', () => {
  const fixture = useSandbox();

  it.each([9_000, 20_000, 100_000])('a URL of %i characters is the spec 414, never 431', async (length) => {
    const { catalogUrl, apiKey } = fixture.sb;
    const path = `/Products?$filter=${'x'.repeat(length - catalogUrl.length - 18)}`;
    const res = await call(catalogUrl, path, { key: apiKey });
    expect(res.status).toBe(414);
    expect(res.body).toMatchObject({ status: 414, title: 'URI Too Long' });
  });

  it('past the header limit too, a long request line is a 414; long headers stay a 431', async () => {
    const { origin, apiKey } = fixture.sb;
    const longLine = await rawRequest(
      origin,
      `GET /catalog/Products?${'y'.repeat(400_000)} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${apiKey}\r\n\r\n`,
    );
    expect(statusOf(longLine)).toBe(414);
    expect(longLine).toContain('"title":"URI Too Long"');
    const longHeader = await rawRequest(
      origin,
      `GET /catalog/Products HTTP/1.1\r\nHost: x\r\nX-Big: ${'z'.repeat(400_000)}\r\n\r\n`,
    );
    expect(statusOf(longHeader)).toBe(431);
    // The server is still answering.
    const after = await call(fixture.sb.catalogUrl, '/Products(1)', { key: apiKey });
    expect(after.status).toBe(200);
  });
});

describe('injected 503', () => {
  const fixture = useSandbox({ faultRate: 1, randomSeed: 3 });

  it('carries Retry-After in seconds with the gateway body', async () => {
    const { catalogUrl, apiKey } = fixture.sb;
    const seen = new Set<number>();
    for (let i = 0; i < 40 && !seen.has(503); i++) {
      const res = await call(catalogUrl, '/Products', { key: apiKey });
      seen.add(res.status);
      if (res.status === 503) {
        expect(res.headers.get('retry-after')).toBe(String(FAULT_RETRY_AFTER_SECONDS));
        expect(res.body).toMatchObject({ message: 'Service Unavailable' });
      } else expect(res.headers.get('retry-after')).toBeNull();
    }
    expect(seen.has(503)).toBe(true);
  });
});
