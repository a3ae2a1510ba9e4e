// The client methods the rest of the tool uses, end to end against the sandbox: create/patch/delete
// on standard and custom entities, cultures, changelogs, and the DAM's images.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, ge } from '../../src/api/filter.js';
import {
  type Clients,
  createClients,
  customEntityPath,
  isApiError,
  recordPath,
} from '../../src/api/index.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty', processingMs: 20 });
let clients: Clients;

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

beforeAll(() => {
  const sb = fixture.sb;
  clients = createClients({
    catalogUrl: sb.catalogUrl,
    damUrl: sb.damUrl,
    apiKey: sb.apiKey,
    rateLimit: null,
  });
});
afterAll(async () => {
  await clients?.transport.close();
});

describe('catalog records', () => {
  it('create reads the id from Location; cultures are written and read per request', async () => {
    const { catalog } = clients;
    const created = await catalog.create(
      '/Products',
      { prod_ref: 'CULT-1', prod_title: 'Chaise' },
      { culture: 'fr' },
    );
    expect(typeof created.id).toBe('number');
    expect(created.location).toContain(`Products(${created.id})`);
    const path = recordPath('/Products', created.id);
    await catalog.patch(path, { prod_title: { en: 'Chair', es: 'Silla' } });
    expect((await catalog.getEntity<{ prod_title: string }>(path, { culture: 'fr' })).prod_title).toBe(
      'Chaise',
    );
    expect((await catalog.getEntity<{ prod_title: string }>(path, { culture: 'es' })).prod_title).toBe(
      'Silla',
    );
    expect((await catalog.getEntity<{ prod_title: string }>(path)).prod_title).toBe('Chair');
  });

  it('a custom entity whose denominator holds a space: create, patch by item, delete', async () => {
    const { catalog } = clients;
    const model = await catalog.metadata('CustomEntities');
    const denominators = model.value['x-denominators'] as string[];
    const denominator = denominators.find((d) => d.includes(' ')) ?? denominators[0]!;
    const collection = customEntityPath(denominator);
    const schema = (await catalog.metadata({ custom: denominator })).value;
    const refField = schema['x-reference'] as string;
    // A plain writable text field of this entity, read from its schema.
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    const textField = Object.keys(properties).find((name) => {
      const p = properties[name]!;
      return (
        name !== refField &&
        p.type === 'string' &&
        !p.readOnly &&
        !p.format &&
        !p['x-asset'] &&
        !p['x-multilingual']
      );
    })!;
    const created = await catalog.create(collection, { [refField]: 'CE-1' });
    const item = recordPath(collection, created.id);
    expect(item).toBe(`${collection}/item(${created.id})`);
    await catalog.patch(item, { [textField]: 'Lyon' });
    const found = await collect(
      catalog.list<Record<string, unknown>>(collection, { query: { $filter: eq(refField, 'CE-1') } }),
    );
    expect(found).toHaveLength(1);
    expect(found[0]![textField]).toBe('Lyon');
    expect(await catalog.delete(item)).toEqual({ alreadyGone: false });
    expect(
      await collect(catalog.list(collection, { query: { $filter: eq(refField, 'CE-1') } })),
    ).toHaveLength(0);
  });

  it('reads changelogs of one record and of a collection, oldest first', async () => {
    const { catalog } = clients;
    const since = new Date(Date.now() - 1000);
    const created = await catalog.create('/Products', { prod_ref: 'LOG-1', prod_title: 'v1' });
    const path = recordPath('/Products', created.id);
    await catalog.patch(path, { prod_title: 'v2' });
    await catalog.patch(path, { prod_title: 'v3' });
    const entries = await collect(
      catalog.changelog<{ id: number; item_id: number; attribute_id: string }>(path),
    );
    expect(entries.length).toBeGreaterThanOrEqual(3);
    for (const e of entries) expect(e.item_id).toBe(created.id);
    const ids = entries.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const recent = await collect(
      catalog.changelog<{ item_id: number }>('/Products', { filter: ge('modified_at', since), pageSize: 2 }),
    );
    expect(recent.some((e) => e.item_id === created.id)).toBe(true);
  });

  it('a missing record is API_NOT_FOUND naming the path', async () => {
    const err = await clients.catalog.getEntity('/Products(999999)').catch((e: unknown) => e);
    expect(isApiError(err, 'API_NOT_FOUND')).toBe(true);
    expect((err as Error).message).toContain('/Products(999999)');
  });
});

describe('DAM images', () => {
  it('register, wait for processing, patch tags, find by reference, delete', async () => {
    const dam = clients.dam!;
    const sb = fixture.sb;
    const registered = await dam.registerImage(`${sb.assetsUrl}/chair-front.jpg`, ['chairs', 'front']);
    expect(registered.reference).toBe('chair-front.jpg');
    const processed = await dam.waitForImage(registered.reference, { intervalMs: 20, timeoutMs: 10_000 });
    expect(processed.status).toBe('Ok');
    expect(processed.width).toBeGreaterThan(0);
    await dam.patchImage(registered.reference, { tags: ['chairs'] });
    expect((await dam.getImage(registered.reference)).tags).toEqual(['chairs']);
    const found = await collect(dam.existing('image', ['chair-front.jpg', 'missing.jpg']));
    expect(found.map((i) => i.reference)).toEqual(['chair-front.jpg']);
    expect(await dam.deleteImage(registered.reference)).toEqual({ alreadyGone: false });
    const err = await dam.getImage(registered.reference).catch((e: unknown) => e);
    expect(isApiError(err, 'API_NOT_FOUND')).toBe(true);
  });

  it('registering the same reference twice is API_CONFLICT, not ambiguous', async () => {
    const dam = clients.dam!;
    const url = `${fixture.sb.assetsUrl}/twice.png`;
    await dam.registerImage(url);
    const err = await dam.registerImage(url).catch((e: unknown) => e);
    expect(isApiError(err, 'API_CONFLICT')).toBe(true);
    expect((err as { ambiguous: boolean }).ambiguous).toBe(false);
  });

  it('a body the DAM refuses is API_VALIDATION with its messages as failures', async () => {
    const err = await clients.dam!.registerImage('ftp://example.invalid/a.jpg').catch((e: unknown) => e);
    expect(isApiError(err, 'API_VALIDATION')).toBe(true);
    expect((err as { failures: Array<{ message: string }> }).failures[0]!.message).toBe(
      'URL must use HTTP or HTTPS protocol',
    );
  });
});
