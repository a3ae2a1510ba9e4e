// One node:http server for the whole sandbox. It owns everything the services share: routing by
// prefix, the gateway (auth, rate limit, URL length), the fault knobs, the counters, and turning
// SandboxResponse values into bytes. The services never see node:http.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ResolvedOptions } from './context.js';
import {
  BodyParseError,
  damBodyErrors,
  errorBody,
  gatewayError,
  problem,
  requestId,
  type SandboxRequest,
  type SandboxResponse,
  type SandboxService,
  validationFailure,
} from './http.js';
import { jittered, RateLimiter, RequestStats, randomSource, sleep } from './knobs.js';
import { meterRequestLines, nextRequestLine, requestLineLength } from './request-line.js';

export const PREFIX = {
  catalog: '/catalog',
  dam: '/dam',
  assets: '/assets',
  stats: '/_sandbox/stats',
} as const;

/** The real service answers 414 beyond about 8,000 characters of URL. */
export const MAX_URL_LENGTH = 8000;
/**
 * Node refuses a request line and headers past 16 KB with its own 431; the sandbox reads up to this
 * much so that a long URL gets the spec's 414 from the gateway, and answers 414 itself beyond.
 */
const MAX_HEADER_BYTES = 256 * 1024;
/** Request bodies beyond this are refused (413) rather than buffered. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/**
 * Seconds a 503 asks the client to wait (`Retry-After`). The spec does not show the header; a
 * service that is briefly unavailable says when to come back, as the 429 does.
 */
export const FAULT_RETRY_AFTER_SECONDS = 1;
const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export interface MountedServices {
  catalog: SandboxService;
  dam: SandboxService;
  assets: SandboxService;
}

export class SandboxServer {
  readonly stats = new RequestStats();
  private readonly http: Server;
  private readonly random: () => number;
  private readonly limiter: RateLimiter | undefined;
  private services: MountedServices | undefined;
  private origin = '';
  /** With a data dir: resolves once every change so far is on disk. A write is answered after it. */
  durable: (() => Promise<void>) | undefined;

