// `validate` checked against the tenant judges `_command` rows as the import does: NEW of a record the
// tenant has and UPDATE of one it lacks are invalid (the import fails them), DELETE of one it lacks is
// skipped (nothing to delete). Only rows with such a command ask the tenant, 100 refs per request.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStep } from '../helpers/cli-main.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-commands-'));
});

async function run(command: 'validate' | 'plan', file: string, ...extra: string[]) {
  return runStep(fixture.sb, command, join(dir, file), join(dir, `${file}.${command}.csv`), extra);
}

/** GET requests a validate of `file` costs. */
async function validateCost(file: string, ...extra: string[]) {
  const result = await run('validate', file, ...extra);
  return { ...result, requests: result.requests.GET ?? 0 };
}

describe('validate: _command rows against the tenant', () => {
  it('NEW of an existing ref and UPDATE of a missing one are invalid, DELETE of a missing one skipped, as the import says', async () => {
    await writeFile(
      join(dir, 'cmd.csv'),
      [
        '_command,prod_ref,prod_title',
        'NEW,COTTON-TEE,x',
        'UPDATE,H6-MISSING,x',
        'DELETE,H6-GONE,',
        'NEW,H6-FRESH,x',
        'UPDATE,LINEN-SHIRT,Linen shirt',
        ',H6-PLAIN,x',
      ].join('\n'),
    );
    const { code, lines, requests } = await validateCost('cmd.csv');
    expect(code).toBe(1);
    expect(lines.map((l) => [l.ref, l.outcome])).toEqual([
      ['COTTON-TEE', 'invalid'],
      ['H6-MISSING', 'invalid'],
      ['H6-GONE', 'skipped'],
      ['H6-FRESH', 'valid'],
      ['LINEN-SHIRT', 'valid'],
      ['H6-PLAIN', 'valid'],
    ]);
    const plan = await run('plan', 'cmd.csv');
    // The same words as the plan (and the import).
    expect(lines[0]!.message).toBe(`column "prod_ref": ${plan.lines[0]!.message}`);
    expect(lines[0]!.message).toMatch(
      /prod_ref 'COTTON-TEE' already exists \(id \d+\); the row asks for a new record/,
    );
    expect(lines[1]!.message).toBe(`column "prod_ref": ${plan.lines[1]!.message}`);
    expect(lines[1]!.message).toContain("prod_ref 'H6-MISSING' does not exist; the row asks to update it");
    expect(plan.lines[2]!.outcome).toBe('skipped');
    expect(lines[2]!.message).toBe(plan.lines[2]!.message);
    expect(plan.lines.map((l) => l.outcome)).toEqual([
      'failed',
      'failed',
      'skipped',
      'would-create',
      expect.stringMatching(/would-update|unchanged/),
      'would-create',
    ]);
    // The five command refs cost one request beyond reading the schemas.
    const schemas = await validateCost('cmd.csv', '--no-check-refs');
    expect(requests - schemas.requests).toBe(1);
  });

  it('rows without NEW, UPDATE or DELETE ask nothing more', async () => {
    await writeFile(
      join(dir, 'merge.csv'),
      ['_command,prod_ref,prod_title', 'MERGE,COTTON-TEE,x', ',H6-NEW,x', 'IGNORE,H6-IGN,x'].join('\n'),
    );
    const { lines, requests } = await validateCost('merge.csv');
    expect(lines.map((l) => l.outcome)).toEqual(['valid', 'valid', 'skipped']);
    const schemas = await validateCost('merge.csv', '--no-check-refs');
    expect(requests - schemas.requests).toBe(0);
  });

  it('asks 100 refs per request: 150 UPDATE rows cost 2 GET', async () => {
    const rows = ['_command,prod_ref,prod_title'];
    for (let i = 1; i <= 150; i++) rows.push(`UPDATE,H6-U-${i},x`);
    await writeFile(join(dir, 'updates.csv'), rows.join('\n'));
    const { lines, requests } = await validateCost('updates.csv');
    expect(lines.every((l) => l.outcome === 'invalid')).toBe(true);
    const schemas = await validateCost('updates.csv', '--no-check-refs');
    expect(requests - schemas.requests).toBe(2);
  });

  it('a one-row-per-variant feed: the command applies to the variant', async () => {
    await writeFile(
      join(dir, 'variants.csv'),
      [
        '_command,Handle,Title,SKU,Size,Price',
        'NEW,LINEN-SHIRT,Linen shirt,LINEN-SHIRT-WHT-S,S,59',
        'UPDATE,LINEN-SHIRT,Linen shirt,H6-VAR-MISSING,M,59',
        'DELETE,LINEN-SHIRT,Linen shirt,H6-VAR-GONE,L,59',
      ].join('\n'),
    );
    const profile = join(dir, 'variants.profile.json');
    await writeFile(
      profile,
      JSON.stringify({
        entity: 'products',
        variants: true,
        columns: {
          Handle: 'prod_ref',
          Title: 'prod_title',
          SKU: 'frmt_ref',
          Size: 'frmt_size',
          Price: 'frmt_price',
        },
      }),
    );
    const { lines } = await run('validate', 'variants.csv', '--profile', profile);
    const plan = await run('plan', 'variants.csv', '--profile', profile);
    expect(plan.lines.map((l) => l.outcome)).toEqual(['failed', 'failed', 'skipped']);
    expect(lines.map((l) => l.outcome)).toEqual(['invalid', 'invalid', 'skipped']);
    expect(lines[0]!.message).toMatch(/frmt_ref 'LINEN-SHIRT-WHT-S' already exists \(id \d+\)/);
    // The plan names each draft of the row (`products ...: unchanged; variants ...: failed — ...`).
    const said = (l: Record<string, string>) => l.message!.replace(/^column "SKU": /, '');
    for (const at of [0, 1, 2]) expect(plan.lines[at]!.message).toContain(said(lines[at]!));
    expect(lines[1]!.message).toBe(
      `column "SKU": frmt_ref 'H6-VAR-MISSING' does not exist; the row asks to update it`,
    );
    expect(lines[2]!.message).toBe("frmt_ref 'H6-VAR-GONE' does not exist: nothing to delete");
  });
});
