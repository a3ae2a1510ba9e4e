// Run by known-state.memory.test.ts in a process of its own (`node --expose-gc`): writes, or reads
// back in another order, an import state of RECORDS records through KnownState against the test's
// sandbox, and prints on stdout what memory the state took (the heap and buffers still held after a
// full collection, sampled through the run) and the process's peak RSS.
import { connect } from '../../src/config/index.js';
import type { Draft, DraftSource } from '../../src/mappers/types.js';
import { KnownState } from '../../src/runs/known-state.js';
import { ownPeakRssKb } from '../helpers/own-peak-rss.mjs';

const records = Number(process.env.RECORDS);
const phase = process.env.PHASE as 'write' | 'read';
const gc = (globalThis as { gc?: () => void }).gc!;
const MB = 1024 * 1024;

function held(): number {
  // Twice: what the first collection leaves to finalisers goes in the second.
  gc();
  gc();
  const m = process.memoryUsage();
  // Buffers are counted by `arrayBuffers`; `external` also counts native memory (hash contexts)
  // that is freed some time after a collection, which would only add noise.
  return m.heapUsed + m.arrayBuffers;
}

function draft(n: number): Draft {
  return {
    entity: 'products',
    ref: `catalog-item-reference-${String(n).padStart(8, '0')}`,
    command: 'MERGE',
    fields: { prod_title: `Item ${n}`, prod_weight: n % 97 },
    cultures: {},
    assets: [],
    links: {},
    source: {} as DraftSource,
  };
}

const connection = await connect({
  settings: {
    catalogUrl: process.env.CATALOG_URL!,
    damUrl: process.env.DAM_URL!,
    apiKey: process.env.CATALOG_API_KEY!,
    rateLimit: null,
  },
  env: {},
});
const entity = (await connection.tenant.model()).entity('products')!;
const before = held();
const state = await KnownState.open({
  stateDir: process.env.STATE_DIR!,
  tenant: 'memory',
  entity,
  catalog: connection.catalog,
  profileHash: 'memory-test',
});
let peak = held() - before;
let vouched = 0;
let wrongIds = 0;
for (let start = 0; start < records; start += 100) {
  const drafts: Draft[] = [];
  // Written in order, read back in a scattered one (a stride coprime with the count).
  for (let i = start; i < Math.min(start + 100, records); i++)
    drafts.push(draft(phase === 'write' ? i : (i * 7919) % records));
  if (phase === 'write')
    for (const d of drafts) state.record(d, 'unchanged', 1_000_000 + Number(d.ref.slice(-8)));
  else {
    const { unchanged } = state.filterUnchanged(drafts);
    vouched += unchanged.length;
    for (const u of unchanged) if (u.id !== 1_000_000 + Number(u.draft.ref.slice(-8))) wrongIds += 1;
  }
  if (start % 20_000 === 0) peak = Math.max(peak, held() - before);
}
peak = Math.max(peak, held() - before);
// What this run wrote vouches for a later row of the same ref: in the table, or still waiting to go in.
const ownWrites =
  phase === 'write' ? state.filterUnchanged([0, records >> 1, records - 1].map(draft)) : undefined;
await state.save();
await connection.close();
process.stdout.write(
  `${JSON.stringify({
    note: state.note ?? null,
    vouched,
    wrongIds,
    ownWrites: ownWrites?.unchanged.map((u) => u.id) ?? null,
    peakHeldMb: peak / MB,
    maxRssMb: ownPeakRssKb() / 1024,
  })}\n`,
);
