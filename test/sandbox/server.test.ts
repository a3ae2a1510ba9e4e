// The sandbox's gateway and glue: auth, read-only key, URL length, rate limit, faults, counters,
// persistence and the CLI's --json line. Real HTTP over loopback throughout.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { cliEntry } from '../helpers/cli-entry.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'demo' });

async function stats(origin: string) {
  return (await call(origin, '/_sandbox/stats')).body as {
    total: number;
    byMethod: Record<string, number>;
    byStatus: Record<string, number>;
    byService: Record<string, number>;
  };
}

describe('auth: X-API-KEY on every request', () => {
  it('missing key -> 401 with the gateway body {message, request_id}', async () => {
    for (const base of [fixture.sb.catalogUrl, fixture.sb.damUrl]) {
      const res = await call(base, base.endsWith('/dam') ? '/images' : '/Products', { key: null });
      expect(res.status).toBe(401);
      expect(Object.keys(res.body as object).sort()).toEqual(['message', 'request_id']);
      expect(typeof (res.body as { message: unknown }).message).toBe('string');
    }
  });

  it('empty key -> 401', async () => {
    const res = await call(fixture.sb.catalogUrl, '/Products', { headers: { 'x-api-key': '' } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ message: expect.any(String), request_id: expect.any(String) });
  });

  it('unknown key -> 401', async () => {
    const res = await call(fixture.sb.catalogUrl, '/Products', { key: 'not-a-key' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ message: expect.any(String), request_id: expect.any(String) });
  });

  it('read-only key may read', async () => {
    const res = await call(fixture.sb.catalogUrl, '/Products?$top=1', { key: fixture.sb.readOnlyKey });
    expect(res.status).toBe(200);
  });

  it('read-only key -> 403 on POST/PATCH/PUT/DELETE (catalog: problem details)', async () => {
    for (const [method, path] of [
      ['POST', '/Products'],
      ['PATCH', '/Products(1)'],
      ['PUT', '/Categories/layout'],
      ['DELETE', '/Products(1)'],
    ] as const) {
      const res = await call(fixture.sb.catalogUrl, path, { method, key: fixture.sb.readOnlyKey, body: {} });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ status: 403, title: expect.any(String), detail: expect.any(String) });
    }
  });

  it('read-only key -> 403 on DAM writes with the same shape as the 401', async () => {
    const res = await call(fixture.sb.damUrl, '/images', {
      method: 'POST',
      key: fixture.sb.readOnlyKey,
      body: { url: `${fixture.sb.assetsUrl}/x.png` },
    });
    expect(res.status).toBe(403);
    expect(Object.keys(res.body as object).sort()).toEqual(['message', 'request_id']);
    const listed = await call(fixture.sb.damUrl, '/images?$top=1', { key: fixture.sb.readOnlyKey });
    const reference = (listed.body as { value: Array<{ reference: string }> }).value[0]!.reference;
    for (const method of ['PATCH', 'DELETE'] as const) {
      const denied = await call(fixture.sb.damUrl, `/images(${encodeURIComponent(reference)})`, {
        method,
        key: fixture.sb.readOnlyKey,
        ...(method === 'PATCH' ? { body: { tags: ['x'] } } : {}),
      });
      expect(denied.status, method).toBe(403);
      expect(Object.keys(denied.body as object).sort()).toEqual(['message', 'request_id']);
    }
    const still = await call(fixture.sb.damUrl, `/images(${encodeURIComponent(reference)})`, {
      key: fixture.sb.apiKey,
    });
    expect(still.status).toBe(200);
    expect((still.body as { value: { tags: string[] } }).value.tags).not.toEqual(['x']);
  });

  it('DAM: empty or unknown key -> 401 with the gateway body', async () => {
    for (const headers of [{ 'x-api-key': '' }, { 'x-api-key': 'not-a-key' }]) {
      const res = await call(fixture.sb.damUrl, '/files', { headers });
      expect(res.status).toBe(401);
      expect(Object.keys(res.body as object).sort()).toEqual(['message', 'request_id']);
    }
  });
});