  constructor(private readonly options: ResolvedOptions) {
    this.random = randomSource(options.randomSeed);
    this.limiter = options.rateLimit
      ? new RateLimiter(options.rateLimit.requests, options.rateLimit.windowSeconds)
      : undefined;
    this.http = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
      res.on('finish', () => nextRequestLine(req.socket));
      this.onRequest(req, res).catch((err: unknown) => {
        // Last resort: a bug in the sandbox is still an answer in the spec's 500 shape, never a hang.
        process.stderr.write(
          `sandbox: internal error: ${err instanceof Error ? err.message : String(err)}\n`,
        );
        if (!res.headersSent)
          send(res, errorBody(500, `Internal error. Support code: ${requestId()}`), 'GET');
        else res.destroy();
      });
    });
    this.http.keepAliveTimeout = 30_000;
    this.http.on('connection', meterRequestLines);
    this.http.on('clientError', answerClientError);
  }

  /** Starts listening; the services are mounted afterwards because they need the final URLs. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.options.port, this.options.host, () => resolve());
    });
    const address = this.http.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.origin = `http://${host}:${address.port}`;
    return this.origin;
  }

  mount(services: MountedServices): void {
    this.services = services;
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const method = (req.method ?? 'GET').toUpperCase();
    const queryAt = rawUrl.indexOf('?');
    const rawPathFull = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
    const route = this.route(rawPathFull);

    if (route === 'stats') return this.onStats(method, rawPathFull, res);
    const body = await readBody(req);
    if (body === 'too-large') {
      return send(
        res,
        problem(413, 'Payload Too Large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes`),
        method,
      );
    }
    const services = this.services;
    if (!route || !services) {
      return send(res, problem(404, 'Not Found', `No service at ${rawPathFull}`), method);
    }
    if (route === 'assets') {
      return send(
        res,
        await services.assets.handle(this.request(req, method, rawUrl, PREFIX.assets, body, false)),
        method,
      );
    }

    // Catalog and DAM requests pass the gateway and are counted.
    const answer = await this.throughGateway(req, res, route, method, rawUrl, body, services[route]);
    if (answer === 'reset') {
      this.stats.record(method, 'reset', route);
      return;
    }
    this.stats.record(method, answer.status, route);
    return send(res, answer, method);
  }

  private async throughGateway(
    req: IncomingMessage,
    res: ServerResponse,
    service: 'catalog' | 'dam',
    method: string,
    rawUrl: string,
    body: Buffer,
    handler: SandboxService,
  ): Promise<SandboxResponse | 'reset'> {
    const o = this.options;
    const latency = jittered(o.latencyMs, this.random);
    if (latency > 0) await sleep(latency);

    const key = headerValue(req.headers['x-api-key']);
    if (!key) return gatewayError(401, 'Unauthorized: the X-API-KEY header is missing or empty');
    if (key !== o.apiKey && key !== o.readOnlyKey)
      return gatewayError(401, 'Unauthorized: the API key is not valid');
    const readOnly = key === o.readOnlyKey;
    if (readOnly && WRITE_METHODS.has(method)) {
      const detail = `This API key is read-only: ${method} is not allowed`;
      return service === 'catalog'
        ? problem(403, 'Forbidden', detail)
        : gatewayError(403, `Forbidden: ${detail}`);
    }
    if (this.limiter) {
      const wait = this.limiter.take(key);
      if (wait > 0) {
        return gatewayError(429, 'Too Many Requests: rate limit exceeded', { 'retry-after': String(wait) });
      }
    }
    if (this.origin.length + rawUrl.length > MAX_URL_LENGTH) {
      return problem(
        414,
        'URI Too Long',
        `The request URL is ${this.origin.length + rawUrl.length} characters; the limit is about ${MAX_URL_LENGTH}`,
      );
    }

    // Faults: a reset drops the connection, half the time after the request was processed (so a
    // write may have happened), which is exactly what a client must survive.
    const resetNow = this.random() < o.resetRate;
    const resetAfter = resetNow && this.random() < 0.5;
    if (resetNow && !resetAfter) {
      res.destroy();
      return 'reset';
    }
    if (!resetNow && this.random() < o.faultRate) {
      const status = [500, 502, 503][Math.floor(this.random() * 3)]!;
      return status === 500
        ? errorBody(500, `Internal server error. Support code: ${requestId()}`)
        : status === 502
          ? gatewayError(502, 'Bad Gateway')
          : gatewayError(503, 'Service Unavailable', { 'retry-after': String(FAULT_RETRY_AFTER_SECONDS) });
    }

    const prefix = service === 'catalog' ? PREFIX.catalog : PREFIX.dam;
    let answer: SandboxResponse;
    try {
      answer = await handler.handle(this.request(req, method, rawUrl, prefix, body, readOnly));
    } catch (err) {
      if (!(err instanceof BodyParseError)) throw err;
      answer =
        service === 'catalog'
          ? validationFailure('body', 'body', err.message, body.toString('utf8').slice(0, 200))
          : damBodyErrors([err.message]);
    }
    if (this.durable && WRITE_METHODS.has(method)) await this.durable();
    if (resetAfter) {
      res.destroy();
      return 'reset';
    }
    return answer;
  }

  private onStats(method: string, rawPath: string, res: ServerResponse): void {
    let answer: SandboxResponse;
    if (method === 'GET' && rawPath === PREFIX.stats) answer = { status: 200, body: this.stats.snapshot() };
    else if (method === 'POST' && rawPath === `${PREFIX.stats}/reset`) {
      this.stats.reset();
      answer = { status: 204 };
    } else answer = problem(404, 'Not Found', `No sandbox endpoint ${method} ${rawPath}`);
    send(res, answer, method);
  }

  private route(rawPath: string): keyof MountedServices | 'stats' | undefined {
    for (const [name, prefix] of Object.entries(PREFIX) as Array<[keyof typeof PREFIX, string]>) {
      if (rawPath === prefix || rawPath.startsWith(`${prefix}/`)) return name;
      if (name !== 'stats' && rawPath.startsWith(`${prefix}(`)) return name;
    }
    return undefined;
  }

  private request(
    req: IncomingMessage,
    method: string,
    rawUrl: string,
    prefix: string,
    body: Buffer,
    readOnly: boolean,
  ): SandboxRequest {
    const queryAt = rawUrl.indexOf('?');
    const rawPath = (queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt)).slice(prefix.length) || '/';
    const query = new URLSearchParams(queryAt === -1 ? '' : rawUrl.slice(queryAt + 1));
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      path = rawPath;
    }
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = headerValue(value);
    let parsed: { value: unknown } | undefined;
    return {
      method,
      path,
      rawPath,
      query,
      headers,
      body,
      readOnly,
      origin: this.origin,
      json() {
        if (!parsed) {
          const text = body.toString('utf8');
          if (text.trim() === '') parsed = { value: undefined };
          else {
            try {
              parsed = { value: JSON.parse(text, nullPrototype) };
            } catch (err) {
              throw new BodyParseError(`The request body is not valid JSON: ${(err as Error).message}`);
            }
          }
        }
        return parsed.value;
      },
    };
  }
}

/**
 * JSON.parse reviver: every object of a request body without a prototype, so a key such as
 * `constructor`, `toString` or `__proto__` is only ever data, never an inherited member.
 */
