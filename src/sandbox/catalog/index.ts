// The sandbox's Catalog API: createCatalogService() for the server, seedBulkProducts() for tests
// and benchmarks that need a large tenant without going through HTTP.
import type { AssetDirectory, ServiceContext } from '../context.js';
import type { SandboxService } from '../http.js';
import type { BulkOptions } from '../seed/bulk.js';
import { seedDemo, seedEmpty } from '../seed/demo.js';
import { CatalogService } from './service.js';

export type { BulkOptions } from '../seed/bulk.js';
export { CatalogService } from './service.js';

export function createCatalogService(ctx: ServiceContext, assets: AssetDirectory): CatalogService {
  const service = new CatalogService(ctx, assets);
  const store = service.store;
  // Seeded now; restore() replaces all of it when a snapshot exists.
  store.trustingAssets(() => (ctx.options.seed === 'empty' ? seedEmpty(store) : seedDemo(store)));
  return service;
}

/** Adds `n` products (and optionally variants) straight into the store; returns their id range. */
export function seedBulkProducts(
  service: SandboxService,
  n: number,
  options: BulkOptions = {},
): { firstId: number; lastId: number } {
  if (!(service instanceof CatalogService))
    throw new TypeError('seedBulkProducts needs the catalog service of a sandbox');
  return service.addBulkProducts(n, options);
}
