// `catalog-io schema pull` / `schema show` as a person runs them, in a child process with its own
// working directory and environment: against the URL CATALOG_URL names, and with no URL at all (the
// embedded sandbox, announced on the first line, its schemas cached under .catalog-io/schemas/sandbox).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEntry } from '../helpers/cli-entry.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'catalog-io-schema-env-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The environment without any catalog-io setting of the machine running the tests. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['CATALOG_URL', 'DAM_URL', 'CATALOG_API_KEY', 'CATALOG_IO_DEBUG']) delete env[name];
  return { ...env, ...extra };
}

function run(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliEntry(), ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('schema pull and show with CATALOG_URL set', () => {
  it('pull writes .catalog-io/schemas/<tenant>/ with the time fetched; show reads the live tenant', async () => {
    const sb = fixture.sb;
    const cwd = await mkdtemp(path.join(dir, 'env-'));
    const env = cleanEnv({ CATALOG_URL: sb.catalogUrl, DAM_URL: sb.damUrl, CATALOG_API_KEY: sb.apiKey });
    const pull = await run(['schema', 'pull'], { cwd, env });
    expect(pull.stderr).toBe('');
    expect(pull.code).toBe(0);
    const port = new URL(sb.catalogUrl).port;
    const cache = path.join(cwd, '.catalog-io', 'schemas', `127.0.0.1_${port}_catalog`);
    expect(pull.stdout).toContain(`Written to ${cache}`);
    const index = JSON.parse(readFileSync(path.join(cache, 'index.json'), 'utf8')) as {
      fetchedAt: string;
      source: string;
      files: { resources: Record<string, string> };
    };
    expect(Date.now() - Date.parse(index.fetchedAt)).toBeLessThan(120_000);
    expect(index.source).toBe(sb.catalogUrl);
    expect(Object.keys(index.files.resources).sort()).toEqual([
      'AttributeSets',
      'Categories',
      'Products',
      'Variants',
    ]);
    // No sandbox of its own was started.
    expect(existsSync(path.join(cwd, '.catalog-io', 'sandbox'))).toBe(false);
    for (const file of ['index.json', 'catalog.json', 'Products.json'])
      expect(readFileSync(path.join(cache, file), 'utf8')).not.toContain(sb.apiKey);

    const show = await run(['schema', 'show', 'products'], { cwd, env });
    expect(show.code).toBe(0);
    expect(show.stderr).toBe('');
    expect(show.stdout).toMatch(/^prod_title\s{2,}string max 255\s{2,}en,fr,es\s{2,}yes/m);
    expect(show.stdout + show.stderr).not.toContain(sb.apiKey);
  }, 60_000);

  it('a flag that is not a number is CONFIG_INVALID, exit 2, one line, no stack', async () => {
    const cwd = await mkdtemp(path.join(dir, 'flag-'));
    const sb = fixture.sb;
    const env = cleanEnv({ CATALOG_URL: sb.catalogUrl, CATALOG_API_KEY: sb.apiKey });
    const result = await run(['schema', 'show', 'products', '--concurrency', 'many'], { cwd, env });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'catalog-io: --concurrency must be a whole number from 1 to 64 (requests in flight at once), found "many" [CONFIG_INVALID]',
    ]);
  }, 60_000);
});

describe('schema pull with no catalog URL', () => {
  it('runs against the embedded sandbox, says so on its first line, caches under schemas/sandbox', async () => {
    const cwd = await mkdtemp(path.join(dir, 'embedded-'));
    const pull = await run(['schema', 'pull'], { cwd, env: cleanEnv() });
    expect(pull.code).toBe(0);
    expect(pull.stderr.split('\n')[0]).toMatch(
      /^Using the embedded sandbox tenant at http:\/\/127\.0\.0\.1:\d+\//,
    );
    const cache = path.join(cwd, '.catalog-io', 'schemas', 'sandbox');
    expect(pull.stdout).toContain(`Written to ${cache}`);
    expect(existsSync(path.join(cache, 'index.json'))).toBe(true);
    expect(existsSync(path.join(cwd, '.catalog-io', 'sandbox'))).toBe(true);
  }, 60_000);
});
