// Who may use the console (loopback names only; a token beyond loopback, kept in a cookie; no
// cross-origin writes), the console from the shipped bundle (its pages and libraries found from
// dist/), and the job queue's dashboard under /jobs with --redis.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccess } from '../../src/console/access.js';
import { startConsole } from '../../src/console/server.js';
import { enqueueFeed, openQueue } from '../../src/jobs/queue.js';
import { connectRedis } from '../../src/redis/connection.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';

const ROOT = join(import.meta.dirname, '../..');
const TOKEN = 'a-console-token-of-32-characters';

async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET') {
  const res = await request(url, { method, headers });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

describe('access', () => {
  it('refuses a bind beyond loopback without a token, and a token too short to be one', () => {
    expect(() => checkAccess('0.0.0.0', undefined)).toThrow(
      /needs a token: give --token or set CATALOG_IO_CONSOLE_TOKEN/,
    );
    expect(() => checkAccess('192.168.1.20', 'short')).toThrow(/at least 16 characters; got 5/);
    expect(() => checkAccess('127.0.0.1', undefined)).not.toThrow();
    expect(() => checkAccess('::1', undefined)).not.toThrow();
    expect(() => checkAccess('0.0.0.0', TOKEN)).not.toThrow();
  });

  it('with a token: asks for it, keeps it in a cookie, takes it out of the address', async () => {
    const handle = await startConsole({
      stateDir: mkdtempSync(join(tmpdir(), 'state-')),
      port: 0,
      token: TOKEN,
    });
    try {
      expect((await get(`${handle.url}/api/runs`)).status).toBe(401);
      expect((await get(`${handle.url}/api/runs?token=wrong-token-of-enough-length`)).status).toBe(401);
      // A cookie that is not valid percent-encoding is no token, not a server error.
      expect((await get(`${handle.url}/api/runs`, { cookie: 'catalog_io_console=%E0%A4%A' })).status).toBe(
        401,
      );
      const entry = await get(`${handle.url}/runs/x?token=${TOKEN}&a=1`);
      expect(entry.status).toBe(303);
      expect(entry.headers.location).toBe('/runs/x?a=1');
      const cookie = String(entry.headers['set-cookie']).split(';')[0]!;
      expect(String(entry.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
      expect(await get(`${handle.url}/api/runs`, { cookie })).toMatchObject({
        status: 200,
        text: '{"runs":[]}',
      });
      expect((await get(`${handle.url}/api/runs`, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    } finally {
      await handle.close();
    }
  });

  it('on loopback: answers loopback names only, and refuses writes from other origins', async () => {
    const handle = await startConsole({ stateDir: mkdtempSync(join(tmpdir(), 'state-')), port: 0 });
    try {
      const port = new URL(handle.url).port;
      expect((await get(`${handle.url}/api/runs`)).status).toBe(200);
      expect((await get(`${handle.url}/api/runs`, { host: `localhost:${port}` })).status).toBe(200);
      expect((await get(`${handle.url}/api/runs`, { host: `attacker.example:${port}` })).status).toBe(421);
      const cross = await get(`${handle.url}/api/check`, { origin: 'http://attacker.example' }, 'POST');
      expect(cross.status).toBe(403);
    } finally {
      await handle.close();
    }
  });

  it('compares the whole origin of a write: scheme, host and port; --origin allows another', async () => {
    const handle = await startConsole({
      stateDir: mkdtempSync(join(tmpdir(), 'state-')),
      port: 0,
      origins: ['https://catalog.example.com'],
    });
    try {
      const { port } = new URL(handle.url);
      const post = async (origin: string, host = `127.0.0.1:${port}`) =>
        (await get(`${handle.url}/api/check`, { origin, host }, 'POST')).status;
      // Another port of this machine, the same host over https, another loopback name: not the console.
      expect(await post('http://127.0.0.1:9999')).toBe(403);
      expect(await post('https://127.0.0.1')).toBe(403);
      expect(await post(`https://127.0.0.1:${port}`)).toBe(403);
      expect(await post(`http://localhost:${port}`)).toBe(403);
      expect(await post('null')).toBe(403);
      // Its own origin (as the Host names it), and the one allowed: past the check (no form: 406/400).
      expect(await post(`http://127.0.0.1:${port}`)).not.toBe(403);
      expect(await post(`http://localhost:${port}`, `localhost:${port}`)).not.toBe(403);
      expect(await post('https://catalog.example.com')).not.toBe(403);
      expect(await post('https://catalog.example.com:8443')).toBe(403);
    } finally {
      await handle.close();
    }
    await expect(
      startConsole({
        stateDir: mkdtempSync(join(tmpdir(), 'state-')),
        port: 0,
        origins: ['https://x.example/app'],
      }),
    ).rejects.toThrow(/^serve --origin https:\/\/x\.example\/app: give an origin as a browser sends it/);
  });
});

describe('the shipped bundle', () => {
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist', 'console', 'web', 'app.js')))
      execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  }, 300_000);

  it('serves the pages and the libraries from the package', async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'catalog-io.js'), 'serve', '--port', '0', '--json'],
      {
        cwd: mkdtempSync(join(tmpdir(), 'served-')),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
          const line = out.split('\n').find((l) => l.startsWith('{'));
          if (line) resolve((JSON.parse(line) as { url: string }).url);
        });
        child.on('exit', (code) => reject(new Error(`serve exited (${code})`)));
      });
      const page = await get(`${url}/runs/some-run`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('<script type="module" src="/app/app.js">');
      for (const asset of [
        '/app/app.js',
        '/app/style.css',
        '/vendor/preact.mjs',
        '/vendor/hooks.mjs',
        '/vendor/htm.mjs',
        '/vendor/tabulator.mjs',
        '/vendor/tabulator.css',
        '/vendor/chart.js',
      ]) {
        const res = await get(`${url}${asset}`);
        expect(res.status, asset).toBe(200);
        expect(res.text.length, asset).toBeGreaterThan(100);
      }
      expect((await get(`${url}/vendor/../package.json`)).status).toBe(404);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 60_000);
});

