// "Check a file" as `validate` checks it (references against the file and the tenant, YAML profiles),
// and what a check may cost the machine that runs the console: its report bounded, the checks kept
// bounded together, a check stopped (its files removed) when its page goes away or the console is
// stopped by a real SIGTERM. A real console on listen(0), a real sandbox tenant, real HTTP.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../src/console/server.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { startCli } from '../helpers/cli-child.js';

type Answer = {
  id?: string;
  rows?: number;
  outcomes?: Record<string, number>;
  error?: string;
  code?: string;
};

async function check(
  url: string,
  files: Array<[field: string, text: string, name: string]>,
  signal?: AbortSignal,
) {
  const form = new FormData();
  for (const [field, text, name] of files) form.append(field, new Blob([text]), name);
  const res = await fetch(`${url}/api/check`, { method: 'POST', body: form, ...(signal && { signal }) });
  return { status: res.status, body: (await res.json()) as Answer };
}

/** Every file under `dir`, with its size. */
function filesUnder(dir: string): Array<{ file: string; size: number }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .map((file) => ({ file, stat: statSync(join(dir, file)) }))
    .filter((f) => f.stat.isFile())
    .map((f) => ({ file: f.file, size: f.stat.size }));
}

/** The console's own temporary folders in `root` (made at its start). */
function consoleDirs(root: string): string[] {
  return readdirSync(root)
    .filter((name) => name.startsWith('catalog-io-console-'))
    .map((name) => join(root, name));
}

/** Starts a console whose temporary folder is made in a folder of the test's own (TMPDIR at its start). */
async function consoleIn(root: string, options: Partial<Parameters<typeof startConsole>[0]>) {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = root;
  try {
    return await startConsole({ stateDir: mkdtempSync(join(tmpdir(), 'state-')), port: 0, ...options });
  } finally {
    process.env.TMPDIR = saved;
  }
}

