// The import state (`.catalog-io/state/<tenant>/<entity>.state`): a re-import of an unchanged feed
// costs only the changelog and a count, an edit made on the tenant between two runs is seen in the
// changelog and corrected, a record deleted on the tenant is noticed by the count, and any doubt
// (--full-compare, another profile) means lookups. Real HTTP to a sandbox throughout.

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFile } from '../../src/runner/import/run.js';
import { readTableHeader } from '../../src/runs/state-store.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { byRef, connectTo, resetStats, stats, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });

/** An import whose requests the sandbox counts from after the model is read (the CLI can cache it). */
async function importWith(
  sb: SandboxHandle,
  source: string,
  options: { stateDir: string; tenant: string; fullCompare?: boolean },
) {
  const connection = await connectTo(sb);
  try {
    const model = await connection.tenant.model();
    await resetStats(sb);
    return await importFile({
      source,
      profile: { entity: 'products' },
      model,
      catalog: connection.catalog,
      dam: () => connection.dam,
      concurrency: 8,
      ...options,
    });
  } finally {
    await connection.close();
  }
}

/** 250 products in 3 languages: three lookups per 100 refs when they are compared. */
function feed(prefix: string, title = (i: number) => `Lamp ${i}`): string {
  const lines = ['prod_ref,prod_title,prod_title_fr,prod_title_es,prod_weight'];
  for (let i = 0; i < 250; i++) lines.push(`${prefix}-${i},${title(i)},Lampe ${i},Lámpara ${i},${i % 7}`);
  return `${lines.join('\n')}\n`;
}