describe('gateway rules', () => {
  it('URL longer than about 8,000 characters -> 414', async () => {
    const refs = Array.from({ length: 800 }, (_, i) => `'ref-${i}'`).join(',');
    const res = await call(
      fixture.sb.catalogUrl,
      `/Products?$filter=prod_ref in (${encodeURIComponent(refs)})`,
      {
        key: fixture.sb.apiKey,
      },
    );
    expect(res.status).toBe(414);
  });

  it('a URL just under the limit is served', async () => {
    const refs = Array.from({ length: 300 }, (_, i) => `'ref-${i}'`).join(',');
    const url = `/Products?$filter=prod_ref in (${encodeURIComponent(refs)})`;
    expect(fixture.sb.catalogUrl.length + url.length).toBeLessThan(8000);
    const res = await call(fixture.sb.catalogUrl, url, { key: fixture.sb.apiKey });
    expect(res.status).toBe(200);
  });

  it('unknown service prefix -> 404 problem details, never a hang', async () => {
    const res = await call(fixture.sb.origin, '/nothing/here', { key: fixture.sb.apiKey });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, title: 'Not Found' });
  });

  it('unknown path inside the catalog or the DAM -> 404 problem details naming it', async () => {
    for (const [base, path] of [
      [fixture.sb.catalogUrl, '/Nope'],
      [fixture.sb.catalogUrl, '/Products(1)/Nope'],
      [fixture.sb.damUrl, '/image'],
    ] as const) {
      const res = await call(base, path, { key: fixture.sb.apiKey });
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({
        status: 404,
        title: 'Not Found',
        detail: expect.stringContaining(path),
      });
    }
  });

  it('wrong method -> 405 problem details with an Allow header, catalog and DAM alike', async () => {
    for (const [base, method, path, allow] of [
      [fixture.sb.catalogUrl, 'PUT', '/Products', 'GET, POST'],
      [fixture.sb.catalogUrl, 'POST', '/Products(1)', 'GET, PATCH, DELETE'],
      [fixture.sb.catalogUrl, 'DELETE', '/$metadata', 'GET'],
      [fixture.sb.damUrl, 'PUT', '/images', 'GET, POST'],
      [fixture.sb.damUrl, 'POST', '/files(x.pdf)', 'GET, PATCH, DELETE'],
    ] as const) {
      const res = await call(base, path, { method, key: fixture.sb.apiKey, body: {} });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.body).toMatchObject({
        status: 405,
        title: 'Method Not Allowed',
        detail: expect.any(String),
      });
    }
  });

  it('malformed JSON body on a catalog write -> 400 validationFailures', async () => {
    const res = await call(fixture.sb.catalogUrl, '/Products', {
      method: 'POST',
      key: fixture.sb.apiKey,
      body: '{"prod_ref": ',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ validationFailures: expect.any(Object) });
  });

  it('malformed JSON body on a DAM write -> 400 validationFailures.error messages', async () => {
    const res = await call(fixture.sb.damUrl, '/images', {
      method: 'POST',
      key: fixture.sb.apiKey,
      body: '{url',
    });
    expect(res.status).toBe(400);
    const failures = (res.body as { validationFailures: { error: unknown[] } }).validationFailures;
    expect(Array.isArray(failures.error)).toBe(true);
    expect(typeof failures.error[0]).toBe('string');
  });
});

describe('request counters at /_sandbox/stats', () => {
  it('count catalog and DAM requests by method, status and service, not asset-host or stats requests', async () => {
    const { origin, catalogUrl, damUrl, assetsUrl, apiKey } = fixture.sb;
    expect((await call(origin, '/_sandbox/stats/reset', { method: 'POST' })).status).toBe(204);
    await call(catalogUrl, '/Products?$top=1', { key: apiKey });
    await call(catalogUrl, '/Products?$top=1', { key: null });
    await call(damUrl, '/images?$top=1', { key: apiKey });
    await call(assetsUrl, '/counted-not.png');
    const s = await stats(origin);
    expect(s.total).toBe(3);
    expect(s.byMethod).toEqual({ GET: 3 });
    expect(s.byStatus).toEqual({ '200': 2, '401': 1 });
    expect(s.byService).toEqual({ catalog: 2, dam: 1 });
  });

  it('POST /_sandbox/stats/reset zeroes them', async () => {
    await call(fixture.sb.catalogUrl, '/Products?$top=1', { key: fixture.sb.apiKey });
    await call(fixture.sb.origin, '/_sandbox/stats/reset', { method: 'POST' });
    expect(await stats(fixture.sb.origin)).toEqual({
      total: 0,
      byMethod: {},
      byStatus: {},
      byService: {},
    });
  });
});

