// Starts a real sandbox on an ephemeral loopback port for one test file and stops it afterwards.
import { afterAll, beforeAll } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/context.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';

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

/** fetch with the read-write key, against a path below a service URL. */
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
  const res = await fetch(baseUrl + path, {
    method: init.method ?? 'GET',
    headers,
    body,
    redirect: 'manual',
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // plain-text body: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
