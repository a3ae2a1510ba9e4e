// Flags > environment > config file, checked once with coded errors.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRateLimit, resolveSettings } from '../../src/config/config.js';
import { type ErrorCode, isCatalogIoError } from '../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'catalog-io-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function withFile(name: string, content: unknown): Promise<string> {
  const cwd = await mkdtemp(path.join(dir, 'case-'));
  await writeFile(path.join(cwd, name), typeof content === 'string' ? content : JSON.stringify(content));
  return cwd;
}

function codeOf(run: () => unknown): ErrorCode | undefined {
  try {
    run();
  } catch (err) {
    if (isCatalogIoError(err)) return err.code;
    throw err;
  }
  return undefined;
}

describe('precedence', () => {
  it('flags win over env, env over the config file', async () => {
    const cwd = await withFile('catalog-io.config.json', {
      catalogUrl: 'https://file.example/catalog',
      damUrl: 'https://file.example/dam',
      apiKey: 'file-key',
      concurrency: 3,
    });
    const fromFile = resolveSettings({ cwd, env: {} });
    expect(fromFile).toMatchObject({
      catalogUrl: 'https://file.example/catalog',
      apiKey: 'file-key',
      concurrency: 3,
    });
    expect(fromFile.sources.catalogUrl).toBe('file');

    const env = { CATALOG_URL: 'https://env.example/catalog', CATALOG_API_KEY: 'env-key' };
    const fromEnv = resolveSettings({ cwd, env });
    expect(fromEnv).toMatchObject({
      catalogUrl: 'https://env.example/catalog',
      damUrl: 'https://file.example/dam',
      apiKey: 'env-key',
    });

    const fromFlags = resolveSettings({
      cwd,
      env,
      flags: { catalogUrl: 'https://flag.example/catalog', concurrency: 5, rateLimit: 'off' },
    });
    expect(fromFlags).toMatchObject({
      catalogUrl: 'https://flag.example/catalog',
      apiKey: 'env-key',
      concurrency: 5,
      rateLimit: null,
    });
    expect(fromFlags.sources).toMatchObject({ catalogUrl: 'flag', apiKey: 'env', damUrl: 'file' });
  });

  it('--config names another file; a relative schemas folder is read from the file’s folder', async () => {
    const cwd = await withFile('team.json', {
      catalogUrl: 'https://t.example/c',
      apiKey: 'k',
      schemas: 'cache/t',
    });
    const s = resolveSettings({ cwd, env: {}, flags: { config: 'team.json' } });
    expect(s.configFile).toBe(path.join(cwd, 'team.json'));
    expect(s.schemasDir).toBe(path.join(cwd, 'cache/t'));
  });

  it('nothing configured: no catalog URL (the embedded sandbox is used)', async () => {
    const cwd = await mkdtemp(path.join(dir, 'empty-'));
    expect(resolveSettings({ cwd, env: {} }).catalogUrl).toBeUndefined();
  });
});

describe('checked at the edge', () => {
  it('refuses what cannot work, with codes', async () => {
    const cwd = await mkdtemp(path.join(dir, 'bad-'));
    const env = {};
    expect(codeOf(() => resolveSettings({ cwd, env, flags: { config: 'missing.json' } }))).toBe(
      'CONFIG_MISSING',
    );
    expect(codeOf(() => resolveSettings({ cwd, env, flags: { catalogUrl: 'https://x.example/c' } }))).toBe(
      'CONFIG_MISSING',
    );
    expect(codeOf(() => resolveSettings({ cwd, env, flags: { catalogUrl: 'not a url', apiKey: 'k' } }))).toBe(
      'CONFIG_INVALID',
    );
    expect(
      codeOf(() => resolveSettings({ cwd, env, flags: { catalogUrl: 'ftp://x.example', apiKey: 'k' } })),
    ).toBe('CONFIG_INVALID');
    expect(
      codeOf(() =>
        resolveSettings({ cwd, env, flags: { catalogUrl: 'https://u:p@x.example', apiKey: 'k' } }),
      ),
    ).toBe('CONFIG_INVALID');
    expect(codeOf(() => resolveSettings({ cwd, env, flags: { concurrency: 0 } }))).toBe('CONFIG_INVALID');
    expect(codeOf(() => resolveSettings({ cwd, env, flags: { rateLimit: 'fast' } }))).toBe('CONFIG_INVALID');
    const broken = await withFile('catalog-io.config.json', '{ "catalogUrl": ');
    expect(codeOf(() => resolveSettings({ cwd: broken, env }))).toBe('CONFIG_INVALID');
    const unknown = await withFile('catalog-io.config.json', { catalogURL: 'https://x.example' });
    expect(codeOf(() => resolveSettings({ cwd: unknown, env }))).toBe('CONFIG_INVALID');
    const wrongType = await withFile('catalog-io.config.json', { concurrency: '8' });
    expect(codeOf(() => resolveSettings({ cwd: wrongType, env }))).toBe('CONFIG_INVALID');
  });

  it('error messages never carry the key', async () => {
    const cwd = await mkdtemp(path.join(dir, 'key-'));
    try {
      resolveSettings({
        cwd,
        env: { CATALOG_API_KEY: 'secret-key-777' },
        flags: { catalogUrl: 'https://x.example/c?token=1' },
      });
      expect.unreachable();
    } catch (err) {
      expect(String((err as Error).message)).not.toContain('secret-key-777');
    }
  });

  it('rate limits read as REQUESTS/SECONDS or off', () => {
    expect(parseRateLimit('50/10', 'x')).toEqual({ requests: 50, windowSeconds: 10 });
    expect(parseRateLimit('20', 'x')).toEqual({ requests: 20, windowSeconds: 10 });
    expect(parseRateLimit('5/1s', 'x')).toEqual({ requests: 5, windowSeconds: 1 });
    expect(parseRateLimit('off', 'x')).toBeNull();
  });
});