describe('fault and load knobs', () => {
  it('--rate-limit N/W: beyond it 429 with Retry-After and the gateway body', async () => {
    const sb = await startSandbox({ port: 0, rateLimit: { requests: 3, windowSeconds: 10 } });
    try {
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof call>> | undefined;
      for (let i = 0; i < 5; i++) {
        last = await call(sb.catalogUrl, '/Products?$top=1', { key: sb.apiKey });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const retryAfter = Number(last!.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(10);
      expect(last!.body).toMatchObject({ message: expect.any(String), request_id: expect.any(String) });
    } finally {
      await sb.close();
    }
  });

  it('--rate-limit is per key: the read-only key has its own window', async () => {
    const sb = await startSandbox({ port: 0, rateLimit: { requests: 1, windowSeconds: 10 } });
    try {
      expect((await call(sb.catalogUrl, '/Products?$top=1', { key: sb.apiKey })).status).toBe(200);
      expect((await call(sb.catalogUrl, '/Products?$top=1', { key: sb.apiKey })).status).toBe(429);
      expect((await call(sb.catalogUrl, '/Products?$top=1', { key: sb.readOnlyKey })).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('--fault-rate 1: every request answers 500, 502 or 503 in the spec shapes', async () => {
    const sb = await startSandbox({ port: 0, faultRate: 1, randomSeed: 7 });
    try {
      const seen = new Set<number>();
      for (let i = 0; i < 20; i++) {
        const res = await call(sb.catalogUrl, '/Products?$top=1', { key: sb.apiKey });
        seen.add(res.status);
        if (res.status === 500) expect(res.body).toMatchObject({ error: expect.any(String) });
        else expect(res.body).toMatchObject({ message: expect.any(String), request_id: expect.any(String) });
      }
      expect([...seen].every((s) => [500, 502, 503].includes(s))).toBe(true);
      expect(seen.size).toBeGreaterThan(1);
    } finally {
      await sb.close();
    }
  });

  it('--reset-rate 1: the connection is destroyed and the counters say so', async () => {
    const sb = await startSandbox({ port: 0, resetRate: 1 });
    try {
      await expect(
        fetch(`${sb.catalogUrl}/Products`, { headers: { 'x-api-key': sb.apiKey } }),
      ).rejects.toThrow();
      const s = await stats(sb.origin);
      expect(s.byStatus.reset).toBe(1);
    } finally {
      await sb.close();
    }
  });

  it('--latency MS delays each request', async () => {
    const sb = await startSandbox({ port: 0, latencyMs: 120 });
    try {
      const started = performance.now();
      await call(sb.catalogUrl, '/Products?$top=1', { key: sb.apiKey });
      // 120 ms with -25% jitter is at least 90 ms; this checks the knob works, not a speed.
      expect(performance.now() - started).toBeGreaterThanOrEqual(85);
    } finally {
      await sb.close();
    }
  });
});

describe('state persists under --data-dir', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a record created before a restart is there after it; --reset starts fresh', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalog-io-sandbox-'));
    dirs.push(dataDir);
    const first = await startSandbox({ port: 0, dataDir, seed: 'empty' });
    const created = await call(first.catalogUrl, '/Products', {
      method: 'POST',
      key: first.apiKey,
      body: { prod_ref: 'persisted-1', prod_title: 'Kept' },
    });
    expect(created.status).toBe(201);
    await first.close();

    const second = await startSandbox({ port: 0, dataDir, seed: 'empty' });
    try {
      expect(second.restored).toBe(true);
      const found = await call(second.catalogUrl, `/Products?$filter=prod_ref eq 'persisted-1'`, {
        key: second.apiKey,
      });
      expect((found.body as { value: unknown[] }).value).toHaveLength(1);
    } finally {
      await second.close();
    }

    const third = await startSandbox({ port: 0, dataDir, seed: 'empty', reset: true });
    try {
      expect(third.restored).toBe(false);
      const found = await call(third.catalogUrl, `/Products?$filter=prod_ref eq 'persisted-1'`, {
        key: third.apiKey,
      });
      expect((found.body as { value: unknown[] }).value).toHaveLength(0);
    } finally {
      await third.close();
    }
  });
  it('a saved state it cannot read is set aside: the sandbox starts from its seed and says so', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalog-io-sandbox-'));
    dirs.push(dataDir);
    writeFileSync(
      join(dataDir, 'state.json'),
      JSON.stringify({
        version: 1,
        savedAt: '',
        services: { catalog: { version: 1, tables: { products: { rows: 5 } } } },
      }),
    );
    const sb = await startSandbox({ port: 0, dataDir, seed: 'demo' });
    try {
      expect(sb.restored).toBe(false);
      expect(sb.notice).toMatch(/could not be read/);
      const res = await call(sb.catalogUrl, '/Products?$top=1', { key: sb.apiKey });
      expect(res.status).toBe(200);
      expect((res.body as { '@count': number })['@count']).toBeGreaterThan(0);
    } finally {
      await sb.close();
    }
  });
});

