// Where commands get the tenant's model: live from `$metadata`, or offline from a cache folder that
// `catalog-io schema pull` wrote.
import type { CatalogClient } from '../api/catalog.js';
import { CatalogIoError } from '../errors.js';
import { buildTenantModel } from './build.js';
import type { TenantModel } from './model.js';
import { fetchRawSchemas, readSchemaCache, writeSchemaCache } from './raw.js';

export interface LoadModelOptions {
  /** Fetch live through this client (when no schemasDir is given). */
  client?: CatalogClient;
  /** Read the cached documents in this folder instead (offline). */
  schemasDir?: string;
}

export async function loadTenantModel(options: LoadModelOptions): Promise<TenantModel> {
  if (options.schemasDir) return buildTenantModel(await readSchemaCache(options.schemasDir));
  if (options.client) return buildTenantModel(await fetchRawSchemas(options.client));
  throw new CatalogIoError(
    'CONFIG_MISSING',
    'No schemas to read: connect to a catalog or give --schemas DIR',
  );
}

export interface PullResult {
  dir: string;
  files: string[];
  fetchedAt: string;
  model: TenantModel;
}

/** Fetches every `$metadata` document and writes them to `dir`. */
export async function pullSchemas(client: CatalogClient, dir: string): Promise<PullResult> {
  const raw = await fetchRawSchemas(client);
  const files = await writeSchemaCache(dir, raw);
  return { dir, files, fetchedAt: raw.fetchedAt, model: buildTenantModel(raw) };
}
