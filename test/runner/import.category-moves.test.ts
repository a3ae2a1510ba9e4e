// A category moved below itself or one of its descendants: the Catalog API refuses the PATCH. The plan
// (and validate, checked against the tenant) predicts it from the tenant's tree and the file's moves,
// and the import fails the row without sending the PATCH, in the same words (the parents are read by id, one request per level of the tree).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStep } from '../helpers/cli-main.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'category-moves-'));
});

async function run(command: 'validate' | 'plan' | 'import', file: string, ...extra: string[]) {
  const report = join(dir, `${file}.${command}.csv`);
  const { code, lines, requests } = await runStep(fixture.sb, command, join(dir, file), report, [
    '--entity',
    'categories',
    ...extra,
  ]);
  return { code, lines, patches: requests.PATCH ?? 0 };
}

async function parentOf(ref: string): Promise<unknown> {
  const res = await call(
    fixture.sb.catalogUrl,
    `/Categories?$filter=cat_ref eq '${ref}'&$select=cat_parent_id`,
    {
      key: fixture.sb.apiKey,
    },
  );
  return (res.body as { value: Array<{ cat_parent_id: unknown }> }).value[0]?.cat_parent_id;
}

const BELOW =
  /^cat_parent_id: category \d+ cannot be moved below itself or one of its descendants \(its new parent 'CAT-SHIRTS' is below it\)$/;

describe('a category moved below its own descendant', () => {
  it('is failed by the plan and by the import, which sends no PATCH', async () => {
    await writeFile(join(dir, 'desc.csv'), 'cat_ref,cat_parent_ref\nCAT-CLOTHING,CAT-SHIRTS\n');
    const plan = await run('plan', 'desc.csv');
    expect(plan.lines.map((l) => l.outcome)).toEqual(['failed']);
    expect(plan.lines[0]!.message).toMatch(BELOW);
    // validate, checked against the tenant, says it too.
    const validated = await run('validate', 'desc.csv');
    expect(validated.lines.map((l) => [l.outcome, l.message])).toEqual([
      ['invalid', `column "cat_parent_ref": ${plan.lines[0]!.message}`],
    ]);
    const imported = await run('import', 'desc.csv');
    expect(imported.lines.map((l) => [l.outcome, l.message])).toEqual([['failed', plan.lines[0]!.message]]);
    expect(imported.patches).toBe(0);
    expect(await parentOf('CAT-CLOTHING')).toBeNull();
  });

  it('below a category the file creates under its descendant', async () => {
    await writeFile(
      join(dir, 'created.csv'),
      'cat_ref,cat_parent_ref,cat_title\nH7-NEW,CAT-SHIRTS,New\nCAT-CLOTHING,H7-NEW,Clothing\n',
    );
    const plan = await run('plan', 'created.csv');
    expect(plan.lines.map((l) => l.outcome)).toEqual(['would-create', 'failed']);
    expect(plan.lines[1]!.message).toMatch(
      /category \d+ cannot be moved below itself or one of its descendants \(its new parent 'H7-NEW' is below it\)/,
    );
    const validated = await run('validate', 'created.csv');
    expect(validated.lines.map((l) => [l.outcome, l.message])).toEqual([
      ['valid', ''],
      ['invalid', `column "cat_parent_ref": ${plan.lines[1]!.message}`],
    ]);
    const imported = await run('import', 'created.csv');
    expect(imported.lines.map((l) => l.outcome)).toEqual(['created', 'failed']);
    expect(imported.lines[1]!.message).toBe(plan.lines[1]!.message);
    expect(imported.patches).toBe(0);
  });

  it("the file's earlier moves count: a move they make possible goes ahead", async () => {
    // CAT-KNITWEAR is below CAT-TOPS in the tenant; the first row takes it out from under it.
    await writeFile(
      join(dir, 'moves.csv'),
      'cat_ref,cat_parent_ref\nCAT-KNITWEAR,CAT-BOTTOMS\nCAT-TOPS,CAT-KNITWEAR\n',
    );
    const plan = await run('plan', 'moves.csv', '--batch-size', '1');
    expect((await run('validate', 'moves.csv')).lines.map((l) => l.outcome)).toEqual(['valid', 'valid']);
    expect(plan.lines.map((l) => l.outcome)).toEqual(['would-update', 'would-update']);
    const imported = await run('import', 'moves.csv', '--batch-size', '1');
    expect(imported.lines.map((l) => l.outcome)).toEqual(['updated', 'updated']);
    // And the other way round after them: CAT-KNITWEAR is now below CAT-TOPS's new parent chain.
    await writeFile(join(dir, 'back.csv'), 'cat_ref,cat_parent_ref\nCAT-KNITWEAR,CAT-TOPS\n');
    const back = await run('plan', 'back.csv');
    expect(back.lines.map((l) => l.outcome)).toEqual(['failed']);
    expect((await run('validate', 'back.csv')).lines.map((l) => l.message)).toEqual([
      `column "cat_parent_ref": ${back.lines[0]!.message}`,
    ]);
    const backImport = await run('import', 'back.csv');
    expect(backImport.lines.map((l) => [l.outcome, l.message])).toEqual([['failed', back.lines[0]!.message]]);
    expect(backImport.patches).toBe(0);
  });
});
