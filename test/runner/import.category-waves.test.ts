// Category moves of one batch that interact: validate, the plan and the import judge each move in row
// order, against the tree with the earlier rows' moves laid over, and say the same of it. A move that
// relies on an earlier move of the same wave is sent after it (never alongside it), so the service sees
// the writes in row order; if the earlier PATCH fails, the later move is judged again against the tree
// as it really is. Across the waves of a batch (a move below a category the batch creates goes in a
// later wave) the moves keep their row order too. (import.category-moves.test.ts: one move at a time.)
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain, sandboxFlags } from '../helpers/cli-main.js';
import { type FaultProxy, faultProxy } from '../helpers/fault-proxy.js';
import { call, useSandbox } from '../helpers/sandbox.js';

// The demo tree: CAT-CLOTHING > CAT-TOPS > CAT-SHIRTS, CAT-KNITWEAR; CAT-CLOTHING > CAT-BOTTOMS,
// CAT-DRESSES; CAT-ACCESSORIES > CAT-SMALL-ACC > CAT-BELTS; CAT-SHOES > CAT-SNEAKERS, CAT-BOOTS.
const fixture = useSandbox();
let dir: string;
let proxy: FaultProxy;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'category-waves-'));
  proxy = await faultProxy(fixture.sb.catalogUrl);
});
afterAll(async () => {
  await proxy?.close();
});

