// The raw `$metadata` documents of a tenant: fetched live, or written to and read from a cache folder
// so later commands can work offline (`--schemas DIR`).
//
// Cache layout (one JSON file per document, as the service sent it):
//   index.json            { format, fetchedAt, source, files: { catalog, Products, ..., custom: {<denominator>: file} } }
//   catalog.json          GET /$metadata
//   Products.json, Variants.json, Categories.json, AttributeSets.json, CustomEntities.json
//   custom-<n>-<name>.json  GET /CustomEntities('<denominator>')/$metadata
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CatalogClient, MetadataDocument } from '../api/catalog.js';
import { isApiError } from '../api/errors.js';
import { CatalogIoError } from '../errors.js';
import { jsonText, replaceFile } from '../replace-file.js';

export type StandardCollection = 'Products' | 'Variants' | 'Categories' | 'AttributeSets';
const STANDARD: StandardCollection[] = ['Products', 'Variants', 'Categories', 'AttributeSets'];

export interface RawSchemas {
  /** When the documents were fetched (ISO). */
  fetchedAt: string;
  /** The catalog URL they came from (never a key). */
  source: string;
  /** `GET /$metadata`. */
  catalog: MetadataDocument | undefined;
  resources: Partial<Record<StandardCollection, MetadataDocument>>;
  /** `GET /CustomEntities/$metadata`. */
  customEntities: MetadataDocument | undefined;
  /** Denominator -> `GET /CustomEntities('<denominator>')/$metadata`. */
  custom: Record<string, MetadataDocument>;
}

/**
 * Fetches every document, for `schema pull` to write them all (a command reads only those its model
 * needs: live.ts). `/$metadata` must answer; a per-resource or custom-entity document a tenant does
 * not serve (404) is skipped, since `/$metadata` holds the same resources under `$defs`.
 */
export async function fetchRawSchemas(
  client: CatalogClient,
  now: () => Date = () => new Date(),
): Promise<RawSchemas> {
  const fetchedAt = now().toISOString();
  const catalog = await client.metadata('catalog');
  const [customEntities, ...standard] = await Promise.all([
    optional(() => client.metadata('CustomEntities')),
    ...STANDARD.map((name) => optional(() => client.metadata(name))),
  ]);
  const resources: RawSchemas['resources'] = {};
  for (const [i, name] of STANDARD.entries()) {
    const doc = standard[i];
    if (doc) resources[name] = doc;
  }
  const custom: Record<string, MetadataDocument> = {};
  for (const denominator of denominatorsOf(customEntities)) {
    const doc = await optional(() => client.metadata({ custom: denominator }));
    if (doc) custom[denominator] = doc;
  }
  return { fetchedAt, source: client.baseUrl, catalog, resources, customEntities, custom };
}

/** A document the tenant does not serve (404) is left out: the model falls back to `$defs`. */
export async function optional(run: () => Promise<MetadataDocument>): Promise<MetadataDocument | undefined> {
  try {
    return await run();
  } catch (err) {
    if (isApiError(err, 'API_NOT_FOUND')) return undefined;
    throw err;
  }
}

/** Denominators exactly as the tenant lists them: `x-denominators`, else the `$defs` names. */
export function denominatorsOf(doc: MetadataDocument | undefined): string[] {
  const value = doc?.value ?? {};
  const listed = value['x-denominators'];
  if (Array.isArray(listed)) return listed.filter((d): d is string => typeof d === 'string');
  const defs = value.$defs;
  return defs && typeof defs === 'object' ? Object.keys(defs) : [];
}

interface CacheIndex {
  format: 'catalog-io.schemas/1';
  fetchedAt: string;
  source: string;
  files: {
    catalog?: string;
    resources: Partial<Record<StandardCollection, string>>;
    customEntities?: string;
    custom: Record<string, string>;
  };
}

/** Writes the documents to `dir` (created if needed); the index is written last, so a half-written cache is never read. */
export async function writeSchemaCache(dir: string, raw: RawSchemas): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  const put = async (file: string, doc: MetadataDocument): Promise<string> => {
    await writeJson(path.join(dir, file), doc);
    written.push(file);
    return file;
  };
  const index: CacheIndex = {
    format: 'catalog-io.schemas/1',
    fetchedAt: raw.fetchedAt,
    source: raw.source,
    files: { resources: {}, custom: {} },
  };
  if (raw.catalog) index.files.catalog = await put('catalog.json', raw.catalog);
  for (const name of STANDARD) {
    const doc = raw.resources[name];
    if (doc) index.files.resources[name] = await put(`${name}.json`, doc);
  }
  if (raw.customEntities) index.files.customEntities = await put('CustomEntities.json', raw.customEntities);
  let n = 0;
  for (const [denominator, doc] of Object.entries(raw.custom)) {
    n += 1;
    index.files.custom[denominator] = await put(`custom-${n}-${safeName(denominator)}.json`, doc);
  }
  await writeJson(path.join(dir, 'index.json'), index);
  written.push('index.json');
  return written;
}

export async function readSchemaCache(dir: string): Promise<RawSchemas> {
  const index = await readJson<CacheIndex>(
    dir,
    'index.json',
    'run `catalog-io schema pull` first, or point --schemas at its folder',
  );
  if (index.format !== 'catalog-io.schemas/1' || !index.files) {
    throw new CatalogIoError(
      'SCHEMA_UNAVAILABLE',
      `Not a schema cache written by catalog-io: ${path.join(dir, 'index.json')}`,
    );
  }
  const load = (file: string | undefined) =>
    file === undefined
      ? Promise.resolve(undefined)
      : readJson<MetadataDocument>(dir, file, 'the cache is incomplete: pull it again');
  const resources: RawSchemas['resources'] = {};
  for (const name of STANDARD) {
    const doc = await load(index.files.resources?.[name]);
    if (doc) resources[name] = doc;
  }
  const custom: Record<string, MetadataDocument> = {};
  for (const [denominator, file] of Object.entries(index.files.custom ?? {})) {
    const doc = await load(file);
    if (doc) custom[denominator] = doc;
  }
  return {
    fetchedAt: index.fetchedAt,
    source: index.source,
    catalog: await load(index.files.catalog),
    resources,
    customEntities: await load(index.files.customEntities),
    custom,
  };
}

/** A filesystem-safe name: letters, digits, `.`, `-`, `_`; anything else becomes `_`. */
export function safeName(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+|_+$/g, '');
  return (cleaned || 'tenant').slice(0, 120);
}

/** The tenant's cache name from its catalog URL: host, port and path (`api.example.com_tenant42_catalog`). */
export function tenantName(catalogUrl: string): string {
  const url = new URL(catalogUrl);
  return safeName(`${url.host}${url.pathname}`.replace(/[:/]+/g, '_'));
}

/** Default cache folder of a tenant: `.catalog-io/schemas/<tenant>/` below `cwd`. */
export function defaultSchemasDir(tenant: string, cwd: string = process.cwd()): string {
  return path.join(cwd, '.catalog-io', 'schemas', tenant);
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await replaceFile(file, jsonText(value));
}

async function readJson<T>(dir: string, file: string, hint: string): Promise<T> {
  const full = path.join(dir, file);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CatalogIoError(
      'SCHEMA_UNAVAILABLE',
      `No cached schema at ${full} (${code === 'ENOENT' ? 'not found' : (code ?? 'unreadable')}): ${hint}`,
    );
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CatalogIoError(
      'SCHEMA_UNAVAILABLE',
      `The cached schema ${full} is not valid JSON: pull it again`,
    );
  }
}
