// A feed job: what `enqueue` and `schedule add` put on the queue and what a worker runs. It carries
// the command, the source and the command's flags, and a tenant NAME: never a key, a URL with a
// password, or a connection flag. Each worker maps the name to credentials from its own files.
import { CatalogIoError } from '../errors.js';

export interface FeedJob {
  command: 'import';
  source: string;
  /** The import's own flags, as given (`--profile`, `supplier.json`, `--report`, ...). */
  args: string[];
  /** A name in the workers' tenants folder: `<tenants>/<tenant>.json`. */
  tenant: string;
}

/** What a finished job keeps: the exit code of its run and its summary (the import's --json output). */
export interface FeedJobResult {
  exitCode: number;
  summary?: Record<string, unknown>;
  /** The run's last lines on stderr, for people. */
  log: string[];
}

/**
 * Flags a job may not carry: credentials, connections and what decides trust (the known hosts) or
 * exclusion (the lock folder) come from the worker's tenant file and environment.
 */
const REFUSED = ['api-key', 'catalog-url', 'dam-url', 'config', 'redis', 'known-hosts', 'lock-dir'];

const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkTenantName(name: string): string {
  if (!TENANT_NAME.test(name)) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `--tenant must be a name of letters, digits, dot, dash or underscore (it names <tenants>/<name>.json), found ${JSON.stringify(name)}`,
    );
  }
  return name;
}

export function checkFeedJob(job: FeedJob): FeedJob {
  if (job.command !== 'import') {
    throw new CatalogIoError('CONFIG_INVALID', `Jobs run imports only, found ${JSON.stringify(job.command)}`);
  }
  checkTenantName(job.tenant);
  if (/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(job.source)) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      'The source carries a password: jobs are stored in Redis, give it to the workers in their environment',
    );
  }
  for (const arg of job.args) {
    const name = /^--(?:no-)?([^=]+)/.exec(arg)?.[1];
    if (name && REFUSED.includes(name)) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--${name} cannot be part of a job: workers connect with their own settings for tenant ${job.tenant} (docs/scale.md)`,
      );
    }
  }
  return job;
}
