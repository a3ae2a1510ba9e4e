// A run against a faulty, rate-limited sandbox: 10% 5xx, 5% connection resets, a tight rate limit.
// Every GET and PATCH ends correct; a POST is never retried blindly: ambiguous failures are re-checked
// by reference, and afterwards every reference exists exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from '../../src/api/filter.js';
import {
  type CatalogClient,
  type Clients,
  createClients,
  isApiError,
  recordPath,
} from '../../src/api/index.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({
  seed: 'empty',
  faultRate: 0.1,
  resetRate: 0.05,
  rateLimit: { requests: 40, windowSeconds: 1 },
  randomSeed: 7,
});
const N = 40;
const refs = Array.from({ length: N }, (_, i) => `FAULT-${String(i).padStart(3, '0')}`);
let clients: Clients;
let createCalls = 0;
let recheckedMissing = 0;
const ids = new Map<string, number>();

async function findByRef(catalog: CatalogClient, ref: string): Promise<number[]> {
  const found: number[] = [];
  for await (const p of catalog.list<{ prod_id: number }>('/Products', {
    query: { $filter: eq('prod_ref', ref), $select: 'prod_id' },
  })) {
    found.push(p.prod_id);
  }
  return found;
}

/** What the import runner does: create; on an ambiguous failure, look the ref up before trying again. */
async function createOnce(catalog: CatalogClient, ref: string): Promise<{ id: number; rechecks: number }> {
  let rechecks = 0;
  for (;;) {
    try {
      createCalls += 1;
      const created = await catalog.create('/Products', { prod_ref: ref, prod_title: `Title ${ref}` });
      return { id: Number(created.id), rechecks };
    } catch (err) {
      if (!isApiError(err) || !err.ambiguous) throw err;
      rechecks += 1;
      const existing = await findByRef(catalog, ref);
      if (existing.length > 0) return { id: existing[0]!, rechecks };
      recheckedMissing += 1;
    }
  }
}

beforeAll(() => {
  const sb = fixture.sb;
  // The client's own limit is looser than the sandbox's, so the sandbox answers 429 now and then.
  clients = createClients({
    catalogUrl: sb.catalogUrl,
    damUrl: sb.damUrl,
    apiKey: sb.apiKey,
    concurrency: 6,
    rateLimit: { requests: 60, windowSeconds: 1 },
    retry: { maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 200 },
  });
});
afterAll(async () => {
  await clients?.transport.close();
});

describe('a run under faults', () => {
  it('creates every ref exactly once, re-checking ambiguous POSTs instead of retrying them', async () => {
    let rechecks = 0;
    await Promise.all(
      refs.map(async (ref) => {
        const result = await createOnce(clients.catalog, ref);
        ids.set(ref, result.id);
        rechecks += result.rechecks;
      }),
    );
    const snap = clients.transport.snapshot();
    // The faults did happen, and POSTs that failed ambiguously were not retried by the client.
    expect(
      (snap.byStatus.network ?? 0) +
        (snap.byStatus['500'] ?? 0) +
        (snap.byStatus['502'] ?? 0) +
        (snap.byStatus['503'] ?? 0),
    ).toBeGreaterThan(0);
    expect(snap.ambiguous).toBeGreaterThan(0);
    expect(snap.ambiguous).toBe(rechecks);

    // Counted by ref: each exists exactly once.
    for (const ref of refs) expect(await findByRef(clients.catalog, ref)).toHaveLength(1);
  }, 120_000);

  it('every GET and PATCH completes correctly', async () => {
    await Promise.all(
      refs.map(async (ref) => {
        const path = recordPath('/Products', ids.get(ref)!);
        await clients.catalog.patch(path, { prod_title: `Patched ${ref} l'été ☀` });
        const record = await clients.catalog.getEntity<{ prod_ref: string; prod_title: string }>(path);
        expect(record.prod_ref).toBe(ref);
        expect(record.prod_title).toBe(`Patched ${ref} l'été ☀`);
      }),
    );
    const listed = [];
    for await (const p of clients.catalog.listIn<{ prod_ref: string; prod_title: string }>(
      '/Products',
      'prod_ref',
      refs,
    ))
      listed.push(p);
    expect(listed.map((p) => p.prod_ref).sort()).toEqual([...refs].sort());
    for (const p of listed) expect(p.prod_title).toBe(`Patched ${p.prod_ref} l'été ☀`);
  }, 120_000);

  it('the client saw 429s, retried them after Retry-After, and its counts match the sandbox', async () => {
    const snap = clients.transport.snapshot();
    expect(snap.rateLimited).toBeGreaterThan(0);
    expect(snap.retries).toBeGreaterThan(0);
    const stats = (await (await fetch(`${fixture.sb.origin}/_sandbox/stats`)).json()) as {
      byMethod: Record<string, number>;
    };
    // Every attempt the client counted reached the sandbox, and no POST was sent twice for one failure.
    expect(stats.byMethod.POST).toBe(snap.byMethod.POST);
    expect(stats.byMethod.PATCH).toBe(snap.byMethod.PATCH);
    // One create call per ref, plus one per ambiguous failure whose re-check found nothing.
    expect(createCalls).toBe(N + recheckedMissing);
  });
});
