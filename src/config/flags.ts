// The connection flags every command that talks to a tenant accepts, as yargs options, and the way
// from parsed argv to ConnectionFlags. Commands add them with `.options(connectionOptions)`.
// Numeric flags are read as text and checked here (yargs would turn `abc` into NaN and `-5/10`
// into short flags): a wrong value is a CONFIG_INVALID that says what the format is.
import type { Options } from 'yargs';
import type { ConnectionFlags } from './config.js';
import { NUMBER_SETTINGS, type NumberRule, type NumberSetting, parseNumberText } from './numbers.js';

/**
 * A yargs option for a numeric flag, for every command: read as text, so `abc`, `0x10`, `-5/10` or
 * a missing value are a CONFIG_INVALID naming the flag, what was found and the expected format.
 */
export function numberFlag(name: string, rule: NumberRule, describe: string) {
  return {
    type: 'string',
    requiresArg: true,
    describe,
    coerce: (raw: unknown) => parseNumberText(rule, `--${name}`, raw),
  } as const;
}

function numberOption(key: NumberSetting, flag: string, describe: string) {
  return numberFlag(flag.replace(/^--/, ''), NUMBER_SETTINGS[key], describe);
}

export const connectionOptions = {
  'catalog-url': {
    type: 'string',
    describe: 'Catalog API base URL (env CATALOG_URL); none: the embedded sandbox',
  },
  'dam-url': { type: 'string', describe: 'DAM API base URL (env DAM_URL)' },
  'api-key': { type: 'string', describe: 'Tenant API key (env CATALOG_API_KEY; prefer the environment)' },
  config: { type: 'string', describe: 'Config file (default ./catalog-io.config.json when present)' },
  concurrency: numberOption('concurrency', '--concurrency', 'Requests in flight at once, 1-64 (default 8)'),
  'rate-limit': {
    type: 'string',
    requiresArg: true,
    describe: 'Requests per window, REQUESTS/SECONDS or off (default 50/10)',
  },
  timeout: numberOption(
    'timeoutMs',
    '--timeout',
    'Time for one try of a request, headers and whole body: ms, or 30s, 2m (default 30s)',
  ),
  'retry-budget': numberOption(
    'retryBudgetMs',
    '--retry-budget',
    'Time for one request, all its tries and waits: ms, or 2m (default 2m); a storm of 429s is waited out within it',
  ),
  'outage-budget': numberOption(
    'outageBudgetMs',
    '--outage-budget',
    'Time the run waits for a service that cannot be reached, then stops as resumable: ms, or 10m, 1h (default 10m)',
  ),
  schemas: {
    type: 'string',
    describe: 'Read tenant schemas from this cache folder (offline) instead of $metadata',
  },
} as const satisfies Record<string, Options>;

/** The flag of commands whose rate limit and run lock can be shared through Redis (import, export). */
export const sharedStateOptions = {
  redis: {
    type: 'string',
    describe:
      'Share the rate limit and run lock with every process of this tenant through Redis (env CATALOG_IO_REDIS)',
  },
  'lock-dir': {
    type: 'string',
    describe:
      "Folder of this machine's run locks, without --redis (env CATALOG_IO_LOCK_DIR; default ~/.local/state/catalog-io/locks)",
  },
} as const satisfies Record<string, Options>;

/** Picks the connection flags out of yargs' argv (numbers already checked by their `coerce`). */
export function connectionFlagsFrom(argv: Record<string, unknown>): ConnectionFlags {
  const flags: ConnectionFlags = {};
  const s = (key: string) => (typeof argv[key] === 'string' ? (argv[key] as string) : undefined);
  const n = (key: string) => (typeof argv[key] === 'number' ? (argv[key] as number) : undefined);
  const catalogUrl = s('catalog-url');
  const damUrl = s('dam-url');
  const apiKey = s('api-key');
  const config = s('config');
  const concurrency = n('concurrency');
  const rateLimit = s('rate-limit');
  const timeout = n('timeout');
  const retryBudget = n('retry-budget');
  const outageBudget = n('outage-budget');
  const schemas = s('schemas');
  const redis = s('redis');
  const lockDir = s('lock-dir');
  if (catalogUrl !== undefined) flags.catalogUrl = catalogUrl;
  if (damUrl !== undefined) flags.damUrl = damUrl;
  if (apiKey !== undefined) flags.apiKey = apiKey;
  if (config !== undefined) flags.config = config;
  if (concurrency !== undefined) flags.concurrency = concurrency;
  if (rateLimit !== undefined) flags.rateLimit = rateLimit;
  if (timeout !== undefined) flags.timeout = timeout;
  if (retryBudget !== undefined) flags.retryBudget = retryBudget;
  if (outageBudget !== undefined) flags.outageBudget = outageBudget;
  if (schemas !== undefined) flags.schemas = schemas;
  if (redis !== undefined) flags.redis = redis;
  if (lockDir !== undefined) flags.lockDir = lockDir;
  return flags;
}
