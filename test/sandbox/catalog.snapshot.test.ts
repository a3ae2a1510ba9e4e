// State survives a restart: snapshot() and restore() through the sandbox's persisted data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { call } from '../helpers/sandbox.js';

const dataDir = mkdtempSync(join(tmpdir(), 'catalog-snapshot-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('catalog snapshot and restore', () => {
  it('records, layouts, attribute sets, the changelog and id counters survive a restart', async () => {
    const first = await startSandbox({ port: 0, dataDir });
    const send = (method: string, path: string, body?: unknown) =>
      call(first.catalogUrl, path, { key: first.apiKey, method, body });
    const created = await send('POST', '/Products', {
      prod_ref: 'KEEP-ME',
      prod_title: { en: 'Kept', fr: 'Gardé' },
    });
    const id = Number(/\((\d+)\)$/.exec(created.headers.get('location')!)![1]);
    await send('PUT', '/Categories/layout', { sections: [{ title: 'Saved', rows: [] }] });
    await send('POST', '/v2/AttributeSets', { name: 'Persisted' });
    await first.close();

    const second = await startSandbox({ port: 0, dataDir });
    try {
      expect(second.restored).toBe(true);
      const get = (path: string, headers?: Record<string, string>) =>
        call(second.catalogUrl, path, { key: second.apiKey, headers });
      expect(
        (
          (await get(`/Products(${id})`, { 'accept-language': 'fr' })).body as {
            value: { prod_title: string };
          }
        ).value.prod_title,
      ).toBe('Gardé');
      expect((await get('/Categories/layout')).body).toEqual({ sections: [{ title: 'Saved', rows: [] }] });
      const sets = (await get('/v2/AttributeSets')).body as { value: Array<{ name: string }> };
      expect(sets.value.map((s) => s.name)).toContain('Persisted');
      const log = (await get(`/Products(${id})/Changelog`)).body as { '@count': number };
      expect(log['@count']).toBe(2);
      const next = await call(second.catalogUrl, '/Products', {
        key: second.apiKey,
        method: 'POST',
        body: { prod_ref: 'AFTER' },
      });
      expect(next.headers.get('location')).toMatch(new RegExp(`/Products\\(${id + 1}\\)$`));
      const dup = await call(second.catalogUrl, '/Products', {
        key: second.apiKey,
        method: 'POST',
        body: { prod_ref: 'KEEP-ME' },
      });
      expect(dup.status).toBe(400);
    } finally {
      await second.close();
    }
  });
});
