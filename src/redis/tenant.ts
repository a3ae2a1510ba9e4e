// The name of a tenant in shared places (Redis keys, lock scopes, summaries): a hash of the catalog
// URL and a fingerprint of the key. The key itself is never stored or sent anywhere but the service.
import { createHash } from 'node:crypto';

/** A fingerprint of an API key: tells keys apart, cannot be turned back into one. */
export function keyId(apiKey: string): string {
  return createHash('sha256').update(`catalog-io key\n${apiKey}`).digest('hex').slice(0, 12);
}

export function tenantHash(catalogUrl: string, apiKeyId: string): string {
  return createHash('sha256').update(`${catalogUrl}\n${apiKeyId}`).digest('hex').slice(0, 16);
}
