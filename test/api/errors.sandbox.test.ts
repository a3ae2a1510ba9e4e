// Every error answer the sandbox gives in the specs' shapes becomes the right coded ApiError, keeps
// method, path, status, request id and the field concerned, and never carries either API key.
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type Clients, createClients } from '../../src/api/index.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'demo' });
let rw: Clients;
let ro: Clients;
let wrong: Clients;
const WRONG_KEY = 'not-the-tenant-key-9f2c';

function clientsWith(apiKey: string): Clients {
  const sb = fixture.sb;
  return createClients({
    catalogUrl: sb.catalogUrl,
    damUrl: sb.damUrl,
    apiKey,
    rateLimit: null,
    retry: { maxAttempts: 1 },
  });
}

beforeAll(() => {
  rw = clientsWith(fixture.sb.apiKey);
  ro = clientsWith(fixture.sb.readOnlyKey);
  wrong = clientsWith(WRONG_KEY);
});
afterAll(async () => {
  await Promise.all([rw, ro, wrong].map((c) => c?.transport.close()));
});

/** The failure of `run`, checked for every key the test knows. */
async function failure(run: () => Promise<unknown>): Promise<ApiError> {
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  const shown = [
    (err as Error).message,
    JSON.stringify(err),
    inspect(err, { depth: 10 }),
    String((err as Error).stack),
  ].join('\n');
  for (const key of [fixture.sb.apiKey, fixture.sb.readOnlyKey, WRONG_KEY]) expect(shown).not.toContain(key);
  return err as ApiError;
}

describe('catalog error answers', () => {
  it('an unknown key: 401 gateway {message, request_id} is API_UNAUTHORIZED with the request id', async () => {
    const err = await failure(() => wrong.catalog.get('/Products'));
    expect(err).toMatchObject({ code: 'API_UNAUTHORIZED', status: 401, method: 'GET', path: '/Products' });
    expect(err.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(err.message).toContain(err.requestId!);
  });

  it('a read-only key writing: 403 problem details is API_FORBIDDEN with the detail', async () => {
    const err = await failure(() => ro.catalog.patch('/Products(1)', { prod_title: 'x' }));
    expect(err).toMatchObject({ code: 'API_FORBIDDEN', status: 403, method: 'PATCH', path: '/Products(1)' });
    expect(err.message).toContain('read-only');
    // Refused before processing, but a 403 is not retried and is not a write of unknown outcome.
    expect(err.ambiguous).toBe(false);
  });

  it('an unknown $filter field: 400 validationFailures is API_VALIDATION naming the field and the value', async () => {
    const err = await failure(() =>
      rw.catalog.get('/Products', { query: { $filter: "prod_colour eq 'x'" } }),
    );
    expect(err).toMatchObject({ code: 'API_VALIDATION', status: 400 });
    expect(err.failures).toHaveLength(1);
    expect(err.failures[0]).toMatchObject({ field: 'prod_colour', attempted: "prod_colour eq 'x'" });
    expect(err.failures[0]!.message).toContain("Could not find a property named 'prod_colour'");
  });

  it('a non-assignable attribute on PATCH is API_VALIDATION for that field', async () => {
    const err = await failure(() => rw.catalog.patch('/Variants(1)', { frmt_ref: 'NEW' }));
    expect(err).toMatchObject({ code: 'API_VALIDATION', status: 400, method: 'PATCH' });
    expect(err.failures).toEqual([
      { field: 'frmt_ref', message: 'Attribute frmt_ref is non assignable', attempted: 'NEW' },
    ]);
  });

  it('a missing record: 404 problem details is API_NOT_FOUND with the detail', async () => {
    const err = await failure(() => rw.catalog.getEntity('/Products(987654)'));
    expect(err).toMatchObject({ code: 'API_NOT_FOUND', status: 404, path: '/Products(987654)' });
    expect(err.message).toContain('No Product with id 987654');
  });
});

describe('DAM error answers', () => {
  it('an unknown key is API_UNAUTHORIZED', async () => {
    const err = await failure(() => wrong.dam!.getImage('a.jpg'));
    expect(err).toMatchObject({ code: 'API_UNAUTHORIZED', status: 401, service: 'DAM API' });
    expect(err.requestId).toBeDefined();
  });

  it('a read-only key registering: 403 in the gateway shape is API_FORBIDDEN, and not ambiguous', async () => {
    const err = await failure(() => ro.dam!.registerImage(`${fixture.sb.assetsUrl}/ro.png`));
    expect(err).toMatchObject({ code: 'API_FORBIDDEN', status: 403, method: 'POST', ambiguous: false });
    expect(err.requestId).toBeDefined();
  });

  it('$top out of range: validationFailures keyed by the parameter is API_VALIDATION on $top', async () => {
    const err = await failure(() =>
      rw.dam!.http.request({ method: 'GET', path: '/images', query: { $top: 0 } }),
    );
    expect(err).toMatchObject({ code: 'API_VALIDATION', status: 400 });
    expect(err.failures[0]).toMatchObject({ field: '$top', attempted: '0' });
  });

  it('body checks: validationFailures.error strings become failures without a field', async () => {
    const err = await failure(() => rw.dam!.registerImage(''));
    expect(err).toMatchObject({ code: 'API_VALIDATION', status: 400, ambiguous: false });
    expect(err.failures).toEqual([{ message: 'URL is required' }]);
  });

  it('a missing image: 404 {error} is API_NOT_FOUND with the message', async () => {
    const err = await failure(() => rw.dam!.getImage('nothing-here.jpg'));
    expect(err).toMatchObject({ code: 'API_NOT_FOUND', status: 404, path: '/images(nothing-here.jpg)' });
    expect(err.message).toContain("Image 'nothing-here.jpg' was not found");
  });
});
