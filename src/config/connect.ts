// connect(): what every command calls to reach a tenant. Resolves the settings, starts the embedded
// sandbox when no catalog URL is configured, and builds both clients over one run Transport
// (one limiter, one set of counters, one pool per origin).
import { createHash } from 'node:crypto';
import path from 'node:path';
import { CatalogClient } from '../api/catalog.js';
import { OUTAGE_DEFAULTS } from '../api/circuit.js';
import type { CountersSnapshot } from '../api/counters.js';
import { DamClient } from '../api/dam.js';
import { LIMIT_DEFAULTS, windowWithMargin } from '../api/limiter.js';
import { ServiceHttp } from '../api/service-http.js';
import { Transport, type TransportOptions } from '../api/transport.js';
import { CatalogIoError } from '../errors.js';
import { defaultLockDir } from '../lock/dir.js';
import type { RunLockStore } from '../lock/types.js';
import { tenantHash } from '../runs/source-identity.js';
import { type ModelScope, TenantModels } from '../schema/load.js';
import type { TenantModel } from '../schema/model.js';
import { defaultSchemasDir, tenantName } from '../schema/raw.js';
import {
  CONFIG_FILE_NAME,
  type ConnectionFlags,
  type ConnectionSettings,
  type ResolvedSettings,
  resolveSettings,
  type SettingNames,
  settingPlaces,
  withCallerSettings,
} from './config.js';

export interface ConnectOptions {
  /** CLI flags (highest precedence). */
  flags?: ConnectionFlags;
  /** Settings given by a library caller; they win over flags, env and file. */
  settings?: ConnectionSettings;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Told one line when the embedded sandbox is used (the command prints it first). */
  announce?: (line: string) => void;
  /** Told when a service becomes unreachable, is back, or was waited for past the outage budget. */
  onOutage?: TransportOptions['onOutage'];
  /** Told when a 429 lowers the pace below the rate limit, and when it is back at the limit. */
  onPace?: TransportOptions['onPace'];
  /** Embedded sandbox only: start from the seed, ignoring the persisted state. */
  resetSandbox?: boolean;
  /** How messages name the settings (copy's `--from-…` flags); the usual flags and environment by default. */
  names?: SettingNames;
}

export interface TenantInfo {
  /** Filesystem-safe tenant name (schema cache folder): from the catalog URL's host and path; `sandbox` when embedded. */
  name: string;
  catalogUrl: string;
  damUrl: string | undefined;
  /** Running against the embedded sandbox. */
  embedded: boolean;
  /** Names the API key without giving it away (a short sha256 of it): locks and run summaries use it. */
  keyId: string;
  /** Where `schema pull` writes by default. */
  defaultSchemasDir: string;
  /** The schema cache in use (`--schemas`), when offline. */
  schemasDir: string | undefined;
  /**
   * The tenant's model: from the schema cache when one is configured, else live, reading only the
   * `$metadata` documents the scope's entities need (default all); each document is fetched once.
   */
  model(scope?: ModelScope): Promise<TenantModel>;
}

export interface Connection {
  catalog: CatalogClient;
  /** Throws CONFIG_MISSING when no DAM URL is configured. */
  dam: DamClient;
  tenant: TenantInfo;
  /** The run's shared transport: limiter and counters. */
  transport: Transport;
  /** With `--redis`: the run lock store every machine of the tenant shares, and the tenant's hash. */
  shared?: { locks: RunLockStore; tenant: string };
  /** Without Redis: the folder of this machine's run locks (`--lock-dir`, CATALOG_IO_LOCK_DIR, `lockDir`). */
  lockDir: string;
  snapshot(): CountersSnapshot;
  /**
   * Requests per second the limit lets start over a long run (window margin included); none when
   * unlimited. Read again for each use: the limiter lowers its pace after 429s (src/api/limiter.ts).
   */
  readonly requestRate: number | undefined;
  close(): Promise<void>;
}

/** Where the catalog URL was not found in a config file, for the embedded sandbox's line. */
function configWords(resolved: ResolvedSettings): string {
  if (resolved.configFile) return `no catalogUrl in ${resolved.configFile}`;
  const search = resolved.configSearch;
  if (!search) return 'no config file read';
  const range =
    search.from === search.to ? search.from : `${search.from} or a folder above it up to ${search.to}`;
  return `no ${CONFIG_FILE_NAME} in ${range}`;
}