describe.runIf(redisTestsRun('test/console/serve.test.ts'))('jobs', () => {
  const redis = useRedis();
  let handle: Awaited<ReturnType<typeof startConsole>>;
  beforeAll(async () => {
    const connection = await connectRedis(redis.url, { forQueue: true });
    const queue = openQueue(connection);
    await enqueueFeed(queue, { command: 'import', tenant: 'acme', source: 'feed.csv', args: [] });
    await queue.close();
    connection.disconnect();
    handle = await startConsole({
      stateDir: mkdtempSync(join(tmpdir(), 'state-')),
      port: 0,
      redisUrl: redis.url,
    });
  });
  afterAll(async () => handle?.close());

  it('mounts bull-board under /jobs over the feed queue', async () => {
    const page = await get(`${handle.url}/jobs`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('catalog-io jobs');
    const queues = JSON.parse((await get(`${handle.url}/jobs/api/queues`)).text) as {
      queues: Array<{ name: string; counts: Record<string, number> }>;
    };
    expect(queues.queues.map((q) => [q.name, q.counts.waiting])).toEqual([['feeds', 1]]);
    expect(JSON.parse((await get(`${handle.url}/api/about`)).text)).toMatchObject({ jobs: true });
  });
});

describe('check a file', () => {
  // One console on a sandbox tenant for the checks that read the tenant's schemas.
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  let handle: Awaited<ReturnType<typeof startConsole>>;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    handle = await startConsole({
      stateDir: mkdtempSync(join(tmpdir(), 'state-')),
      port: 0,
      flags: { catalogUrl: sandbox.catalogUrl, damUrl: sandbox.damUrl, apiKey: sandbox.apiKey },
    });
  });
  afterAll(async () => {
    await handle?.close();
    await sandbox?.close();
  });

  it('checks a workbook of several sheets whole, as validate does', async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('Variants').addRows([
      ['frmt_ref', 'prod_ref', 'frmt_price'],
      ['CW-1-S', 'CW-1', 'abc'],
    ]);
    workbook.addWorksheet('Products').addRows([
      ['prod_ref', 'prod_title'],
      ['CW-1', 'Shirt'],
      ['CW-2', 'Pants'],
    ]);
    const form = new FormData();
    form.append('feed', new Blob([await workbook.xlsx.writeBuffer()]), 'book.xlsx');
    const res = await fetch(`${handle.url}/api/check`, { method: 'POST', body: form });
    const body = (await res.json()) as { rows?: number; outcomes?: Record<string, number>; error?: string };
    expect(res.status, body.error).toBe(200);
    // Both sheets: the products sheet's 2 rows and the variants sheet's, whose price is no number.
    expect(body).toMatchObject({ rows: 3, outcomes: { valid: 2, invalid: 1 } });
  });

  it('names the file as it was sent, never where the console keeps it: in the summary and in an error', async () => {
    const good = new FormData();
    good.append('feed', new Blob(['prod_ref,prod_title\nN-1,Shirt\n']), 'nightly.csv');
    const res = await fetch(`${handle.url}/api/check`, { method: 'POST', body: good });
    const body = (await res.json()) as { source?: string; file?: string; error?: string };
    expect(res.status, body.error).toBe(200);
    expect(body).toMatchObject({ source: 'nightly.csv', file: 'nightly.csv' });
    // A binary file under a feed's name: the reader's error names the upload.
    const binary = new FormData();
    binary.append(
      'feed',
      new Blob([new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0, 1, 2, 0, 0])]),
      'supplier.csv',
    );
    const refused = await fetch(`${handle.url}/api/check`, { method: 'POST', body: binary });
    const error = ((await refused.json()) as { error: string }).error;
    expect(refused.status).toBe(400);
    expect(error).toContain('supplier.csv');
    expect(error).not.toContain(tmpdir());
    // A profile that is not JSON: named as sent, the fault by its line and column.
    const badProfile = new FormData();
    badProfile.append('feed', new Blob(['prod_ref,prod_title\nN-1,Shirt\n']), 'nightly.csv');
    badProfile.append('profile', new Blob(['{\n  "entity": "products",\n  "columns": {\n']), 'mine.json');
    const notJson = await fetch(`${handle.url}/api/check`, { method: 'POST', body: badProfile });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: string }).error).toMatch(
      /^Profile is not valid JSON at line 4, column 1: .+ \(mine\.json\)$/,
    );
  });

  it('never shows the API key on a page, even where a feed carries it', async () => {
    const form = new FormData();
    // The key pasted into a cell whose value the report quotes (a weight must be a number).
    form.append(
      'feed',
      new Blob([`prod_ref,prod_title,prod_weight\nK-1,Shirt,${sandbox.apiKey}\n`]),
      'k.csv',
    );
    const res = await fetch(`${handle.url}/api/check`, { method: 'POST', body: form });
    const { id } = (await res.json()) as { id: string };
    for (const page of [`/api/checks/${id}`, `/api/checks/${id}/rows`]) {
      const text = await (await fetch(`${handle.url}${page}`)).text();
      expect(text).not.toContain(sandbox.apiKey);
    }
    const rows = await (await fetch(`${handle.url}/api/checks/${id}/rows`)).text();
    expect(rows).toContain('***');
  });

  it('cuts an upload at --max-upload, on its way to the disk, with a clear answer', async () => {
    const handle = await startConsole({
      stateDir: mkdtempSync(join(tmpdir(), 'state-')),
      port: 0,
      maxUploadBytes: 1024,
    });
    try {
      const form = new FormData();
      form.append('feed', new Blob(['SKU,Name\n'.padEnd(5000, 'x')]), 'big.csv');
      const res = await fetch(`${handle.url}/api/check`, { method: 'POST', body: form });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: string }).error).toBe(
        'big.csv is larger than this console accepts (1.0 KB; serve --max-upload raises it)',
      );
      const notFeed = new FormData();
      notFeed.append('feed', new Blob(['MZ']), 'setup.exe');
      const refused = await fetch(`${handle.url}/api/check`, { method: 'POST', body: notFeed });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toMatch(
        /^setup\.exe: not a feed this console reads/,
      );
    } finally {
      await handle.close();
    }
  });
});