async function until(what: string, test: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A CSV of `rows` rows of the same ref: every row but the first is a duplicate, whose report line is long. */
function duplicates(rows: number): string {
  return `prod_ref,prod_title\n${'X,y\n'.repeat(rows)}`;
}

describe('check a file', () => {
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  let flags: { catalogUrl: string; damUrl: string; apiKey: string };
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    flags = { catalogUrl: sandbox.catalogUrl, damUrl: sandbox.damUrl, apiKey: sandbox.apiKey };
  });
  afterAll(async () => sandbox?.close());

  it('checks references as validate does: a category neither in the file nor in the tenant fails the row', async () => {
    const handle = await startConsole({ stateDir: mkdtempSync(join(tmpdir(), 'state-')), port: 0, flags });
    try {
      const profile = JSON.stringify({
        entity: 'products',
        columns: { SKU: 'prod_ref', Name: 'prod_title', Categories: 'cat_refs' },
      });
      const { status, body } = await check(handle.url, [
        ['feed', 'SKU,Name,Categories\nQR-1,a,NO-SUCH-CATEGORY\n', 'refs.csv'],
        ['profile', profile, 'profile-refs.json'],
      ]);
      expect(status, body.error).toBe(200);
      expect(body).toMatchObject({ rows: 1, outcomes: { valid: 0, invalid: 1 } });
      const rows = await (await fetch(`${handle.url}/api/checks/${body.id}/rows`)).text();
      expect(rows).toContain('neither in the file nor in the tenant');
    } finally {
      await handle.close();
    }
  });

  it('reads a YAML profile, as --profile does', async () => {
    const handle = await startConsole({ stateDir: mkdtempSync(join(tmpdir(), 'state-')), port: 0, flags });
    try {
      const yaml = 'entity: products\ncolumns:\n  SKU: prod_ref\n  Name: prod_title\n';
      for (const name of ['prof.yaml', 'prof.yml']) {
        const { status, body } = await check(handle.url, [
          ['feed', 'SKU,Name\nY-1,Shirt\n', 'feed.csv'],
          ['profile', yaml, name],
        ]);
        expect(status, body.error).toBe(200);
        expect(body).toMatchObject({ rows: 1, outcomes: { valid: 1, invalid: 0 } });
      }
    } finally {
      await handle.close();
    }
  });

  it('stops a check whose report passes --max-report, and removes its files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bounded-'));
    const handle = await consoleIn(root, { flags, maxReportBytes: 256 * 1024, maxChecksBytes: 1024 * 1024 });
    try {
      // 80 KB sent: a report of several MB (each duplicate's line names the row it repeats).
      const { status, body } = await check(handle.url, [['feed', duplicates(20_000), 'dup.csv']]);
      expect(status).toBe(507);
      expect(body.error).toMatch(
        /^The report of dup\.csv passed 256\.0 KB, the most one check may write \(serve --max-report\): the check stopped and its files were removed/,
      );
      const [dir] = consoleDirs(root);
      expect(filesUnder(dir!)).toEqual([]);
    } finally {
      await handle.close();
    }
  });

  it('keeps the checks within --max-checks-disk: the oldest go first, the feed is not kept', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bounded-'));
    const maxReportBytes = 64 * 1024;
    const maxChecksBytes = 160 * 1024;
    const handle = await consoleIn(root, { flags, maxReportBytes, maxChecksBytes });
    try {
      const [dir] = consoleDirs(root);
      // 400 valid rows: a report of about 30 KB each.
      const feed = `prod_ref,prod_title\n${Array.from({ length: 400 }, (_, i) => `R-${i},Shirt\n`).join('')}`;
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const { status, body } = await check(handle.url, [['feed', feed, `f${i}.csv`]]);
        expect(status, body.error).toBe(200);
        ids.push(body.id!);
        // The grid read: its index is on the disk too.
        expect((await fetch(`${handle.url}/api/checks/${body.id}/rows`)).status).toBe(200);
        const used = filesUnder(dir!).reduce((sum, f) => sum + f.size, 0);
        expect(used).toBeLessThanOrEqual(maxChecksBytes);
        expect(filesUnder(dir!).some((f) => /feed/.test(f.file))).toBe(false);
      }
      expect((await fetch(`${handle.url}/api/checks/${ids[0]}`)).status).toBe(404);
      expect((await fetch(`${handle.url}/api/checks/${ids[5]}`)).status).toBe(200);
    } finally {
      await handle.close();
    }
  });

  it('stops a check whose page went away before the answer, and removes its files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gone-'));
    const handle = await consoleIn(root, { flags });
    try {
      const [dir] = consoleDirs(root);
      const page = new AbortController();
      const asked = check(handle.url, [['feed', duplicates(3_000_000), 'big.csv']], page.signal).catch(
        (err: Error) => err,
      );
      await until('the check to write its report', () =>
        filesUnder(dir!).some((f) => /report/.test(f.file) && f.size > 0),
      );
      page.abort();
      expect(await asked).toBeInstanceOf(Error);
      // Stopped at its next row: its folder goes, nothing is written after.
      await until('the check folder to go', () => filesUnder(dir!).length === 0, 3_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(filesUnder(dir!)).toEqual([]);
    } finally {
      await handle.close();
    }
  }, 60_000);

  it('a SIGTERM to serve during a check stops the check and exits within seconds, its files removed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'term-'));
    const cwd = mkdtempSync(join(tmpdir(), 'served-'));
    mkdirSync(join(root, 'tmp'));
    const served = startCli(['serve', '--port', '0', '--json'], {
      cwd,
      env: {
        TMPDIR: join(root, 'tmp'),
        CATALOG_URL: sandbox.catalogUrl,
        DAM_URL: sandbox.damUrl,
        CATALOG_API_KEY: sandbox.apiKey,
      },
    });
    let url: string | undefined;
    served.child.stdout!.on('data', (chunk: Buffer) => {
      const line = String(chunk)
        .split('\n')
        .find((l) => l.startsWith('{'));
      if (line) url = (JSON.parse(line) as { url: string }).url;
    });
    try {
      await until('serve to listen', () => url !== undefined);
      const [dir] = consoleDirs(join(root, 'tmp'));
      const asked = check(url!, [['feed', duplicates(3_000_000), 'big.csv']]).catch((err: Error) => err);
      await until('the check to write its report', () =>
        filesUnder(dir!).some((f) => /report/.test(f.file) && f.size > 0),
      );
      const stopped = Date.now();
      served.child.kill('SIGTERM');
      const { code } = await served.done;
      expect(Date.now() - stopped).toBeLessThan(5_000);
      expect(code).toBe(0);
      // The page is told why its check ended (it was not left with a dropped connection).
      const answer = await asked;
      expect(answer).toEqual({
        status: 503,
        body: { error: 'The check of big.csv was stopped: the console is stopping', code: 'STOPPED' },
      });
      expect(consoleDirs(join(root, 'tmp'))).toEqual([]);
    } finally {
      served.child.kill('SIGKILL');
      await served.done;
    }
  }, 120_000);
});