export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const cwd = options.cwd ?? process.cwd();
  const resolved: ResolvedSettings = resolveSettings({
    ...(options.flags ? { flags: options.flags } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.names ? { names: options.names } : {}),
    cwd,
  });
  // A library caller's settings pass the same checks as flags, environment and file.
  const settings: ConnectionSettings = options.settings
    ? withCallerSettings(resolved, options.settings, options.names)
    : resolved;
  // Checked before anything is started (the embedded sandbox, Redis) that a bad value would leave open.
  const timeScale = testTimeScale(options.env ?? process.env);

  let catalogUrl = settings.catalogUrl;
  let damUrl = settings.damUrl;
  let apiKey = settings.apiKey;
  let stopSandbox: (() => Promise<void>) | undefined;
  const embedded = catalogUrl === undefined;
  if (embedded) {
    // Loaded only when needed: a real tenant never starts the simulator.
    const starter = await import('../start-sandbox.js');
    const dataDir = path.join(cwd, '.catalog-io', 'sandbox');
    const sandbox = await startEmbedded(starter, dataDir, options.resetSandbox === true);
    catalogUrl = sandbox.catalogUrl;
    damUrl = sandbox.damUrl;
    apiKey = sandbox.apiKey;
    stopSandbox = () => sandbox.close();
    const state = path.relative(cwd, dataDir) || dataDir;
    options.announce?.(
      `Using the embedded sandbox tenant at ${sandbox.catalogUrl} (no CATALOG_URL set, no --catalog-url, ${configWords(resolved)}; state kept in ${state})`,
    );
    // A key set for a tenant that is not reached: the likely slip is a config file that was not found.
    if (resolved.apiKey !== undefined) {
      const from =
        resolved.sources.apiKey === 'env'
          ? 'CATALOG_API_KEY'
          : resolved.sources.apiKey === 'flag'
            ? '--api-key'
            : `apiKey in ${resolved.configFile}`;
      options.announce?.(
        `hint: an API key is set (${from}) but no catalog URL, so the key is not used: set CATALOG_URL, or catalogUrl in a ${CONFIG_FILE_NAME} in this folder or one above it`,
      );
    }
    if (sandbox.notice) options.announce?.(sandbox.notice);
  }
  if (catalogUrl === undefined || apiKey === undefined) {
    throw new CatalogIoError('CONFIG_MISSING', 'No catalog URL or API key configured');
  }

  // The embedded sandbox has no rate limit of its own: pacing it like the real service only slows a trial run.
  const rateLimit = settings.rateLimit !== undefined ? settings.rateLimit : embedded ? null : undefined;
  // --redis: the limit and the lock are shared with every process of the tenant (loaded only then).
  const shared = settings.redisUrl
    ? await (await import('../redis/shared.js'))
        .openSharedState({
          url: settings.redisUrl,
          tenant: tenantHash(catalogUrl, keyIdOf(apiKey)),
          rateLimit: rateLimit === undefined ? LIMIT_DEFAULTS.rateLimit : rateLimit,
          ...(settings.concurrency !== undefined && { concurrency: settings.concurrency }),
          ...(options.env && { env: options.env }),
        })
        .catch(async (err) => {
          await stopSandbox?.();
          throw err;
        })
    : undefined;
  const transport = new Transport({
    ...(settings.concurrency !== undefined ? { concurrency: settings.concurrency } : {}),
    ...(rateLimit !== undefined ? { rateLimit } : {}),
    ...(shared?.limiter && { limiter: shared.limiter }),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    outage: {
      ...(settings.outageBudgetMs !== undefined && { budgetMs: settings.outageBudgetMs }),
      probeBaseMs: OUTAGE_DEFAULTS.probeBaseMs * timeScale,
      probeMaxMs: OUTAGE_DEFAULTS.probeMaxMs * timeScale,
    },
    ...(options.onOutage && { onOutage: options.onOutage }),
    ...(options.onPace && { onPace: options.onPace }),
    retry: {
      ...(settings.maxAttempts !== undefined ? { maxAttempts: settings.maxAttempts } : {}),
      ...(settings.retryBudgetMs !== undefined ? { budgetMs: settings.retryBudgetMs } : {}),
      timeScale,
    },
  });
  const catalog = new CatalogClient(
    new ServiceHttp(transport, { service: 'Catalog API', baseUrl: catalogUrl, apiKey }),
  );
  const dam = damUrl
    ? new DamClient(new ServiceHttp(transport, { service: 'DAM API', baseUrl: damUrl, apiKey }))
    : undefined;

  const name = embedded ? 'sandbox' : tenantName(catalogUrl);
  const schemasDir = settings.schemasDir ? path.resolve(cwd, settings.schemasDir) : undefined;
  const models = new TenantModels({ client: catalog, schemasDir });
  const tenant: TenantInfo = {
    name,
    catalogUrl,
    damUrl,
    embedded,
    keyId: keyIdOf(apiKey),
    defaultSchemasDir: defaultSchemasDir(name, cwd),
    schemasDir,
    model: (scope) => models.model(scope),
  };

  let closed = false;
  return {
    catalog,
    get dam(): DamClient {
      if (!dam) {
        throw new CatalogIoError(
          'CONFIG_MISSING',
          `No DAM URL configured: ${settingPlaces('damUrl', options.names)}`,
        );
      }
      return dam;
    },
    tenant,
    transport,
    ...(shared && { shared: { locks: shared.locks, tenant: shared.tenant } }),
    lockDir: settings.lockDir ? path.resolve(cwd, settings.lockDir) : defaultLockDir(options.env),
    snapshot: () => transport.snapshot(),
    get requestRate(): number | undefined {
      // The pace now, as lowered after 429s; a library caller's limiter without one: the configured rate.
      return transport.limiter.requestRate
        ? transport.limiter.requestRate()
        : rateOf(rateLimit === undefined ? LIMIT_DEFAULTS.rateLimit : rateLimit);
    },
    async close() {
      if (closed) return;
      closed = true;
      await transport.close();
      await shared?.close();
      await stopSandbox?.();
    },
  };
}

