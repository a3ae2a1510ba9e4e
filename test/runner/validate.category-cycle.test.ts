// `validate` finds a cycle of parents among the file's categories as the import does (the same code,
// import/category-cycle.ts) and says it in the same words; a category of the tenant breaks a loop.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStep } from '../helpers/cli-main.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-cycle-'));
});

async function run(command: 'validate' | 'plan', file: string, ...extra: string[]) {
  const report = join(dir, `${file}.${command}.csv`);
  const { code, lines, requests } = await runStep(fixture.sb, command, join(dir, file), report, [
    '--entity',
    'categories',
    ...extra,
  ]);
  return { code, lines, requests: requests.GET ?? 0 };
}

describe('validate: a cycle of parents in the file', () => {
  it('is invalid with the words of the plan and the import, a child of the cycle too', async () => {
    await writeFile(
      join(dir, 'cycle.csv'),
      [
        'cat_ref,cat_parent_ref,cat_title',
        'H8-A,H8-B,a',
        'H8-B,H8-A,b',
        'H8-C,H8-A,c',
        'H8-D,CAT-SHIRTS,d',
        'H8-E,H8-F,e',
        'H8-F,,f',
      ].join('\n'),
    );
    const { code, lines } = await run('validate', 'cycle.csv');
    const plan = await run('plan', 'cycle.csv');
    expect(code).toBe(1);
    expect(lines.map((l) => [l.ref, l.outcome])).toEqual([
      ['H8-A', 'invalid'],
      ['H8-B', 'invalid'],
      ['H8-C', 'invalid'],
      ['H8-D', 'valid'],
      ['H8-E', 'valid'],
      ['H8-F', 'valid'],
    ]);
    // The plan's report gives the categories that wait for a parent last: compared by ref.
    const planned = new Map(plan.lines.map((l) => [l.ref, l]));
    expect(lines.map((l) => planned.get(l.ref)?.outcome)).toEqual([
      'failed',
      'failed',
      'failed',
      'would-create',
      'would-create',
      'would-create',
    ]);
    expect(lines[0]!.message).toBe(
      'column "cat_parent_ref": the parent category \'H8-B\' is part of a cycle of parents in the file: H8-A -> H8-B -> H8-A',
    );
    for (const at of [0, 1, 2])
      expect(lines[at]!.message).toBe(`column "cat_parent_ref": ${planned.get(lines[at]!.ref)!.message}`);
    expect(lines[2]!.message).toContain('H8-C -> H8-A -> H8-B -> H8-A');
  });

  it('a file without a cycle asks nothing for it', async () => {
    await writeFile(join(dir, 'forward.csv'), 'cat_ref,cat_parent_ref,cat_title\nH8-G,H8-H,g\nH8-H,,h\n');
    const { lines, requests } = await run('validate', 'forward.csv');
    expect(lines.map((l) => l.outcome)).toEqual(['valid', 'valid']);
    const schemas = await run('validate', 'forward.csv', '--no-check-refs');
    // One request: the rows' own refs, asked to know which categories exist (a move below a descendant,
    // import.category-moves.test.ts); the search for cycles asks nothing.
    expect(requests - schemas.requests).toBe(1);
  });

  it('a category of the tenant breaks the loop: no cycle (one request asks its members)', async () => {
    await writeFile(
      join(dir, 'tenant.csv'),
      'cat_ref,cat_parent_ref,cat_title\nH8-X,CAT-DRESSES,x\nCAT-DRESSES,H8-X,Dresses\n',
    );
    const { lines, requests } = await run('validate', 'tenant.csv');
    const plan = await run('plan', 'tenant.csv');
    for (const l of [...lines, ...plan.lines]) expect(l.message).not.toContain('cycle');
    expect(plan.lines[0]!.outcome).toBe('would-create');
    expect(lines[0]!.outcome).toBe('valid');
    const schemas = await run('validate', 'tenant.csv', '--no-check-refs');
    expect(requests - schemas.requests).toBe(1);
  });
});