/** A step against the sandbox (through the fault proxy with `viaProxy`): its lines, PATCHes, 400s. */
async function run(command: 'validate' | 'plan' | 'import', file: string, viaProxy = false) {
  const report = join(dir, `${file}.${command}.csv`);
  const stats = async () =>
    (await call(fixture.sb.origin, '/_sandbox/stats')).body as {
      byMethod: Record<string, number>;
      byStatus: Record<string, number>;
    };
  const before = await stats();
  const flags = sandboxFlags(fixture.sb).map((f) =>
    viaProxy && f === fixture.sb.catalogUrl ? proxy.via(f) : f,
  );
  const args = command === 'validate' ? ['validate'] : ['import'];
  await runMain([
    ...args,
    join(dir, file),
    ...(command === 'plan' ? ['--plan'] : []),
    '--report',
    report,
    '--entity',
    'categories',
    ...flags,
  ]);
  const after = await stats();
  const lines = Papa.parse<Record<string, string>>(readFileSync(report, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
  return {
    lines,
    outcomes: lines.map((l) => [l.ref, l.outcome, l.message]),
    patches: (after.byMethod.PATCH ?? 0) - (before.byMethod.PATCH ?? 0),
    refused: (after.byStatus['400'] ?? 0) - (before.byStatus['400'] ?? 0),
  };
}

/** The refs of each group of writes the last import's journal announced (in flight together). */
function inflight(): string[][] {
  const runs = join(process.cwd(), '.catalog-io', 'runs');
  const last = readdirSync(runs).sort().at(-1)!;
  return readFileSync(join(runs, last, 'rows.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { t: string; intents?: Array<{ ref: string }> })
    .filter((r) => r.t === 'inflight')
    .map((r) => r.intents!.map((i) => i.ref));
}

async function category(ref: string): Promise<{ id: number; parent: number | null }> {
  const res = await call(
    fixture.sb.catalogUrl,
    `/Categories?$filter=cat_ref eq '${ref}'&$select=cat_id,cat_parent_id`,
    { key: fixture.sb.apiKey },
  );
  const found = (res.body as { value: Array<{ cat_id: number; cat_parent_id: number | null }> }).value[0]!;
  return { id: found.cat_id, parent: found.cat_parent_id };
}

const below = (id: number, parent: string) =>
  `cat_parent_id: category ${id} cannot be moved below itself or one of its descendants (its new parent '${parent}' is below it)`;

describe('category moves of one batch, in row order', () => {
  it('an earlier move allows a later one: both are written, the later after the earlier', async () => {
    // CAT-KNITWEAR is below CAT-TOPS: the first row takes it out, so CAT-TOPS may go below it.
    await writeFile(
      join(dir, 'allows.csv'),
      'cat_ref,cat_parent_ref\nCAT-KNITWEAR,CAT-BOTTOMS\nCAT-TOPS,CAT-KNITWEAR\n',
    );
    const validated = await run('validate', 'allows.csv');
    expect(validated.outcomes).toEqual([
      ['CAT-KNITWEAR', 'valid', ''],
      ['CAT-TOPS', 'valid', ''],
    ]);
    const plan = await run('plan', 'allows.csv');
    expect(plan.outcomes).toEqual([
      ['CAT-KNITWEAR', 'would-update', ''],
      ['CAT-TOPS', 'would-update', ''],
    ]);
    expect(plan.patches).toBe(0);
    const imported = await run('import', 'allows.csv');
    expect(imported.outcomes).toEqual([
      ['CAT-KNITWEAR', 'updated', ''],
      ['CAT-TOPS', 'updated', ''],
    ]);
    expect(imported.patches).toBe(2);
    expect(imported.refused).toBe(0);
    // The journal announces each round's writes before sending them: CAT-TOPS's after CAT-KNITWEAR's
    // round was written, not alongside it.
    expect(inflight()).toEqual([['CAT-KNITWEAR'], ['CAT-TOPS']]);
    const knitwear = await category('CAT-KNITWEAR');
    expect(knitwear.parent).toBe((await category('CAT-BOTTOMS')).id);
    expect((await category('CAT-TOPS')).parent).toBe(knitwear.id);
  });

  it('an earlier move forbids a later one: the later fails, in the same words, and is not sent', async () => {
    // CAT-DRESSES goes below CAT-BELTS (CAT-ACCESSORIES > CAT-SMALL-ACC > CAT-BELTS): CAT-SMALL-ACC
    // may then not go below CAT-DRESSES.
    await writeFile(
      join(dir, 'forbids.csv'),
      'cat_ref,cat_parent_ref\nCAT-DRESSES,CAT-BELTS\nCAT-SMALL-ACC,CAT-DRESSES\n',
    );
    const smallAcc = await category('CAT-SMALL-ACC');
    const message = below(smallAcc.id, 'CAT-DRESSES');
    const validated = await run('validate', 'forbids.csv');
    expect(validated.outcomes).toEqual([
      ['CAT-DRESSES', 'valid', ''],
      ['CAT-SMALL-ACC', 'invalid', `column "cat_parent_ref": ${message}`],
    ]);
    const plan = await run('plan', 'forbids.csv');
    expect(plan.outcomes).toEqual([
      ['CAT-DRESSES', 'would-update', ''],
      ['CAT-SMALL-ACC', 'failed', message],
    ]);
    const imported = await run('import', 'forbids.csv');
    expect(imported.outcomes).toEqual([
      ['CAT-DRESSES', 'updated', ''],
      ['CAT-SMALL-ACC', 'failed', message],
    ]);
    // Only the allowed PATCH is sent: none that the service refuses.
    expect(imported.patches).toBe(1);
    expect(imported.refused).toBe(0);
    expect((await category('CAT-DRESSES')).parent).toBe((await category('CAT-BELTS')).id);
    expect((await category('CAT-SMALL-ACC')).parent).toBe(smallAcc.parent);
  });

  it('a move that relied on an earlier one whose PATCH failed is judged again against the tree', async () => {
    // CAT-BOOTS out from under CAT-SHOES (below CAT-BAGS), then CAT-SHOES below CAT-BOOTS, which only
    // the first move allows. The first PATCH fails (the proxy answers 422 for it).
    await writeFile(
      join(dir, 'relied.csv'),
      'cat_ref,cat_parent_ref\nCAT-BOOTS,CAT-BAGS\nCAT-SHOES,CAT-BOOTS\n',
    );
    const boots = await category('CAT-BOOTS');
    const shoes = await category('CAT-SHOES');
    expect((await run('plan', 'relied.csv')).outcomes).toEqual([
      ['CAT-BOOTS', 'would-update', ''],
      ['CAT-SHOES', 'would-update', ''],
    ]);
    await proxy.set({ kind: 'status', status: 422, paths: new RegExp(`/Categories\\(${boots.id}\\)$`) });
    let imported: Awaited<ReturnType<typeof run>>;
    try {
      imported = await run('import', 'relied.csv', true);
    } finally {
      await proxy.set({ kind: 'pass' });
    }
    expect(imported.lines.map((l) => [l.ref, l.outcome])).toEqual([
      ['CAT-BOOTS', 'failed'],
      ['CAT-SHOES', 'failed'],
    ]);
    // CAT-BOOTS is still below CAT-SHOES: the second move is judged against that, and not sent.
    expect(imported.lines[1]!.message).toBe(below(shoes.id, 'CAT-BOOTS'));
    expect(proxy.faulted['422']).toBe(1);
    expect(imported.patches).toBe(0);
    expect(imported.refused).toBe(0);
    expect((await category('CAT-SHOES')).parent).toBe(shoes.parent);
    expect((await category('CAT-BOOTS')).parent).toBe(boots.parent);
  });

  it('a move through a category an earlier row moves below a new parent waits for that row', async () => {
    // The second row waits for NEW-W (created by the first) in a later wave; the third could go in the
    // first wave, but its check goes through CAT-BAGS, which the second row moves: it waits for it.
    // Then CAT-BAGS is below NEW-W < CAT-SNEAKERS < CAT-SHOES, so CAT-SHOES may not go below CAT-BAGS.
    await writeFile(
      join(dir, 'waits.csv'),
      'cat_ref,cat_parent_ref,cat_title\nNEW-W,CAT-SNEAKERS,New\nCAT-BAGS,NEW-W,\nCAT-SHOES,CAT-BAGS,\n',
    );
    const shoes = await category('CAT-SHOES');
    const message = below(shoes.id, 'CAT-BAGS');
    const validated = await run('validate', 'waits.csv');
    expect(validated.outcomes).toEqual([
      ['NEW-W', 'valid', ''],
      ['CAT-BAGS', 'valid', ''],
      ['CAT-SHOES', 'invalid', `column "cat_parent_ref": ${message}`],
    ]);
    const plan = await run('plan', 'waits.csv');
    expect(plan.outcomes).toEqual([
      ['NEW-W', 'would-create', ''],
      ['CAT-BAGS', 'would-update', ''],
      ['CAT-SHOES', 'failed', message],
    ]);
    const imported = await run('import', 'waits.csv');
    expect(imported.outcomes).toEqual([
      ['NEW-W', 'created', ''],
      ['CAT-BAGS', 'updated', ''],
      ['CAT-SHOES', 'failed', message],
    ]);
    expect(imported.patches).toBe(1);
    expect(imported.refused).toBe(0);
    expect((await category('CAT-SHOES')).parent).toBe(shoes.parent);
  });

  it("an earlier wave's moves count for the moves of the waves after it", async () => {
    // CAT-BOOTS leaves CAT-SHOES (first wave), NEW-B is created below it (first wave), then CAT-SHOES
    // goes below NEW-B (second wave): allowed, since CAT-BOOTS is no longer below CAT-SHOES.
    await writeFile(
      join(dir, 'earlier-wave.csv'),
      'cat_ref,cat_parent_ref,cat_title\nCAT-BOOTS,CAT-OUTERWEAR,\nNEW-B,CAT-BOOTS,New\nCAT-SHOES,NEW-B,\n',
    );
    const validated = await run('validate', 'earlier-wave.csv');
    expect(validated.outcomes).toEqual([
      ['CAT-BOOTS', 'valid', ''],
      ['NEW-B', 'valid', ''],
      ['CAT-SHOES', 'valid', ''],
    ]);
    expect((await run('plan', 'earlier-wave.csv')).outcomes).toEqual([
      ['CAT-BOOTS', 'would-update', ''],
      ['NEW-B', 'would-create', ''],
      ['CAT-SHOES', 'would-update', ''],
    ]);
    const imported = await run('import', 'earlier-wave.csv');
    expect(imported.outcomes).toEqual([
      ['CAT-BOOTS', 'updated', ''],
      ['NEW-B', 'created', ''],
      ['CAT-SHOES', 'updated', ''],
    ]);
    expect(imported.patches).toBe(2);
    expect(imported.refused).toBe(0);
    expect((await category('CAT-SHOES')).parent).toBe((await category('NEW-B')).id);
  });

  it('a later move on the walk of a move judged again waits for it: that verdict stays the row-order one', async () => {
    // T6-Y > T6-Z > T6-P; T6-X and T6-Q at the root.
    await setUp('t6', ['T6-Y,,Y', 'T6-Z,T6-Y,Z', 'T6-P,T6-Z,P', 'T6-X,,X', 'T6-Q,,Q']);
    // T6-X goes below T6-P; then T6-Y may not go below T6-X (T6-X < T6-P < T6-Z < T6-Y): a verdict that
    // assumed the first move. T6-Z, on that walk, leaves T6-Y only after it (in row order, and at the
    // service): written first, it would have let T6-Y through.
    await writeFile(join(dir, 't6.csv'), 'cat_ref,cat_parent_ref\nT6-X,T6-P\nT6-Y,T6-X\nT6-Z,T6-Q\n');
    const message = below((await category('T6-Y')).id, 'T6-X');
    const validated = await run('validate', 't6.csv');
    expect(validated.outcomes).toEqual([
      ['T6-X', 'valid', ''],
      ['T6-Y', 'invalid', `column "cat_parent_ref": ${message}`],
      ['T6-Z', 'valid', ''],
    ]);
    expect((await run('plan', 't6.csv')).outcomes).toEqual([
      ['T6-X', 'would-update', ''],
      ['T6-Y', 'failed', message],
      ['T6-Z', 'would-update', ''],
    ]);
    const imported = await run('import', 't6.csv');
    expect(imported.outcomes).toEqual([
      ['T6-X', 'updated', ''],
      ['T6-Y', 'failed', message],
      ['T6-Z', 'updated', ''],
    ]);
    expect(imported.patches).toBe(2);
    expect(imported.refused).toBe(0);
    expect(inflight()).toEqual([['T6-X'], ['T6-Z']]);
  });

  it('a move on the walk of an earlier row that waits for a new parent waits with it', async () => {
    // T7-X > T7-W > T7-P; T7-Q at the root.
    await setUp('t7', ['T7-X,,X', 'T7-W,T7-X,W', 'T7-P,T7-W,P', 'T7-Q,,Q']);
    // T7-X goes below T7-N, new below T7-P, which is below T7-X: refused, in row order. T7-W (on that
    // walk) leaves T7-X in the row after: written first (it could go in the first wave), it would have
    // let T7-X through.
    await writeFile(
      join(dir, 't7.csv'),
      'cat_ref,cat_parent_ref,cat_title\nT7-N,T7-P,N\nT7-X,T7-N,\nT7-W,T7-Q,\n',
    );
    const message = below((await category('T7-X')).id, 'T7-N');
    const validated = await run('validate', 't7.csv');
    expect(validated.outcomes).toEqual([
      ['T7-N', 'valid', ''],
      ['T7-X', 'invalid', `column "cat_parent_ref": ${message}`],
      ['T7-W', 'valid', ''],
    ]);
    expect((await run('plan', 't7.csv')).outcomes).toEqual([
      ['T7-N', 'would-create', ''],
      ['T7-X', 'failed', message],
      ['T7-W', 'would-update', ''],
    ]);
    const imported = await run('import', 't7.csv');
    expect(imported.outcomes).toEqual([
      ['T7-N', 'created', ''],
      ['T7-X', 'failed', message],
      ['T7-W', 'updated', ''],
    ]);
    expect(imported.patches).toBe(1);
    expect(imported.refused).toBe(0);
    // T7-W is written after T7-X's verdict (in the second wave), not beside T7-N in the first.
    expect(inflight()).toEqual([['T7-N'], ['T7-W']]);
  });
});

/** Imports new categories (`ref,parent,title` lines) for a test of its own. */
async function setUp(name: string, rows: string[]): Promise<void> {
  await writeFile(join(dir, `${name}-setup.csv`), ['cat_ref,cat_parent_ref,cat_title', ...rows].join('\n'));
  const done = await run('import', `${name}-setup.csv`);
  expect(done.lines.map((l) => l.outcome)).toEqual(rows.map(() => 'created'));
}
