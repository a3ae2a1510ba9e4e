// http(s) URLs as byte sources, streamed with undici. Redirects are followed by hand (at most
// MAX_REDIRECTS) so a loop ends in one clear error; every message names the URL without secrets.
import { request } from 'undici';
import { CatalogIoError } from '../../errors.js';
import { type ByteSource, counted } from './byte-source.js';
import { displayName } from './redact.js';

export const MAX_REDIRECTS = 5;
export const DEFAULT_URL_TIMEOUT_MS = 30_000;

export async function openUrl(spec: string, timeoutMs = DEFAULT_URL_TIMEOUT_MS): Promise<ByteSource> {
  const name = displayName(spec);
  let url = spec;
  for (let redirects = 0; ; redirects++) {
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(url, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    } catch (err) {
      throw networkError(err, name);
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
    const { chunks, count } = counted(readBody(body, name));
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

async function* readBody(body: AsyncIterable<Buffer>, name: string): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body) yield chunk;
  } catch (err) {
    throw networkError(err, name);
  }
}

function networkError(err: unknown, name: string): CatalogIoError {
  const code = (err as { code?: string }).code ?? '';
  if (code.endsWith('TIMEOUT')) {
    return new CatalogIoError('SOURCE_TIMEOUT', `Download timed out: ${name} did not answer in time`);
  }
  return new CatalogIoError('SOURCE_UNREADABLE', `Cannot download ${name}: ${code || 'network error'}`);
}
