// Real traffic to a source URL the sandbox may contact: a HEAD probe, then a streamed GET that counts
// the actual bytes and stops past the size limit. Redirects are never followed. Only the first bytes
// are kept (enough for image-size to read dimensions), so memory does not grow with the file.
import { STATUS_CODES } from 'node:http';
import { Agent, request } from 'undici';
import { mediaType } from './formats.js';
import { msg } from './messages.js';

/** The content marker that makes the background worker fail an image (the asset host's `?process=fail`). */
export const FAIL_PROCESSING_MARKER = Buffer.from('sandbox:fail-processing', 'latin1');
/** Bytes kept for reading dimensions: headers of every supported format sit well within this. */
const HEAD_BYTES_KEPT = 8 * 1024 * 1024;

export interface Download {
  /** Media type of the HEAD answer, lower-cased, without parameters. */
  contentType: string | undefined;
  sizeInBytes: number;
  /** The first bytes of the body (all of it for small files). */
  head: Buffer;
  /** The body carries FAIL_PROCESSING_MARKER somewhere. */
  failMarker: boolean;
}

export type FetchResult =
  | { ok: true; download: Download }
  | { ok: false; status: 400 | 500; message: string };

export interface FetchLimits {
  maxBytes: number;
  tooLarge: (bytes: number) => string;
  timeoutMs: number;
  /** Judges the probed Content-Type; returns the 400 message when refused. */
  checkContentType: (type: string | undefined) => string | undefined;
}

export class SourceFetcher {
  // Its own connection pool, closed with the service, so nothing lingers after close().
  private readonly agent = new Agent({ keepAliveTimeout: 1_000 });

  async fetch(url: URL, limits: FetchLimits): Promise<FetchResult> {
    const probe = await this.withTimeout(limits.timeoutMs, url, async (signal) => {
      const res = await request(url, { method: 'HEAD', dispatcher: this.agent, signal });
      await res.body.dump();
      return res;
    });
    if (!probe.ok) return probe;
    const head = probe.value;
    if (head.statusCode < 200 || head.statusCode > 299) return refuse(notAccessible(head.statusCode));
    const contentType = mediaType(firstHeader(head.headers['content-type']));
    const typeProblem = limits.checkContentType(contentType);
    if (typeProblem) return refuse(typeProblem);

    const got = await this.withTimeout(limits.timeoutMs, url, async (signal) => {
      const res = await request(url, { method: 'GET', dispatcher: this.agent, signal });
      if (res.statusCode < 200 || res.statusCode > 299) {
        await res.body.dump();
        return { refused: true, status: res.statusCode } as const;
      }
      const declared = Number(firstHeader(res.headers['content-length']) ?? Number.NaN);
      return { refused: false, body: await readCapped(res.body, limits.maxBytes, signal, declared) } as const;
    });
    if (!got.ok) return got;
    if (got.value.refused) return refuse(notAccessible(got.value.status));
    const body = got.value.body;
    if ('tooLarge' in body) return refuse(limits.tooLarge(body.tooLarge));
    if (body.size === 0) return refuse(msg.emptyFile);
    return {
      ok: true,
      download: { contentType, sizeInBytes: body.size, head: body.head, failMarker: body.marker },
    };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Runs one exchange under a time budget; a timeout or a transport failure becomes the spec's 500. */
  private async withTimeout<T>(
    timeoutMs: number,
    url: URL,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; status: 500; message: string }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      return { ok: true, value: await work(controller.signal) };
    } catch {
      const message = controller.signal.aborted
        ? msg.timeout(Math.round(timeoutMs / 100) / 10)
        : msg.unreachable(url.hostname);
      return { ok: false, status: 500, message };
    } finally {
      clearTimeout(timer);
    }
  }
}

type Capped = { size: number; head: Buffer; marker: boolean } | { tooLarge: number };

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  maxBytes: number,
  signal: AbortSignal,
  declaredLength: number,
): Promise<Capped> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let size = 0;
  let marker = false;
  let tail = Buffer.alloc(0);
  const overlap = FAIL_PROCESSING_MARKER.length - 1;
  for await (const chunk of body) {
    signal.throwIfAborted();
    size += chunk.length;
    if (size > maxBytes) {
      // Stop reading: the limit is passed, the rest of the body is never downloaded.
      body.destroy();
      return { tooLarge: Number.isFinite(declaredLength) && declaredLength > size ? declaredLength : size };
    }
    if (keptBytes < HEAD_BYTES_KEPT) {
      const part = chunk.subarray(0, HEAD_BYTES_KEPT - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    if (!marker) {
      // Search across chunk seams too: the marker may be split between two chunks.
      const window = Buffer.concat([tail, chunk]);
      marker = window.includes(FAIL_PROCESSING_MARKER);
      tail = Buffer.from(window.subarray(Math.max(0, window.length - overlap)));
    }
  }
  return { size, head: Buffer.concat(kept), marker };
}

function notAccessible(status: number): string {
  return msg.notAccessible(status, STATUS_CODES[status] ?? 'Unknown');
}

function refuse(message: string): FetchResult {
  return { ok: false, status: 400, message };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
