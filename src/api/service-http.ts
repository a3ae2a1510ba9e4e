// One service (the Catalog API or the DAM API) over the run's Transport: its base URL and key, every
// request's tries (the retry policy, the circuit that holds requests while the service cannot be
// reached, the run's stop) and every answer turned into a parsed body or an ApiError.
import { CircuitClosedOff } from './circuit.js';
import type { RunCounters } from './counters.js';
import { ATTEMPT_TIMEOUT, attemptDeadline, formatDuration, RequestBudget } from './deadline.js';
import {
  ApiError,
  apiErrorFromNetwork,
  apiErrorFromResponse,
  badResponse,
  header,
  type ServiceName,
} from './errors.js';
import { decideRetry, type GiveUpReason, isGatewayStatus, sleep, unreachableKind } from './retry.js';
import type { Transport } from './transport.js';
import { encodePath, encodeQuery, type Query, trimBase } from './url.js';

/** The requests that write: each try of one is sent only while the run surely holds its lock. */
const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The least time left in a request's budget for which another try is sent, ms. */
const LEAST_TRY_MS = 100;
/** A probe of a service that cannot be reached waits at most this long for its answer, ms. */
const PROBE_TIMEOUT_MS = 10_000;
/** A cheap read each service answers whenever it is up: the circuit's probe. */
const PROBE_PATHS: Record<ServiceName, string> = { 'Catalog API': '/Categories', 'DAM API': '/images' };

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
  /** The cheap read that asks whether the service is back (default: one record of `/Categories` or `/images`). */
  probePath?: string;
}

