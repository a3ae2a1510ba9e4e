// The HTTP core every client request goes through: one keep-alive undici Pool per origin, the run's
// limiter, the run's counters and the retry policy. `ServiceHttp` binds it to one service (base URL
// and key) and turns every answer into a parsed body or an ApiError.
import { Pool } from 'undici';
import { CatalogIoError } from '../errors.js';
import { type CountersSnapshot, RunCounters } from './counters.js';
import { attemptDeadline, formatDuration, RequestBudget } from './deadline.js';
import {
  ApiError,
  apiErrorFromNetwork,
  apiErrorFromResponse,
  badResponse,
  header,
  type ServiceName,
} from './errors.js';
import { createLimiter, type RateLimit, type RequestLimiter } from './limiter.js';
import { decideRetry, type GiveUpReason, type RetryPolicy, retryPolicy, sleep } from './retry.js';
import { encodePath, encodeQuery, type Query, trimBase } from './url.js';

export const TIMEOUT_DEFAULTS = Object.freeze({
  /** One try, whole: connecting, the headers and the complete body, ms. */
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
});

export interface TransportOptions {
  /** Requests in flight at once, and connections per origin. Default 8. */
  concurrency?: number;
  /** Requests per window; `null` for none. Default 50 per 10 s (the real service's limit). */
  rateLimit?: RateLimit | null;
  /** Attempts, backoff, and `budgetMs`: the time one request may take, all tries and waits included. */
  retry?: Partial<RetryPolicy>;
  /** A limiter shared with other processes (`--redis`); replaces the run's own. */
  limiter?: RequestLimiter;
  /** One try, whole (headers and complete body), ms. Default 30 s. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
}

/** What one run shares: connections, limiter, counters, retry policy. Close it when the run ends. */
export class Transport {
  readonly limiter: RequestLimiter;
  readonly counters = new RunCounters();
  readonly policy: RetryPolicy;
  readonly concurrency: number;
  readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly pools = new Map<string, Pool>();
  private closed = false;

  constructor(options: TransportOptions = {}) {
    checkTimes(options);
    this.concurrency = options.concurrency ?? 8;
    this.limiter =
      options.limiter ??
      createLimiter({
        concurrency: this.concurrency,
        ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
      });
    this.policy = retryPolicy(options.retry);
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_DEFAULTS.timeoutMs;
    this.connectTimeoutMs = options.connectTimeoutMs ?? TIMEOUT_DEFAULTS.connectTimeoutMs;
  }

  pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.concurrency,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        connectTimeout: Math.min(this.connectTimeoutMs, this.timeoutMs),
        keepAliveTimeout: 10_000,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  snapshot(): CountersSnapshot {
    return this.counters.snapshot();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => undefined)));
    this.pools.clear();
  }
}

export interface ServiceRequest {
  method: string;
  /** Raw path below the service URL: `/Products(12)`, `/CustomEntities('Store Locations')`. Encoded here. */
  path: string;
  query?: Query;
  /** Sent as Accept-Language. */
  culture?: string;
  /** Sent as JSON. */
  body?: unknown;
}

export interface ServiceResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON; undefined for an empty body. */
  body: T;
  /** Attempts it took, retries included. */
  attempts: number;
  /** A DELETE whose earlier attempt failed with an unknown outcome and whose retry found nothing: already gone. */
  alreadyGone?: boolean;
}

export interface ServiceConfig {
  service: ServiceName;
  /** Base URL of the service, e.g. `https://tenant.example/catalog/v2` (no trailing slash needed). */
  baseUrl: string;
  apiKey: string;
  /** Other strings never to show in errors (e.g. a second key). */
  secrets?: string[];
}

/** One service (catalog or DAM): base URL + key over the run's Transport. */
export class ServiceHttp {
  readonly service: ServiceName;
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly apiKey: string;
  private readonly secrets: string[];