/** The port the samples' asset URLs name (`http://127.0.0.1:4010/assets/...`). */
export const SANDBOX_PORT = 4010;

/**
 * The embedded sandbox listens on 4010 when it is free, so the asset URLs of the samples work as
 * written. When 4010 is taken (most likely by `catalog-io sandbox` itself), it takes any free port
 * and may fetch assets from 4010.
 */
async function startEmbedded(
  { startSandbox, isPortInUse }: typeof import('../start-sandbox.js'),
  dataDir: string,
  reset: boolean,
) {
  const options = { dataDir, ...(reset ? { reset: true } : {}) };
  try {
    return await startSandbox({ ...options, port: SANDBOX_PORT });
  } catch (err) {
    if (!isPortInUse(err)) throw err;
    return startSandbox({ ...options, port: 0, allowHosts: [`127.0.0.1:${SANDBOX_PORT}`] });
  }
}

/** Names an API key without giving it away (a short sha256 of it). */
function keyIdOf(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 12);
}

/** Requests per second a limit sustains: its requests over its window with the margin the limiter adds. */
function rateOf(limit: { requests: number; windowSeconds: number } | null): number | undefined {
  return limit === null ? undefined : (limit.requests * 1000) / windowWithMargin(limit);
}

/**
 * Tests only: `CATALOG_IO_TEST_TIME_SCALE` (0 < f <= 1) multiplies the client's waits (retry backoff,
 * the wait a Retry-After asks for, the pauses between outage probes), so a test runs a scenario of
 * retries and outages at its real shape in a fraction of the time. Budgets and timeouts are settings
 * and stay as given. Unset (users): 1.
 */
export function testTimeScale(env: NodeJS.ProcessEnv): number {
  const text = env.CATALOG_IO_TEST_TIME_SCALE;
  if (text === undefined || text.trim() === '') return 1;
  const scale = Number(text);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 1) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `CATALOG_IO_TEST_TIME_SCALE must be a number above 0 and at most 1, found ${text}`,
    );
  }
  return scale;
}
