// http(s) URLs as byte sources, streamed with undici. Redirects are followed by hand (at most
// MAX_REDIRECTS) so a loop ends in one clear error; every message names the URL without secrets.
// A server that stalls or trickles is stopped: undici bounds the wait for the headers and for each
// chunk, and readBody() the time spent waiting for each KiB (a byte a second never trips the first).
import { request } from 'undici';
import { CatalogIoError } from '../../errors.js';
import { type ByteSource, counted } from './byte-source.js';
import { displayName } from './redact.js';

export const MAX_REDIRECTS = 5;
export const DEFAULT_URL_TIMEOUT_MS = 30_000;
/** At least this much of the body must come in each `timeoutMs` spent waiting for it. */
export const MIN_BYTES_PER_TIMEOUT = 1024;

export interface UrlOptions {
  timeoutMs?: number;
  /** Request headers (credentials go here); sent only to the URL's origin, never shown. */
  headers?: Record<string, string>;
}

export async function openUrl(spec: string, options: UrlOptions = {}): Promise<ByteSource> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_URL_TIMEOUT_MS;
  const name = displayName(spec);
  const origin = new URL(spec).origin;
  let url = spec;
  for (let redirects = 0; ; redirects++) {
    let res: Awaited<ReturnType<typeof request>>;
    // A redirect to another host does not take the credentials along (as browsers do).
    const headers = new URL(url).origin === origin ? options.headers : undefined;
    try {
      res = await request(url, {
        method: 'GET',
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(headers && { headers }),
      });
    } catch (err) {
      throw networkError(err, name, timeoutMs);
    }
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
      await res.body.dump();
      if (redirects >= MAX_REDIRECTS) {
        throw new CatalogIoError(
          'SOURCE_TOO_MANY_REDIRECTS',
          `Too many redirects: ${name} redirected more than ${MAX_REDIRECTS} times`,
        );
      }
      url = new URL(location, url).toString();
      continue;
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump();
      throw new CatalogIoError(
        'SOURCE_HTTP_STATUS',
        `Cannot download ${name}: the server answered HTTP ${res.statusCode}, expected 2xx`,
        { status: res.statusCode },
      );
    }
    const length = Number(res.headers['content-length']);
    const body = res.body;
    const { chunks, count } = counted(readBody(body, name, timeoutMs));
    const path = new URL(url).pathname;
    return {
      name,
      fileName: decodeURIComponent(path).toLowerCase(),
      chunks,
      totalBytes: Number.isFinite(length) && length > 0 ? length : undefined,
      bytesRead: count,
      close: async () => {
        body.destroy();
      },
    };
  }
}

/**
 * The body's chunks. Only the time this reader waits counts (a reader held up by the import, which
 * does not pull, is not the server's fault): past `timeoutMs` of waiting for less than
 * MIN_BYTES_PER_TIMEOUT, the server is too slow to ever finish.
 */
async function* readBody(
  body: AsyncIterable<Buffer>,
  name: string,
  timeoutMs: number,
): AsyncGenerator<Buffer> {
  const iterator = body[Symbol.asyncIterator]();
  let waited = 0;
  let received = 0;
  for (;;) {
    const start = performance.now();
    let next: IteratorResult<Buffer>;
    try {
      next = await iterator.next();
    } catch (err) {
      throw networkError(err, name, timeoutMs);
    }
    if (next.done) return;
    waited += performance.now() - start;
    received += next.value.length;
    if (received >= MIN_BYTES_PER_TIMEOUT) {
      waited = 0;
      received = 0;
    } else if (waited > timeoutMs) {
      await iterator.return?.();
      throw new CatalogIoError(
        'SOURCE_TIMEOUT',
        `Download too slow: ${name} sent ${received} bytes in ${seconds(waited)} s of waiting, expected at least ${MIN_BYTES_PER_TIMEOUT} bytes per ${seconds(timeoutMs)} s; raise --source-timeout if the server is genuinely this slow`,
      );
    }
    yield next.value;
  }
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function networkError(err: unknown, name: string, timeoutMs: number): CatalogIoError {
  const code = (err as { code?: string }).code ?? '';
  if (code.endsWith('TIMEOUT')) {
    const what = code.includes('HEADERS') ? 'did not answer' : 'sent nothing more';
    return new CatalogIoError(
      'SOURCE_TIMEOUT',
      `Download timed out: ${name} ${what} for ${seconds(timeoutMs)} s; raise --source-timeout if the server is genuinely this slow`,
    );
  }
  return new CatalogIoError('SOURCE_UNREADABLE', `Cannot download ${name}: ${code || 'network error'}`);
}