function nullPrototype(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.assign(Object.create(null) as Record<string, unknown>, value);
}

/**
 * A request Node could not parse. Past MAX_HEADER_BYTES, a request whose request line is the long
 * part still gets the spec's 414 (problem details), long headers Node's 431; anything else a 400.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // As Node's default handler: nothing can be written once an answer has started on this socket.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  let status = 400;
  let title = 'Bad Request';
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    [status, title] =
      requestLineLength(socket) > MAX_URL_LENGTH
        ? [414, 'URI Too Long']
        : [431, 'Request Header Fields Too Large'];
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') [status, title] = [408, 'Request Timeout'];
  const detail =
    status === 414
      ? `The request line is over ${MAX_HEADER_BYTES} bytes; URLs are limited to about ${MAX_URL_LENGTH} characters`
      : `The request could not be read (${err.code ?? 'parse error'})`;
  const body = JSON.stringify({
    type: `https://httpstatuses.io/${status}`,
    title,
    status,
    detail,
    instance: '',
  });
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v.trim() === '' ? undefined : v;
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, answer: SandboxResponse, method: string): void {
  if (res.destroyed) return;
  const headers: Record<string, string> = { ...(answer.headers ?? {}) };
  let payload: Buffer | undefined;
  if (answer.body !== undefined && answer.status !== 204 && answer.status !== 304) {
    if (Buffer.isBuffer(answer.body)) payload = answer.body;
    else if (typeof answer.body === 'string') {
      payload = Buffer.from(answer.body, 'utf8');
      headers['content-type'] ??= 'text/plain; charset=utf-8';
    } else {
      payload = Buffer.from(JSON.stringify(answer.body), 'utf8');
      headers['content-type'] ??= 'application/json; charset=utf-8';
    }
    headers['content-length'] ??= String(payload.length);
  }
  res.writeHead(answer.status, headers);
  const write = () => {
    if (res.destroyed) return;
    if (method === 'HEAD' || !payload) res.end();
    else res.end(payload);
  };
  if (answer.delayBodyMs && answer.delayBodyMs > 0) {
    res.flushHeaders();
    setTimeout(write, answer.delayBodyMs).unref();
  } else write();
}
