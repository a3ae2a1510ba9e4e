// The TenantModel built from the sandbox's live $metadata, and the same model from the on-disk cache.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Clients, createClients } from '../../src/api/index.js';
import { isCatalogIoError } from '../../src/errors.js';
import { buildTenantModel } from '../../src/schema/build.js';
import { loadTenantModel, pullSchemas } from '../../src/schema/load.js';
import type { TenantModel } from '../../src/schema/model.js';
import { fetchRawSchemas, readSchemaCache } from '../../src/schema/raw.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let clients: Clients;
let model: TenantModel;
let dir: string;

beforeAll(async () => {
  const sb = fixture.sb;
  clients = createClients({
    catalogUrl: sb.catalogUrl,
    damUrl: sb.damUrl,
    apiKey: sb.apiKey,
    rateLimit: null,
  });
  model = await loadTenantModel({ client: clients.catalog });
  dir = await mkdtemp(path.join(tmpdir(), 'catalog-io-schemas-'));
});
afterAll(async () => {
  await clients?.transport.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('model from live $metadata', () => {
  it('lists the tenant languages, base first', () => {
    expect(model.languages).toEqual(['en', 'fr', 'es']);
    expect(model.baseLanguage).toBe('en');
    expect(Date.parse(model.fetchedAt)).not.toBeNaN();
  });

  it('has the standard entities with their id and ref fields', () => {
    const names = model.entities.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['products', 'variants', 'categories']));
    const products = model.entity('products')!;
    expect(products).toMatchObject({
      kind: 'products',
      path: '/Products',
      idField: 'prod_id',
      refField: 'prod_ref',
    });
    expect(model.entity('variants')).toMatchObject({ idField: 'frmt_id', refField: 'frmt_ref' });
    expect(model.entity('Categories')).toMatchObject({ idField: 'cat_id', refField: 'cat_ref' });
  });

  it('reads every field property the schema states', () => {
    const p = model.entity('products')!;
    expect(p.field('prod_id')).toMatchObject({ type: 'integer', readOnly: true });
    expect(p.field('prod_ref')).toMatchObject({
      type: 'string',
      immutable: true,
      required: true,
      readOnly: false,
    });
    expect(p.field('prod_title')).toMatchObject({
      type: 'string',
      multilingual: true,
      multiple: false,
      maxLength: 255,
    });
    expect(p.field('prod_title')!.languages).toBeUndefined();
    expect(p.field('prod_tags')).toMatchObject({ type: 'string', multiple: true, multilingual: false });
    expect(p.field('prod_images')).toMatchObject({ asset: 'image', multiple: true, multilingual: true });
    expect(p.field('cat_ids')).toMatchObject({ type: 'integer', multiple: true, references: 'Categories' });
    expect(p.field('prod_date')).toMatchObject({ type: 'date-time', format: 'date-time' });
    expect(p.field('prod_manual')).toMatchObject({ asset: 'file' });
    expect(p.fields[0]!.name).toBe('prod_id');
    // A multilingual field with fewer cultures than the tenant names its own.
    expect(model.entity('variants')!.field('frmt_color')).toMatchObject({
      multilingual: true,
      languages: ['en', 'fr'],
    });
  });

  it('has each custom entity, addressed by its denominator exactly', () => {
    const stores = model.entity('Store Locations')!;
    expect(stores).toMatchObject({
      name: 'custom:Store Locations',
      kind: 'custom',
      denominator: 'Store Locations',
      path: "/CustomEntities('Store Locations')",
      idField: 'ce_id',
      refField: 'ce_ref',
    });
    expect(model.entity('custom:Store Locations')).toBe(stores);
    expect(stores.field('ce_name')).toMatchObject({ multilingual: true });
    expect(model.entity('nothing-like-this')).toBeUndefined();
  });
});

describe('schema cache', () => {
  it('pull writes every document; the model read back offline is the same', async () => {
    const result = await pullSchemas(clients.catalog, dir);
    expect(result.files).toEqual(
      expect.arrayContaining(['index.json', 'catalog.json', 'Products.json', 'CustomEntities.json']),
    );
    const offline = await loadTenantModel({ schemasDir: dir });
    expect(offline.fetchedAt).toBe(result.fetchedAt);
    expect(offline.languages).toEqual(model.languages);
    expect(offline.entities.map((e) => e.name)).toEqual(model.entities.map((e) => e.name));
    for (const e of model.entities) expect(offline.entity(e.name)!.fields).toEqual(e.fields);
    const raw = await readSchemaCache(dir);
    expect(raw.source).toBe(fixture.sb.catalogUrl);
    expect(Object.keys(raw.custom)).toContain('Store Locations');
  });

  it('a missing cache is SCHEMA_UNAVAILABLE with a hint', async () => {
    let caught: unknown;
    try {
      await loadTenantModel({ schemasDir: path.join(dir, 'nope') });
    } catch (err) {
      caught = err;
    }
    expect(isCatalogIoError(caught, 'SCHEMA_UNAVAILABLE')).toBe(true);
    expect((caught as Error).message).toContain('schema pull');
  });

  it('builds the same model from the raw documents without per-resource endpoints ($defs only)', async () => {
    const raw = await fetchRawSchemas(clients.catalog);
    const fromDefs = buildTenantModel({ ...raw, resources: {}, custom: {} });
    for (const e of model.entities) expect(fromDefs.entity(e.name)!.fields).toEqual(e.fields);
  });
});