describe('import state: unchanged rows cost nothing', () => {
  it('re-imports an unchanged feed with the changelog and a count only, and corrects a tenant-side edit', async () => {
    const { sb } = fixture;
    const dir = tempDir('import-state');
    const stateDir = join(dir, '.catalog-io');
    const source = await writeFeed(dir, 'feed.csv', feed('ST'));
    const run = (extra: { fullCompare?: boolean } = {}) =>
      importWith(sb, source, { stateDir, tenant: 'tenant-a', ...extra });

    // 1: creates. 2: the state cannot vouch for what run 1 wrote (its own writes are in the
    // changelog): lookups, 3 per 100 refs. 3: nothing changed since run 2: no lookup at all.
    expect((await run()).outcomes.created).toBe(250);
    expect((await run()).outcomes.unchanged).toBe(250);
    const compared = await stats(sb);
    expect(compared.byMethod.GET).toBeGreaterThanOrEqual(9);
    const free = await run();
    expect(free.outcomes.unchanged).toBe(250);
    const cheap = await stats(sb);
    expect(cheap.total).toBeLessThanOrEqual(5);
    expect(cheap.byMethod.POST ?? 0).toBe(0);

    // Someone edits one record on the tenant: the changelog shows it, the row is looked up and put back.
    const records = await byRef(sb, '/Products', 'prod_ref');
    const edited = records.get('ST-17')!;
    const patch = await call(sb.catalogUrl, `/Products(${edited.prod_id})`, {
      method: 'PATCH',
      key: sb.apiKey,
      body: { prod_title: 'Edited on the tenant' },
    });
    expect(patch.status).toBe(204);
    const corrected = await run();
    expect(corrected.outcomes.updated).toBe(1);
    expect(corrected.outcomes.unchanged).toBe(249);
    const afterEdit = await stats(sb);
    expect(afterEdit.byMethod.PATCH).toBe(1);
    // The edited record's lookups (one per language), not the whole feed's.
    expect(afterEdit.total).toBeLessThanOrEqual(5 + 3 + 1);
    expect((await byRef(sb, '/Products', 'prod_ref')).get('ST-17')!.prod_title).toBe('Lamp 17');

    // --full-compare ignores the state: every row is looked up again.
    expect((await run({ fullCompare: true })).outcomes.unchanged).toBe(250);
    expect((await stats(sb)).byMethod.GET).toBeGreaterThanOrEqual(9);
  });

  it('a tenant reset (or restored) since the last run: the state is not trusted, every record is written again', async () => {
    const dir = tempDir('import-state-reset');
    const stateDir = join(dir, '.catalog-io');
    // 300 records: their lookups (3) cost more than the state's check, their writes are few enough for
    // the changelog to be read.
    const rows = ['prod_ref,prod_title'];
    for (let i = 0; i < 300; i++) rows.push(`RS-${i},Reset ${i}`);
    const source = await writeFeed(dir, 'feed.csv', `${rows.join('\n')}\n`);
    // The same tenant (one address) before and after a reset: a sandbox started again, empty.
    const port = await freePort();
    const tenant = 'tenant-reset';
    const before = await startSandbox({ port, seed: 'empty' });
    try {
      expect((await importWith(before, source, { stateDir, tenant })).outcomes.created).toBe(300);
    } finally {
      await before.close();
    }
    // The last run found the tenant empty and created 300: after the reset the count (0) and the
    // changelog since (nothing) alone would match, yet the changelog lacks the run's own writes.
    const after = await startSandbox({ port, seed: 'empty' });
    try {
      const again = await importWith(after, source, { stateDir, tenant });
      expect(again.outcomes).toMatchObject({ created: 300, unchanged: 0 });
      // Said, so that the night's lookups are explained.
      expect(again.notes).toContain(
        "products: the import state from the last run was not used (the tenant's changelog no longer holds the last run's writes: it was reset or restored since): every row is looked up",
      );
      expect((await byRef(after, '/Products', 'prod_ref')).size).toBe(300);
    } finally {
      await after.close();
    }
  });

  it('notices a record deleted on the tenant (the changelog never shows deletions) and creates it again', async () => {
    const { sb } = fixture;
    const dir = tempDir('import-state-del');
    const stateDir = join(dir, '.catalog-io');
    const source = await writeFeed(dir, 'feed.csv', feed('DL'));
    const run = () => importWith(sb, source, { stateDir, tenant: 'tenant-b' });
    await run();
    await run();
    const gone = (await byRef(sb, '/Products', 'prod_ref')).get('DL-3')!;
    const del = await call(sb.catalogUrl, `/Products(${gone.prod_id})`, { method: 'DELETE', key: sb.apiKey });
    expect(del.status).toBe(204);
    const again = await run();
    expect(again.notes.join('\n')).toContain('(records were deleted on the tenant since the last run)');
    expect(again.outcomes.created).toBe(1);
    expect(again.outcomes.unchanged).toBe(249);
    expect((await byRef(sb, '/Products', 'prod_ref')).has('DL-3')).toBe(true);
  });

  it('changed rows are looked up and written; the others are not', async () => {
    const { sb } = fixture;
    const dir = tempDir('import-state-changed');
    const stateDir = join(dir, '.catalog-io');
    const first = await writeFeed(dir, 'feed.csv', feed('CH'));
    await importWith(sb, first, { stateDir, tenant: 'tenant-c' });
    await importWith(sb, first, { stateDir, tenant: 'tenant-c' });
    const changed = await writeFeed(
      dir,
      'changed.csv',
      feed('CH', (i) => (i % 50 === 0 ? `Renamed ${i}` : `Lamp ${i}`)),
    );
    const summary = await importWith(sb, changed, { stateDir, tenant: 'tenant-c' });
    expect(summary.outcomes.updated).toBe(5);
    expect(summary.outcomes.unchanged).toBe(245);
    const s = await stats(sb);
    expect(s.byMethod.PATCH).toBe(5);
    // Count + changelog, then the 5 changed refs (spread over the file) in one lookup per language:
    // a batch is 100 rows that need a lookup, the unchanged ones ride along.
    expect(s.byMethod.GET).toBeLessThanOrEqual(2 + 3);
    const state = readTableHeader<{ records: number }>(join(stateDir, 'state', 'tenant-c', 'products.state'));
    expect(state?.meta.records).toBe(250);
    expect(state?.live).toBe(250);
  });
});

/** A port free on loopback now, for a sandbox started twice at one address. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
