// Where commands get the tenant's model: live from `$metadata` (only the documents the command's
// entities need: live.ts), or offline from a cache folder that `catalog-io schema pull` wrote.
import type { CatalogClient } from '../api/catalog.js';
import { CatalogIoError } from '../errors.js';
import { buildTenantModel } from './build.js';
import { LiveSchemas, type ModelScope } from './live.js';
import type { TenantModel } from './model.js';
import { fetchRawSchemas, readSchemaCache, writeSchemaCache } from './raw.js';

export type { ModelScope } from './live.js';

export interface LoadModelOptions {
  /** Fetch live through this client (when no schemasDir is given). */
  client?: CatalogClient;
  /** Read the cached documents in this folder instead (offline). */
  schemasDir?: string;
  /** Live only: the entities the caller touches (default all); custom entities outside it are not read. */
  scope?: ModelScope;
}

export async function loadTenantModel(options: LoadModelOptions): Promise<TenantModel> {
  if (options.schemasDir) return buildTenantModel(await readSchemaCache(options.schemasDir));
  if (options.client)
    return buildTenantModel(await new LiveSchemas(options.client).raw(options.scope ?? 'all'));
  throw new CatalogIoError(
    'CONFIG_MISSING',
    'No schemas to read: connect to a catalog or give --schemas DIR',
  );
}

/**
 * One connection's models: each scope's model built once, each document fetched at most once across
 * scopes (an offline cache is read once).
 */
export class TenantModels {
  private readonly live: LiveSchemas | undefined;
  private offline: Promise<TenantModel> | undefined;
  private readonly built = new Map<string, Promise<TenantModel>>();

  constructor(private readonly options: { client: CatalogClient; schemasDir?: string | undefined }) {
    this.live = options.schemasDir ? undefined : new LiveSchemas(options.client);
  }

  model(scope: ModelScope = 'all'): Promise<TenantModel> {
    if (!this.live) {
      this.offline ??= loadTenantModel({ schemasDir: this.options.schemasDir! });
      return this.offline;
    }
    const key = scope === 'all' ? '*' : JSON.stringify([...scope].sort());
    // The whole model serves any narrower scope.
    let model = this.built.get(key) ?? this.built.get('*');
    if (!model) {
      const live = this.live;
      model = live.raw(scope).then(buildTenantModel);
      this.built.set(key, model);
    }
    return model;
  }
}

export interface PullResult {
  dir: string;
  files: string[];
  fetchedAt: string;
  model: TenantModel;
}

/** Fetches every `$metadata` document (the attribute sets' too) and writes them to `dir`. */
export async function pullSchemas(client: CatalogClient, dir: string): Promise<PullResult> {
  const raw = await fetchRawSchemas(client);
  const files = await writeSchemaCache(dir, raw);
  return { dir, files, fetchedAt: raw.fetchedAt, model: buildTenantModel(raw) };
}
