// The API layer's public face: build both clients over one shared Transport (connections, limiter,
// counters, retry policy) for a run.
import { CatalogClient } from './catalog.js';
import { DamClient } from './dam.js';
import { ServiceHttp } from './service-http.js';
import { Transport, type TransportOptions } from './transport.js';

export { CatalogClient, type Created, idFromLocation, type MetadataDocument, recordPath } from './catalog.js';
export type { CountersSnapshot } from './counters.js';
export { type AssetKind, DamClient, type FileRecord, type ImageRecord, type Registered } from './dam.js';
export { ApiError, type ApiFailure, isApiError } from './errors.js';
export * as filter from './filter.js';
export { LIMIT_DEFAULTS, type RateLimit } from './limiter.js';
export type { PaceNotice, PaceSummary } from './pace.js';
export { MAX_PAGE_SIZE, type PageOptions, type PagingMode } from './paging.js';
export { RETRY_DEFAULTS, type RetryPolicy } from './retry.js';
export { Transport, type TransportOptions } from './transport.js';
export { customEntityPath } from './url.js';

export interface ClientOptions extends TransportOptions {
  catalogUrl: string;
  /** Optional: commands that never touch assets can run without it. */
  damUrl?: string;
  apiKey: string;
  /** An existing run transport to share (both clients always share one). */
  transport?: Transport;
}

export interface Clients {
  catalog: CatalogClient;
  dam: DamClient | undefined;
  transport: Transport;
}

export function createClients(options: ClientOptions): Clients {
  const transport = options.transport ?? new Transport(options);
  const catalog = new CatalogClient(
    new ServiceHttp(transport, {
      service: 'Catalog API',
      baseUrl: options.catalogUrl,
      apiKey: options.apiKey,
    }),
  );
  const dam = options.damUrl
    ? new DamClient(
        new ServiceHttp(transport, { service: 'DAM API', baseUrl: options.damUrl, apiKey: options.apiKey }),
      )
    : undefined;
  return { catalog, dam, transport };
}
