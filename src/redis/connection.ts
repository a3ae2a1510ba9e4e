// Connecting to Redis (ioredis) for the shared rate limit, the run lock and the job queue. One place
// that reads the URL, says clearly when Redis cannot be reached, and never shows its password.
import { Redis, type RedisOptions } from 'ioredis';
import { CatalogIoError } from '../errors.js';
import { redactRedisUrl } from './url.js';

export { KEY_PREFIX } from './url.js';

/**
 * A connected client, or REDIS_UNREACHABLE naming the server. `forQueue`: BullMQ wants commands
 * to wait for a reconnect instead of failing after a few retries.
 */
export async function connectRedis(url: string, options: { forQueue?: boolean } = {}): Promise<Redis> {
  const settings: RedisOptions = {
    lazyConnect: true,
    connectTimeout: 5000,
    ...(options.forQueue ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 3 }),
  };
  const client = new Redis(url, settings);
  // Errors after the connection are told by the commands that fail; a listener keeps them off stderr.
  // The last one says why a connection failed (connect() itself may only say `Connection is closed.`).
  let last: unknown;
  client.on('error', (err) => {
    last = err;
  });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    const why = (e: unknown) => (e as { code?: string }).code ?? (e as Error).message;
    throw new CatalogIoError(
      'REDIS_UNREACHABLE',
      `Cannot reach Redis at ${redactRedisUrl(url)}: ${last ? why(last) : why(err)}`,
    );
  }
  return client;
}