/** One service (catalog or DAM): base URL + key over the run's Transport. */
export class ServiceHttp {
  readonly service: ServiceName;
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly apiKey: string;
  private readonly secrets: string[];
  private readonly probePath: string;

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
    this.probePath = config.probePath ?? PROBE_PATHS[config.service];
  }

  get counters(): RunCounters {
    return this.transport.counters;
  }

  /** What each write of the run's transport asks before it is sent (Transport.guardWrites). */
  guardWrites(guard: (() => Promise<void> | undefined) | undefined): void {
    this.transport.guardWrites(guard);
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

  private headers(culture: string | undefined, withBody: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      'x-api-key': this.apiKey,
      accept: 'application/json',
      'user-agent': 'catalog-io',
    };
    if (culture) headers['accept-language'] = culture;
    if (withBody) headers['content-type'] = 'application/json';
    return headers;
  }

  private async send<T>(
    method: string,
    target: string,
    shownPath: string,
    culture: string | undefined,
    body: unknown,
  ): Promise<ServiceResponse<T>> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = this.headers(culture, payload !== undefined);
    const transport = this.transport;
    const { limiter, counters, policy, timeoutMs } = transport;
    const circuit = transport.circuit(this.service, () => this.probe());
    let budget = new RequestBudget(policy.budgetMs);
    let unknownOutcomeBefore = false;
    // `attempt` counts every try (for messages); `counted` the tries the retry policy limits: tries
    // that found the service unreachable while the circuit held requests are not among them.
    for (let attempt = 1, counted = 1; ; attempt++, counted++) {
      if (transport.stopping) throw this.stopped(method, shownPath);
      try {
        await circuit.ready();
      } catch (err) {
        if (!(err instanceof CircuitClosedOff)) throw err;
        throw err.reason === 'stopped'
          ? this.stopped(method, shownPath)
          : this.unreachable(method, shownPath, err.since, err.why);
      }
      let failure: ApiError;
      // A try never runs past the request's budget: the last one gets what is left.
      const tryMs = Math.max(1, Math.min(timeoutMs, budget.remaining()));
      let started = false;
      let startedAt = 0;
      try {
        const tried = budget;
        const go = () => {
          started = true;
          startedAt = performance.now();
          return this.timedOnce(tried, tryMs, method, target, headers, payload, attempt > 1);
        };
        const res = await untilStopped(
          limiter.schedule(() => {
            if (transport.stopping) return Promise.reject(this.stopped(method, shownPath));
            // A write is sent only while the run surely holds its lock (a clock comparison); else it
            // waits for the lock's next refresh, and is not sent at all if the lock was lost.
            const wait = WRITES.has(method) ? transport.beforeWrite() : undefined;
            if (wait === undefined) return go();
            return wait.then(
              () => {
                if (transport.stopping) throw this.stopped(method, shownPath);
                return go();
              },
              () => {
                throw this.lockLost(method, shownPath);
              },
            );
          }),
          transport.waitSignal,
          () => !started,
          () => this.stopped(method, shownPath),
        );
        if (!isGatewayStatus(res.status)) {
          circuit.answered();
          // The pace follows what the service accepts: lowered on a 429, raised back while it takes
          // requests (a gateway's 502/503/504 says nothing of the pace).
          limiter.answered?.(res.status === 429, startedAt);
          transport.paceAnswered(this.service);
        }
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
        // A try cut because the run stops is not the service's failure.
        if (transport.trySignal.aborted) throw this.stopped(method, shownPath);
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
      // A try needs a little time to be worth sending: a sliver of budget would only end in a
      // timeout that hides what the service said.
      const worthTrying = budget.remaining() - Math.min(LEAST_TRY_MS, timeoutMs);
      const decision = decideRetry(policy, method, counted, failure, Math.random, worthTrying);
      // A request about to give up because the service cannot be reached waits for it instead: it
      // fails only for a reason of its own.
      const kind = unreachableKind(failure);
      const held = kind !== undefined && circuit.unreachable(kind, !decision.retry && !decision.ambiguous);
      if (failure.status === undefined || failure.status >= 500) unknownOutcomeBefore = true;
      if (held && (decision.retry || !decision.ambiguous)) {
        // The service cannot be reached: the circuit holds the request until it is back (or gives up),
        // and the request then goes on with its tries and its time whole.
        budget = new RequestBudget(policy.budgetMs);
        counted = 0;
        continue;
      }
      if (!decision.retry) {
        const given = failure.afterTries(attempt, this.giveUpNote(failure, attempt, budget, decision.reason));
        if (decision.ambiguous) {
          counters.recordAmbiguous();
          throw given.asAmbiguous();
        }
        throw given;
      }
      counters.recordRetryWait(decision.delayMs);
      budget.spend(decision.delayMs);
      await sleep(decision.delayMs, transport.waitSignal);
    }
  }

  /** One try of the probe read: whether the service answered at all (a gateway's 502/503/504 is no answer). */
  private async probe(): Promise<boolean> {
    const target = `${this.basePath}${encodePath(this.probePath)}${encodeQuery({ $top: 1 })}`;
    const tryMs = Math.min(this.transport.timeoutMs, PROBE_TIMEOUT_MS);
    const headers = this.headers(undefined, false);
    try {
      const res = await this.transport.limiter.schedule(() =>
        this.timedOnce(new RequestBudget(tryMs), tryMs, 'GET', target, headers, undefined, true),
      );
      return !isGatewayStatus(res.status);
    } catch {
      return false;
    }
  }

  /** A request the run no longer sends (or whose try it cut): the run is stopping. */
  private stopped(method: string, path: string): ApiError {
    return new ApiError(
      'API_STOPPED',
      `${this.service} ${method} ${path}: not finished, the run is stopping`,
      {
        service: this.service,
        method,
        path,
      },
    );
  }

  /**
   * A write not sent because the run lost its lock: another run may hold it now. `API_STOPPED`, so
   * every step ends as for a stop, `details.lockLost` telling the row's report why.
   */
  private lockLost(method: string, path: string): ApiError {
    const err = new ApiError(
      'API_STOPPED',
      `${this.service} ${method} ${path}: not sent, the run lost its lock and another run may hold it`,
      { service: this.service, method, path },
    );
    err.details.lockLost = true;
    return err;
  }

  /** A request that waited for the service past the outage budget. */
  private unreachable(method: string, path: string, since: Date | undefined, why: string): ApiError {
    const budget = formatDuration(this.transport.outage.budgetMs);
    const when = since ? ` since ${clockTime(since)}` : '';
    const cause = why
      ? ` (${why === ATTEMPT_TIMEOUT ? `no answer within ${formatDuration(this.transport.timeoutMs)}` : why})`
      : '';
    return new ApiError(
      'API_UNREACHABLE',
      `${this.service} ${method} ${path}: the service could not be reached${cause}${when}, longer than the ${budget} waited; raise --outage-budget or outageBudgetMs`,
      { service: this.service, method, path },
    );
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
      // The try ends at its deadline, or when the run cuts the tries in flight.
      const signal = AbortSignal.any([deadline.signal, this.transport.trySignal]);
      return await this.once(method, target, headers, payload, isRetry, signal);
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

/** Ends with the job, or, while `queued()` says the job has not started, as soon as `signal` fires. */
function untilStopped<T>(
  job: Promise<T>,
  signal: AbortSignal,
  queued: () => boolean,
  stopped: () => Error,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      if (queued()) reject(stopped());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    job.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** `20:01:02`: the local time of day, as a person at the terminal reads it. */
export function clockTime(at: Date): string {
  return at.toTimeString().slice(0, 8);
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
