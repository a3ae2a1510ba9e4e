// An attribute set id (`typ_id`) the tenant does not have: the Catalog API would refuse the write.
// validate (against the tenant), the plan and the import (before sending) say it alike, from the
// tenant's attribute sets (one list request, only when a row gives a set id).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStep } from '../helpers/cli-main.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;
let setId: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-sets-'));
  const res = await call(fixture.sb.catalogUrl, `/Products?$filter=prod_ref eq 'COTTON-TEE'&$select=typ_id`, {
    key: fixture.sb.apiKey,
  });
  setId = (res.body as { value: Array<{ typ_id: number }> }).value[0]!.typ_id;
});

async function run(command: 'validate' | 'plan' | 'import', file: string, ...extra: string[]) {
  const { code, lines, requests } = await runStep(
    fixture.sb,
    command,
    join(dir, file),
    join(dir, `${file}.${command}.csv`),
    extra,
  );
  return { code, lines, gets: requests.GET ?? 0, posts: requests.POST ?? 0 };
}

describe('an attribute set the tenant does not have', () => {
  it('is invalid in validate, failed in the plan and in the import (no POST), in the same words', async () => {
    // Plain rows (the fast lane) and rows checked in full (a `_command` column) alike.
    for (const [name, head, cmd] of [
      ['sets.csv', 'prod_ref,typ_id,prod_title', ''],
      ['sets-full.csv', '_command,prod_ref,typ_id,prod_title', 'MERGE,'],
    ] as const) {
      const tag = name === 'sets.csv' ? 'H5' : 'H5F';
      await writeFile(
        join(dir, name),
        [
          head,
          `${cmd}${tag}-A,99,a`,
          `${cmd}${tag}-B,${setId},b`,
          `${cmd}${tag}-C,,c`,
          `${cmd}${tag}-D,99,d`,
        ].join('\n'),
      );
      const validated = await run('validate', name);
      expect(validated.lines.map((l) => l.outcome)).toEqual(['invalid', 'valid', 'valid', 'invalid']);
      expect(validated.lines[0]!.message).toBe(
        'column "typ_id": there is no AttributeSets record with id 99',
      );
      const plan = await run('plan', name);
      expect(plan.lines.map((l) => l.outcome)).toEqual(['failed', 'would-create', 'would-create', 'failed']);
      expect(plan.lines[0]!.message).toBe('typ_id: there is no AttributeSets record with id 99');
      const imported = await run('import', name);
      expect(imported.lines.map((l) => [l.outcome, l.message])).toEqual([
        ['failed', plan.lines[0]!.message],
        ['created', ''],
        ['created', ''],
        ['failed', plan.lines[3]!.message],
      ]);
      expect(imported.posts).toBe(2);
    }
  });

  it("named by its name too (an export of another tenant): the name decides, the file's id is not judged", async () => {
    const sets = await call(fixture.sb.catalogUrl, '/v2/AttributeSets', { key: fixture.sb.apiKey });
    const named = (sets.body as { value: Array<{ identifier: number; name: string }> }).value.find(
      (set) => set.identifier === setId,
    )!;
    await writeFile(
      join(dir, 'named.csv'),
      ['prod_ref,typ_id,typ_name,prod_title', `H5-N,99,"${named.name}",n`].join('\n'),
    );
    expect((await run('validate', 'named.csv')).lines.map((l) => l.outcome)).toEqual(['valid']);
    expect((await run('plan', 'named.csv')).lines.map((l) => l.outcome)).toEqual(['would-create']);
    expect((await run('import', 'named.csv')).lines.map((l) => l.outcome)).toEqual(['created']);
    const res = await call(fixture.sb.catalogUrl, `/Products?$filter=prod_ref eq 'H5-N'&$select=typ_id`, {
      key: fixture.sb.apiKey,
    });
    expect((res.body as { value: Array<{ typ_id: number }> }).value[0]!.typ_id).toBe(setId);
  });

  it('costs one request, and nothing when no row gives a set id', async () => {
    await writeFile(join(dir, 'one.csv'), ['prod_ref,typ_id', 'H5-X,99', `H5-Y,${setId}`].join('\n'));
    await writeFile(join(dir, 'none.csv'), ['prod_ref,prod_title', 'H5-Z,z'].join('\n'));
    const one = await run('validate', 'one.csv');
    const oneSchemas = await run('validate', 'one.csv', '--no-check-refs');
    // The attribute sets (one list request); the plain rows ask nothing else.
    expect(one.gets - oneSchemas.gets).toBe(1);
    const none = await run('validate', 'none.csv');
    const noneSchemas = await run('validate', 'none.csv', '--no-check-refs');
    expect(none.gets - noneSchemas.gets).toBe(0);
  });
});
