// Shared helpers of the catalog contract suite: a sandbox per test file and short request helpers
// that always send the read-write key over real HTTP.
import { expect } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/context.js';
import { call, useSandbox } from '../helpers/sandbox.js';

export type Reply = Awaited<ReturnType<typeof call>>;

export interface CatalogClient {
  readonly url: string;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** Id from a `Location` header such as `.../Products(12)` or `.../item(3)`. */
  idOf(reply: Reply): number;
}

export function catalogSandbox(options: SandboxOptions = {}) {
  const fixture = useSandbox(options);
  const client: CatalogClient = {
    get url() {
      return fixture.sb.catalogUrl;
    },
    get: (path, headers) => call(fixture.sb.catalogUrl, path, { key: fixture.sb.apiKey, headers }),
    send: (method, path, body, headers) =>
      call(fixture.sb.catalogUrl, path, { key: fixture.sb.apiKey, method, body, headers }),
    idOf(reply) {
      const location = reply.headers.get('location') ?? '';
      const m = /\((\d+)\)$/.exec(location);
      if (!m) throw new Error(`no id in Location '${location}'`);
      return Number(m[1]);
    },
  };
  return { fixture, client };
}

export interface Failure {
  PropertyName: string;
  ErrorMessage: string;
  AttemptedValue: unknown;
}

/** Asserts a ValidationFailureRepresentation 400 and returns the failures under `key`. */
export function failuresOf(reply: Reply, key: string): Failure[] {
  expect(reply.status).toBe(400);
  const body = reply.body as { validationFailures: Record<string, Failure[]> };
  expect(Object.keys(body)).toEqual(['validationFailures']);
  const list = body.validationFailures[key];
  expect(list, `validationFailures has no key '${key}': ${reply.text}`).toBeDefined();
  for (const f of list!)
    expect(Object.keys(f).sort()).toEqual(['AttemptedValue', 'ErrorMessage', 'PropertyName']);
  return list!;
}

/** Asserts a problem-details answer with the given status. */
export function expectProblem(reply: Reply, status: number): { detail: string } {
  expect(reply.status).toBe(status);
  const body = reply.body as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['detail', 'instance', 'status', 'title', 'type']);
  expect(body.status).toBe(status);
  return body as { detail: string };
}

export type Collection<T = Record<string, unknown>> = {
  '@readLink': string;
  '@context': string;
  '@count': number;
  '@nextLink'?: string;
  value: T[];
  /** Parent-scoped collections only. */
  ContinuationToken?: string | null;
};

/** The path and query of an absolute `@nextLink`, below the catalog URL. */
export function below(url: string, link: string): string {
  expect(link.startsWith(url)).toBe(true);
  return link.slice(url.length);
}

export const q = (s: string) => encodeURIComponent(s);
