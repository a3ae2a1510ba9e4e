// Filter literals with quotes, unicode, dates and long `in` lists round-trip through the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, chunkIn, contains, eq, ge, inList, lt, utcDateTime } from '../../src/api/filter.js';
import { type Clients, createClients } from '../../src/api/index.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty' });
let clients: Clients;

const tricky = [
  "O'Neil",
  "''double''",
  'café-crème',
  '東京-001',
  'emoji-☕-🚀',
  'spaces and, commas',
  'percent%20sign',
  'plus+amp&hash#',
  'paren(1)',
  'slash/back\\slash',
];

async function refsMatching(filter: string): Promise<string[]> {
  const out: string[] = [];
  for await (const p of clients.catalog.list<{ prod_ref: string }>('/Products', {
    query: { $filter: filter, $select: 'prod_ref' },
  })) {
    out.push(p.prod_ref);
  }
  return out.sort();
}

beforeAll(async () => {
  const sb = fixture.sb;
  clients = createClients({
    catalogUrl: sb.catalogUrl,
    damUrl: sb.damUrl,
    apiKey: sb.apiKey,
    rateLimit: null,
  });
  for (const [i, ref] of tricky.entries()) {
    await clients.catalog.create('/Products', {
      prod_ref: ref,
      prod_title: { en: `Summer ${i}`, fr: `L'été ${i}`, es: `Verano ${i}` },
      prod_date: new Date(Date.UTC(2024, 0, 10 + i, 12)).toISOString(),
    });
  }
  for (let i = 0; i < 600; i++) {
    await clients.catalog.create('/Products', {
      prod_ref: `BULK-${String(i).padStart(4, '0')}-${'x'.repeat(12)}`,
    });
  }
}, 120_000);

afterAll(async () => {
  await clients?.transport.close();
});

describe('literals round-trip', () => {
  for (const ref of tricky) {
    it(`eq ${JSON.stringify(ref)}`, async () => {
      expect(await refsMatching(eq('prod_ref', ref))).toEqual([ref]);
    });
  }

  it('in (...) with every tricky value at once', async () => {
    expect(await refsMatching(inList('prod_ref', tricky))).toEqual([...tricky].sort());
  });

  it('a language suffix addresses one culture', async () => {
    expect(await refsMatching(contains('prod_title', "L'été 3", { culture: 'fr' }))).toEqual([tricky[3]!]);
    expect(await refsMatching(eq('prod_title', 'Verano 0', { culture: 'es' }))).toEqual([tricky[0]!]);
  });

  it('date-times are sent in UTC: an offset given locally is converted', async () => {
    // 2024-01-12T12:00Z is 14:00 at +02:00; the range [13:00+02:00, 15:00+02:00) holds exactly tricky[2].
    const filter = and(
      ge('prod_date', utcDateTime('2024-01-12T13:00:00+02:00')),
      lt('prod_date', utcDateTime('2024-01-12T15:00:00+02:00')),
    );
    expect(filter).not.toContain('+02:00');
    expect(await refsMatching(filter)).toEqual([tricky[2]!]);
  });
});

describe('long in lists', () => {
  it('chunkIn keeps every request under the limit and finds every record once', async () => {
    const wanted = Array.from(
      { length: 600 },
      (_, i) => `BULK-${String(i).padStart(4, '0')}-${'x'.repeat(12)}`,
    );
    const missing = Array.from({ length: 300 }, (_, i) => `NOPE-${i}-${'y'.repeat(20)}`);
    const before = clients.transport.snapshot();
    const found: string[] = [];
    for await (const p of clients.catalog.listIn<{ prod_ref: string }>(
      '/Products',
      'prod_ref',
      [...wanted, ...missing],
      {
        query: { $select: 'prod_ref' },
      },
    )) {
      found.push(p.prod_ref);
    }
    expect(found.sort()).toEqual([...wanted].sort());
    const after = clients.transport.snapshot();
    expect(after.byStatus['414'] ?? 0).toBe(before.byStatus['414'] ?? 0);
    // The split is real: more than one request was needed.
    expect((after.byMethod.GET ?? 0) - (before.byMethod.GET ?? 0)).toBeGreaterThan(3);
  });

  it('the same list in one request is refused with 414 and becomes API_URL_TOO_LONG', async () => {
    const wanted = Array.from(
      { length: 600 },
      (_, i) => `BULK-${String(i).padStart(4, '0')}-${'x'.repeat(12)}`,
    );
    const [whole] = [
      ...chunkIn('prod_ref', wanted, { baseUrl: clients.catalog.url('/Products'), budget: 1_000_000 }),
    ];
    const err = await clients.catalog
      .get('/Products', { query: { $filter: whole! } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'API_URL_TOO_LONG', status: 414 });
  });
});