describe('catalog-io sandbox --json --port 0', () => {
  it('prints exactly one JSON line with the five fields once listening', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalog-io-cli-'));
    const child = spawn(
      process.execPath,
      [...cliEntry(), 'sandbox', '--json', '--port', '0', '--data-dir', dataDir],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let buffered = '';
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          const nl = buffered.indexOf('\n');
          if (nl !== -1) resolve(buffered.slice(0, nl));
        });
        child.on('exit', (code) => reject(new Error(`sandbox exited early with ${code}`)));
      });
      const info = JSON.parse(line) as Record<string, string>;
      expect(Object.keys(info).sort()).toEqual([
        'apiKey',
        'assetsUrl',
        'catalogUrl',
        'damUrl',
        'readOnlyKey',
      ]);
      const res = await call(info.catalogUrl!, '/Products?$top=1', { key: info.apiKey! });
      expect(res.status).toBe(200);
      // Serving a request prints nothing more: standard output holds that one line only.
      expect(buffered).toBe(`${line}\n`);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('catalog-io sandbox flags', () => {
  /** Runs the CLI; resolves with its JSON line (then stops it) or with its exit when it ends first. */
  async function runCli(
    args: string[],
  ): Promise<{ info?: Record<string, string>; code?: number | null; stderr: string; stop(): Promise<void> }> {
    const child = spawn(process.execPath, [...cliEntry(), 'sandbox', ...args], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    };
    return new Promise((resolve) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const nl = out.indexOf('\n');
        if (nl !== -1) resolve({ info: JSON.parse(out.slice(0, nl)), stderr, stop });
      });
      child.on('exit', (code) => resolve({ code, stderr, stop }));
    });
  }

  it('--seed empty, --image-quota and --rate-limit reach the running sandbox', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalog-io-cli-'));
    const run = await runCli([
      '--json',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--reset',
      '--seed',
      'empty',
      '--image-quota',
      '0',
      '--rate-limit',
      '2/10',
    ]);
    try {
      const { catalogUrl, damUrl, assetsUrl, apiKey } = run.info as Record<string, string>;
      const products = await call(catalogUrl!, '/Products', { key: apiKey! });
      expect((products.body as { '@count': number })['@count']).toBe(0);
      const image = await call(damUrl!, '/images', {
        method: 'POST',
        key: apiKey!,
        body: { url: `${assetsUrl}/quota.png` },
      });
      expect(image.status).toBe(409);
      expect(image.body).toEqual({ error: 'Image library limit reached. Current: 0, Maximum: 0.' });
      const limited = await call(catalogUrl!, '/Products', { key: apiKey! });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await run.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('negative or fractional counts and delays are refused before anything starts', async () => {
    for (const [flag, value, message] of [
      ['--image-quota', '-1', '--image-quota must be a whole number from 0 to 1000000000 (images), found -1'],
      ['--latency', '2.5', '--latency must be a whole number from 0 to 600000 (ms), found 2.5'],
      ['--processing-ms', '-5', '--processing-ms must be a whole number from 0 to 600000 (ms), found -5'],
      // The flag's bound is the sandbox's own: past it the flag is refused, not the sandbox's start.
      [
        '--processing-ms',
        '700000',
        '--processing-ms must be a whole number from 0 to 600000 (ms), found 700000',
      ],
      [
        '--file-quota',
        'abc',
        '--file-quota must be a whole number from 0 to 1000000000 (files), found "abc"',
      ],
    ] as const) {
      const out = memoryOutput();
      expect(await main(['sandbox', '--port', '0', flag, value], out)).toBe(2);
      expect(out.stderr.join('\n')).toContain(message);
    }
  });

  it('a bad knob value is refused with exit code 2 and a message, not a stack trace', async () => {
    const run = spawnSync(
      process.execPath,
      [...cliEntry(), 'sandbox', '--json', '--port', '0', '--fault-rate', '2'],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(run.status).toBe(2);
    // Under --json the refusal is the one JSON object on stdout, not a sandbox's address.
    expect(JSON.parse(run.stdout)).toEqual({
      error: '--fault-rate must be a number from 0 to 1 (a probability), found 2',
      code: 'CONFIG_INVALID',
      exitCode: 2,
    });
    expect(run.stderr).toContain('--fault-rate must be a number from 0 to 1 (a probability), found 2');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
