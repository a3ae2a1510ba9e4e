// `validate` (checked against the tenant) reads the ancestors of every category a batch moves in one
// pass, one request per level of the tree for them all, before it checks the rows one by one: several
// moves in one batch cost what the deepest of them costs, not the sum of their walks.
// (import.category-moves.test.ts: the plan, the import and validate say the same of a move.)
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStep } from '../helpers/cli-main.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-moves-'));
});

async function run(command: 'validate' | 'plan', file: string, ...extra: string[]) {
  const report = join(dir, `${file}.${command}.csv`);
  const { lines, requests } = await runStep(fixture.sb, command, join(dir, file), report, [
    '--entity',
    'categories',
    ...extra,
  ]);
  return { lines, requests: requests.GET ?? 0 };
}

const below = (id: string, parent: string) =>
  `cat_parent_id: category ${id} cannot be moved below itself or one of its descendants (its new parent '${parent}' is below it)`;

describe('validate: the category moves of one batch', () => {
  it('read their ancestors together (one request per level), with the verdicts of the plan', async () => {
    // The demo tree: CAT-CLOTHING > CAT-TOPS > CAT-SHIRTS, CAT-KNITWEAR; CAT-CLOTHING > CAT-DRESSES;
    // CAT-ACCESSORIES > CAT-SMALL-ACC > CAT-BELTS; CAT-SHOES > CAT-SNEAKERS, CAT-BOOTS.
    await writeFile(
      join(dir, 'moves.csv'),
      [
        'cat_ref,cat_parent_ref',
        'CAT-DRESSES,CAT-BELTS',
        'CAT-BOOTS,CAT-SHIRTS',
        'CAT-TOPS,CAT-KNITWEAR',
        'CAT-SHOES,CAT-SNEAKERS',
      ].join('\n'),
    );
    const validated = await run('validate', 'moves.csv');
    const plan = await run('plan', 'moves.csv');
    const ids = new Map(plan.lines.map((l) => [l.ref, l.id]));
    expect(validated.lines.map((l) => [l.outcome, l.message])).toEqual([
      ['valid', ''],
      ['valid', ''],
      ['invalid', `column "cat_parent_ref": ${below(ids.get('CAT-TOPS')!, 'CAT-KNITWEAR')}`],
      ['invalid', `column "cat_parent_ref": ${below(ids.get('CAT-SHOES')!, 'CAT-SNEAKERS')}`],
    ]);
    expect(plan.lines.map((l) => [l.outcome, l.message])).toEqual([
      ['would-update', ''],
      ['would-update', ''],
      ['failed', below(ids.get('CAT-TOPS')!, 'CAT-KNITWEAR')],
      ['failed', below(ids.get('CAT-SHOES')!, 'CAT-SNEAKERS')],
    ]);
    // One request for the rows' refs, then the parents by id: {BELTS, SHIRTS, KNITWEAR, SNEAKERS},
    // {SMALL-ACC, TOPS}, {ACCESSORIES, CLOTHING}. Each row walking on its own asked 3 + 3 + 1 + 1.
    const schemas = await run('validate', 'moves.csv', '--no-check-refs');
    expect(validated.requests - schemas.requests).toBe(1 + 3);
  });

  it("each row's walk finds what it passes read: the rows' own moves and new categories count", async () => {
    await writeFile(
      join(dir, 'chained.csv'),
      [
        'cat_ref,cat_parent_ref,cat_title',
        // Allowed: CAT-DRESSES is now below CAT-BELTS (CAT-ACCESSORIES > CAT-SMALL-ACC > CAT-BELTS) ...
        'CAT-DRESSES,CAT-BELTS,',
        // ... so CAT-SMALL-ACC may not go below it: refused by the move of the row before.
        'CAT-SMALL-ACC,CAT-DRESSES,',
        // A new category under CAT-SNEAKERS (CAT-SHOES > CAT-SNEAKERS), then moves below it.
        'H9-NEW,CAT-SNEAKERS,New',
        'CAT-BOOTS,H9-NEW,',
        'CAT-SHOES,H9-NEW,',
      ].join('\n'),
    );
    const validated = await run('validate', 'chained.csv');
    expect(validated.lines.map((l) => [l.ref, l.outcome])).toEqual([
      ['CAT-DRESSES', 'valid'],
      ['CAT-SMALL-ACC', 'invalid'],
      ['H9-NEW', 'valid'],
      ['CAT-BOOTS', 'valid'],
      ['CAT-SHOES', 'invalid'],
    ]);
    expect(validated.lines[1]!.message).toMatch(
      /cannot be moved below .* \(its new parent 'CAT-DRESSES' is below it\)$/,
    );
    expect(validated.lines[4]!.message).toMatch(
      /cannot be moved below .* \(its new parent 'H9-NEW' is below it\)$/,
    );
    // One request for the refs, then {BELTS, DRESSES, SNEAKERS}, {SMALL-ACC, CLOTHING, SHOES},
    // {ACCESSORIES}; the rows' walks ask nothing more. Each row walking on its own asked 3 + 0 + 2 + 0
    // (and the rows' own refs a request of their own).
    const schemas = await run('validate', 'chained.csv', '--no-check-refs');
    expect(validated.requests - schemas.requests).toBe(1 + 3);
  });
});
