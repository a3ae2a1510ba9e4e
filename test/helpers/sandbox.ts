// Starts a real sandbox on an ephemeral loopback port for one test file and stops it afterwards.
import { request } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/context.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { loadTenantModel } from '../../src/schema/load.js';
import type { TenantModel } from '../../src/schema/model.js';
import { pullSandboxSchemas } from './pulled-schemas.js';

export interface SandboxFixture {
  /** The running sandbox; available inside tests (after beforeAll). */
  readonly sb: SandboxHandle;
}

export function useSandbox(options: SandboxOptions = {}): SandboxFixture {
  let handle: SandboxHandle | undefined;
  beforeAll(async () => {
    handle = await startSandbox({ port: 0, ...options });
  });
  afterAll(async () => {
    await handle?.close();
  });
  return {
    get sb() {
      if (!handle) throw new Error('sandbox not started yet: use it inside a test or hook');
      return handle;
    },
  };
}

/** The CLI flags that point a command at this sandbox (and, with `rateLimit`, set its pace). */
export function sandboxFlags(sb: SandboxHandle, options: { rateLimit?: string } = {}): string[] {
  const flags = ['--catalog-url', sb.catalogUrl, '--dam-url', sb.damUrl, '--api-key', sb.apiKey];
  return options.rateLimit === undefined ? flags : [...flags, '--rate-limit', options.rateLimit];
}

/**
 * One HTTP request with undici's `request` (not fetch: fetch adds `accept-language: *` and other
 * browser headers by itself, and the services must be tested with exactly the headers we send).
 */
export async function call(
  baseUrl: string,
  path: string,
  init: { method?: string; key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.key !== null && init.key !== undefined) headers['x-api-key'] = init.key;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(baseUrl + path, {
    method: (init.method ?? 'GET') as 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.body.text();
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
  }
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // plain-text body: keep the text
  }
  return { status: res.statusCode, headers: responseHeaders, body: parsed, text };
}

/**
 * The DAM's images and files of one sandbox registered in another's under the same names (from the
 * other's asset host): an export names assets, it does not carry them. How many were registered.
 */
export async function copyDam(from: SandboxHandle, to: SandboxHandle): Promise<number> {
  let copied = 0;
  for (const kind of ['images', 'files']) {
    for (let skip = 0; ; skip += 100) {
      const page = await call(from.damUrl, `/${kind}?$top=100&$skip=${skip}`, { key: from.apiKey });
      const assets = (page.body as { value: Array<{ reference: string }> }).value;
      for (const { reference } of assets) {
        const res = await call(to.damUrl, `/${kind}`, {
          method: 'POST',
          key: to.apiKey,
          body: { url: `${to.assetsUrl}/${encodeURIComponent(reference)}` },
        });
        expect(res.status, res.text).toBe(201);
        copied++;
      }
      if (assets.length < 100) break;
    }
  }
  return copied;
}

/**
 * A second sandbox (by default an empty tenant) whose DAM may fetch from `source`'s asset host, as a
 * real DAM fetches any public URL: assets exported by URL from `source` can be registered here. Call it
 * after `useSandbox()` of the source, so the source is started first.
 */
export function useTargetSandbox(source: SandboxFixture, options: SandboxOptions = {}): SandboxFixture {
  let handle: SandboxHandle | undefined;
  beforeAll(async () => {
    const host = new URL(source.sb.assetsUrl).host;
    handle = await startSandbox({
      port: 0,
      seed: 'empty',
      ...options,
      allowHosts: [host, ...(options.allowHosts ?? [])],
    });
  });
  afterAll(async () => {
    await handle?.close();
  });
  return {
    get sb() {
      if (!handle) throw new Error('sandbox not started yet: use it inside a test or hook');
      return handle;
    },
  };
}

/** A fresh sandbox tenant's schemas pulled into `dir` (the sandbox is stopped after), and its model. */
export async function pulledSandboxModel(dir: string): Promise<TenantModel> {
  await pullSandboxSchemas(dir);
  return loadTenantModel({ schemasDir: dir });
}
