// Bad input meets one coded line and exit 2, never a stack trace, an INTERNAL error or a hang: a place
// that cannot be written (a file where a folder goes), a config file that is a folder or starts with a
// BOM, an HTML error page from the service, yargs' own complaints, flags that would trap a nightly run,
// and a Redis URL whose password must not be shown. Each runs the CLI as a child process.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli-process.js';

const cwd = mkdtempSync(join(tmpdir(), 'errors-ux-'));
writeFileSync(join(cwd, 'a-file'), 'not a folder\n');
writeFileSync(join(cwd, 'feed.csv'), 'prod_ref,prod_title\nA,x\n');
/** A service that answers every request with an HTML error page, as a proxy does. */
let html: Server;
let htmlUrl: string;

beforeAll(async () => {
  html = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end(
      '<!DOCTYPE HTML>\n<html>\n<head>\n<title>Error response</title>\n</head>\n<body>\n<h1>Not found</h1>\n</body>\n</html>\n',
    );
  });
  await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
  htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
});
afterAll(() => {
  html.close();
});

/** Exit 2, one line on stderr that ends with the code. */
async function fatal(args: string[], code: string, env: Record<string, string> = {}): Promise<string> {
  const run = await runCliProcess(args, { cwd, env, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(2);
  const lines = run.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('catalog-io:'));
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`\\[${code}\\]$`));
  expect(run.stderr).not.toContain('[INTERNAL]');
  expect(run.stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe('bad input: one coded line, exit 2, no hang', { timeout: 120_000 }, () => {
  it('places that cannot be written', async () => {
    // The sandbox's state folder under a file: the server it started must not keep the process alive.
    const sandbox = await fatal(
      ['sandbox', '--port', '0', '--data-dir', join(cwd, 'a-file', 'x')],
      'CONFIG_INVALID',
    );
    expect(sandbox).toContain(`a part of ${join(cwd, 'a-file')} is a file, not a folder`);
    const init = await fatal(
      ['profile', 'init', 'feed.csv', '--entity', 'products', '--out', 'missing/p.json'],
      'CONFIG_INVALID',
    );
    expect(init).toContain('Cannot open missing/p.json');
    // --summary is checked before the run starts: no run is left to list as crashed.
    await fatal(['import', 'feed.csv', '--summary', 'a-file/s.json', '--plan'], 'CONFIG_INVALID');
  });

  it('a config file that is a folder is said so; one with a BOM is read', async () => {
    const line = await fatal(['schema', 'show', 'products', '--config', cwd], 'CONFIG_INVALID');
    expect(line).toContain('it is a folder');
    const dir = mkdtempSync(join(tmpdir(), 'bom-config-'));
    writeFileSync(join(dir, 'catalog-io.config.json'), '\uFEFF{"rateLimit": "50/10"}');
    const run = await runCliProcess(['schema', 'show', 'products'], { cwd: dir, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
  });

  it("a service's HTML error page is one line", async () => {
    const line = await fatal(['schema', 'show', 'products'], 'API_NOT_FOUND', {
      CATALOG_URL: `${htmlUrl}/catalog`,
      CATALOG_API_KEY: 'k-for-html',
    });
    expect(line).toContain('Error response');
    expect(line).not.toContain('<');
  });

  it("flags: yargs' choices on one line, traps refused, a password not shown", async () => {
    await fatal(['import', 'feed.csv', '--mode', 'bogus'], 'CONFIG_INVALID');
    expect(await fatal(['import', 'feed.csv', '--rate-limit', '0', '--plan'], 'CONFIG_INVALID')).toContain(
      'use off',
    );
    expect(await fatal(['import', 'feed.csv', '--max-missing', '150%'], 'CONFIG_INVALID')).toContain(
      'at most 100%',
    );
    expect(await fatal(['validate', 'feed.csv', '--max-json-depth', 'abc'], 'CONFIG_INVALID')).toContain(
      '--max-json-depth',
    );
    await fatal(['sandbox', '--host', ''], 'CONFIG_INVALID');
    // A file flag given an empty name (an unset variable in a cron line) is refused, not ignored.
    expect(await fatal(['validate', 'feed.csv', '--report', ''], 'CONFIG_INVALID')).toContain(
      '--report needs a file name',
    );
    const redis = await fatal(['jobs', '--redis', ':Sup3rPass@127.0.0.1:6379'], 'CONFIG_INVALID');
    expect(redis).not.toContain('Sup3rPass');
  });

  it('a service that cannot be reached: schema and export say they wait, as import does', async () => {
    const env = { CATALOG_URL: 'http://127.0.0.1:9/catalog', CATALOG_API_KEY: 'k-unreachable' };
    for (const args of [
      ['schema', 'show', 'products', '--outage-budget', '2s'],
      ['export', 'products', '--out', 'x.csv', '--outage-budget', '2s'],
    ]) {
      const run = await runCliProcess(args, { cwd, env, timeoutMs: 60_000 });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^waiting for the Catalog API since \d\d:\d\d:\d\d: it cannot be reached/m);
      expect(run.stderr).toContain('[API_UNREACHABLE]');
    }
  });

  it("copy's errors name copy's flags", async () => {
    const from = [
      '--from-catalog-url',
      'http://127.0.0.1:1/catalog',
      '--from-dam-url',
      'http://127.0.0.1:1/dam',
    ];
    const to = ['--to-catalog-url', 'http://127.0.0.1:2/catalog'];
    const limit = await fatal(
      ['copy', ...from, '--from-api-key', 'a', '--from-rate-limit', '0/10', ...to],
      'CONFIG_INVALID',
    );
    expect(limit).toMatch(/^catalog-io: --from-rate-limit reads/);
    const key = await fatal(['copy', ...from, ...to], 'CONFIG_MISSING', {
      CATALOG_API_KEY: 'ignored-by-copy',
    });
    expect(key).toContain('give --from-api-key, or apiKey in the --from file');
    const credentials = await fatal(
      [
        'copy',
        ...from,
        '--from-api-key',
        'from-key-1234',
        '--to-catalog-url',
        'http://u:p@127.0.0.1:2/catalog',
      ],
      'CONFIG_INVALID',
    );
    expect(credentials).toContain(
      '--to-catalog-url must not carry credentials: give the key with --to-api-key',
    );
  });
});
