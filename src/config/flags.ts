// The connection flags every command that talks to a tenant accepts, as yargs options, and the way
// from parsed argv to ConnectionFlags. Commands add them with `.options(connectionOptions)`.
import type { Options } from 'yargs';
import { CatalogIoError } from '../errors.js';
import type { ConnectionFlags } from './config.js';

export const connectionOptions = {
  'catalog-url': {
    type: 'string',
    describe: 'Catalog API base URL (env CATALOG_URL); none: the embedded sandbox',
  },
  'dam-url': { type: 'string', describe: 'DAM API base URL (env DAM_URL)' },
  'api-key': { type: 'string', describe: 'Tenant API key (env CATALOG_API_KEY; prefer the environment)' },
  config: { type: 'string', describe: 'Config file (default ./catalog-io.config.json when present)' },
  concurrency: { type: 'number', describe: 'Requests in flight at once (default 8)' },
  'rate-limit': { type: 'string', describe: 'Requests per window, REQUESTS/SECONDS or off (default 50/10)' },
  timeout: { type: 'number', describe: 'Wait for an answer, ms (default 60000)' },
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
} as const satisfies Record<string, Options>;

/** Picks the connection flags out of yargs' argv. */
export function connectionFlagsFrom(argv: Record<string, unknown>): ConnectionFlags {
  const flags: ConnectionFlags = {};
  const s = (key: string) => (typeof argv[key] === 'string' ? (argv[key] as string) : undefined);
  const n = (key: string) => {
    const v = argv[key];
    if (typeof v !== 'number') return undefined;
    // yargs turns `--concurrency abc` into NaN: refuse it rather than fall back to the default unseen.
    if (Number.isNaN(v)) throw new CatalogIoError('CONFIG_INVALID', `--${key} must be a number`);
    return v;
  };
  const catalogUrl = s('catalog-url');
  const damUrl = s('dam-url');
  const apiKey = s('api-key');
  const config = s('config');
  const concurrency = n('concurrency');
  const rateLimit = s('rate-limit');
  const timeout = n('timeout');
  const schemas = s('schemas');
  const redis = s('redis');
  if (catalogUrl !== undefined) flags.catalogUrl = catalogUrl;
  if (damUrl !== undefined) flags.damUrl = damUrl;
  if (apiKey !== undefined) flags.apiKey = apiKey;
  if (config !== undefined) flags.config = config;
  if (concurrency !== undefined) flags.concurrency = concurrency;
  if (rateLimit !== undefined) flags.rateLimit = rateLimit;
  if (timeout !== undefined) flags.timeout = timeout;
  if (schemas !== undefined) flags.schemas = schemas;
  if (redis !== undefined) flags.redis = redis;
  return flags;
}