  constructor(
    private readonly transport: Transport,
    config: ServiceConfig,
  ) {
    this.service = config.service;
    this.baseUrl = trimBase(config.baseUrl);
    const url = new URL(this.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.apiKey = config.apiKey;
    this.secrets = [config.apiKey, ...(config.secrets ?? [])];
  }

  get counters(): RunCounters {
    return this.transport.counters;
  }

  /** The full encoded URL a request would be sent to (for length budgets). */
  url(path: string, query?: Query): string {
    return `${this.baseUrl}${encodePath(path)}${encodeQuery(query)}`;
  }

  request<T = unknown>(req: ServiceRequest): Promise<ServiceResponse<T>> {
    const target = `${this.basePath}${encodePath(req.path)}${encodeQuery(req.query)}`;
    return this.send<T>(req.method.toUpperCase(), target, req.path, req.culture, req.body);
  }

  /**
   * Follows a link the service returned (`@nextLink`). It must point below this service's base URL:
   * the key is never sent anywhere else.
   */
  follow<T = unknown>(link: string, culture?: string): Promise<ServiceResponse<T>> {
    let url: URL;
    try {
      url = new URL(link, `${this.baseUrl}/`);
    } catch {
      return Promise.reject(
        badResponse(this.describe('GET', link), 200, `returned a link that is not a URL: ${link}`),
      );
    }
    const below = url.pathname === this.basePath || url.pathname.startsWith(`${this.basePath}/`);
    if (url.origin !== this.origin || !below) {
      return Promise.reject(
        badResponse(
          this.describe('GET', url.pathname),
          200,
          `returned a link outside ${this.baseUrl} (${url.origin}${url.pathname}); not followed`,
        ),
      );
    }
    const shownPath = decodeSafe(url.pathname.slice(this.basePath.length));
    return this.send<T>('GET', `${url.pathname}${url.search}`, shownPath, culture, undefined);
  }

  private describe(method: string, path: string): { service: ServiceName; method: string; path: string } {
    return { service: this.service, method, path };
  }

  private async send<T>(
    method: string,
    target: string,
    shownPath: string,
    culture: string | undefined,
    body: unknown,
  ): Promise<ServiceResponse<T>> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {
      'x-api-key': this.apiKey,
      accept: 'application/json',
      'user-agent': 'catalog-io',
    };
    if (culture) headers['accept-language'] = culture;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const { limiter, counters, policy, timeoutMs } = this.transport;
    const budget = new RequestBudget(policy.budgetMs);
    let unknownOutcomeBefore = false;
    for (let attempt = 1; ; attempt++) {
      let failure: ApiError;
      // A try never runs past the request's budget: the last one gets what is left.
      const tryMs = Math.max(1, Math.min(timeoutMs, budget.remaining()));
      try {
        const res = await limiter.schedule(() =>
          this.timedOnce(budget, tryMs, method, target, headers, payload, attempt > 1),
        );
        if (res.status < 300) return { ...this.parse<T>(method, shownPath, res), attempts: attempt };
        if (method === 'DELETE' && res.status === 404 && unknownOutcomeBefore) {
          return {
            status: res.status,
            headers: res.headers,
            body: undefined as T,
            attempts: attempt,
            alreadyGone: true,
          };
        }
        failure = apiErrorFromResponse({
          service: this.service,
          method,
          path: shownPath,
          status: res.status,
          headers: res.headers,
          body: res.text,
          secrets: this.secrets,
        });
      } catch (err) {
        if (err instanceof ApiError) throw err;
        failure = apiErrorFromNetwork(err, {
          service: this.service,
          method,
          path: shownPath,
          secrets: this.secrets,
          // A last try cut short by the budget is not the configured timeout: the note says why.
          ...(tryMs === timeoutMs ? { timeoutMs } : {}),
        });
      }
      failure.attempts = attempt;
      const decision = decideRetry(policy, method, attempt, failure, Math.random, budget.remaining());
      if (!decision.retry) {
        const given = failure.afterTries(attempt, this.giveUpNote(failure, attempt, budget, decision.reason));
        if (decision.ambiguous) {
          counters.recordAmbiguous();
          throw given.asAmbiguous();
        }
        throw given;
      }
      if (failure.status === undefined || failure.status >= 500) unknownOutcomeBefore = true;
      counters.recordRetryWait(decision.delayMs);
      budget.spend(decision.delayMs);
      await sleep(decision.delayMs);
    }
  }

  /**
   * What a person needs after the last try: how many tries, and which setting to raise when time
   * ran out. Never the key: nothing here comes from the request's headers.
   */
  private giveUpNote(
    failure: ApiError,
    attempts: number,
    budget: RequestBudget,
    reason: GiveUpReason,
  ): string {
    const { timeoutMs, policy } = this.transport;
    // No elapsed time in the message: rows that failed alike must read alike in a report's tally.
    const tries = attempts > 1 ? `after ${attempts} tries` : '';
    const timedOut = failure.code === 'API_TIMEOUT';
    const raise: string[] = [];
    if (timedOut) raise.push(`the timeout per try (--timeout or timeoutMs, now ${timeoutMs} ms)`);
    if (reason === 'budget' || (timedOut && budget.remaining() < timeoutMs))
      raise.push(`the time for all tries (--retry-budget or retryBudgetMs, now ${policy.budgetMs} ms)`);
    const advice =
      reason === 'retry-after'
        ? `the service asked to wait ${failure.retryAfterSeconds} s, longer than the ${formatDuration(policy.maxRetryAfterMs)} waited at most`
        : raise.length
          ? `raise ${raise.join(' or ')}`
          : '';
    const parts = [tries, advice].filter(Boolean);
    return parts.length ? `; ${parts.join('; ')}` : '';
  }

  /** One try within its deadline; its time, queue excluded, is spent from the request's budget. */
  private async timedOnce(
    budget: RequestBudget,
    tryMs: number,
    method: string,
    target: string,
    headers: Record<string, string>,
    payload: string | undefined,
    isRetry: boolean,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
    const started = performance.now();
    const deadline = attemptDeadline(tryMs);
    try {
      return await this.once(method, target, headers, payload, isRetry, deadline.signal);
    } finally {
      deadline.clear();
      budget.spend(performance.now() - started);
    }
  }

  private async once(
    method: string,
    target: string,
    headers: Record<string, string>,
    payload: string | undefined,
    isRetry: boolean,
    signal: AbortSignal,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
    const bytesOut = payload === undefined ? 0 : Buffer.byteLength(payload);
    try {
      const res = await this.transport.pool(this.origin).request({
        method: method as 'GET',
        path: target,
        headers,
        signal,
        ...(payload !== undefined ? { body: payload } : {}),
      });
      const text = await res.body.text();
      this.transport.counters.recordAttempt(
        method,
        res.statusCode,
        { in: Buffer.byteLength(text), out: bytesOut },
        isRetry,
      );
      return { status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      this.transport.counters.recordAttempt(method, 'network', { in: 0, out: 0 }, isRetry);
      throw err;
    }
  }

  private parse<T>(
    method: string,
    shownPath: string,
    res: { status: number; headers: Record<string, string | string[] | undefined>; text: string },
  ): Omit<ServiceResponse<T>, 'attempts'> {
    if (res.text.trim() === '') return { status: res.status, headers: res.headers, body: undefined as T };
    try {
      return { status: res.status, headers: res.headers, body: JSON.parse(res.text) as T };
    } catch {
      const type = header(res.headers, 'content-type') ?? 'no content type';
      throw badResponse(
        this.describe(method, shownPath),
        res.status,
        `answered with a body that is not JSON (${type})`,
      );
    }
  }
}

/** Node runs a timer longer than about 24.8 days after 1 ms: such a limit would end every try at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** A library caller's time limits, checked like the CLI's flags are. */
function checkTimes(options: TransportOptions): void {
  const limits: Array<[string, number | undefined]> = [
    ['timeoutMs', options.timeoutMs],
    ['connectTimeoutMs', options.connectTimeoutMs],
    ['retry.budgetMs', options.retry?.budgetMs],
  ];
  for (const [name, value] of limits) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value <= 0 || value > LONGEST_TIMER_MS) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `${name} must be a number of milliseconds above 0 and at most ${LONGEST_TIMER_MS}, found ${value}`,
      );
    }
  }
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
