// A supplier renames a header only by its letter case: the profile's "Regular price" arrives as
// "Regular Price". The column is read as the profile's, and a warning says so, in validate, the plan
// and the import alike. A profile column the file does not have is named (with --strict its rows are
// invalid); two headers that could both be the profile's column are read as neither, and said so.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runMain, sandboxFlags, useCliFolder } from '../helpers/cli-main.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const demo = useSandbox({ seed: 'demo' });
const dir = useCliFolder('column-case');

const connection = () => sandboxFlags(demo.sb);

const cli = runMain;

const profile = join(dir, 'supplier.json');
writeFileSync(
  profile,
  JSON.stringify({
    entity: 'variants',
    autoColumns: true,
    columns: { SKU: 'frmt_ref', 'Regular price': 'frmt_price' },
  }),
);

let ref = '';
async function price(): Promise<number> {
  const found = await call(demo.sb.catalogUrl, `/Variants?$filter=frmt_ref eq '${ref}'`, {
    key: demo.sb.apiKey,
  });
  return (found.body as { value: Array<{ frmt_price: number }> }).value[0]!.frmt_price;
}

function feed(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

interface Summary {
  outcomes: Record<string, number>;
  warnings: string[];
}

describe('a header that differs from the profile column only by case', () => {
  beforeAll(async () => {
    const first = await call(demo.sb.catalogUrl, '/Variants?$top=1', { key: demo.sb.apiKey });
    ref = (first.body as { value: Array<{ frmt_ref: string }> }).value[0]!.frmt_ref;
  });

  it('is read as the profile column, with a warning, in validate, the plan and the import', async () => {
    const before = await price();
    const file = feed('renamed.csv', ['SKU,Regular Price', `${ref},${before + 10}`]);
    const said =
      'column "Regular Price" read as the profile\'s "Regular price" (the names differ only in letter case or surrounding spaces)';

    const checked = await cli(['validate', file, '--profile', profile, '--json', ...connection()]);
    expect(checked.code, checked.stderr).toBe(0);
    expect((JSON.parse(checked.stdout[0]!) as Summary).warnings).toContain(said);

    const plan = await cli(['import', file, '--profile', profile, '--plan', '--json', ...connection()]);
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout[0]!) as Summary;
    expect(planned.outcomes['would-update']).toBe(1);
    expect(planned.warnings).toContain(said);

    const run = await cli(['import', file, '--profile', profile, ...connection()]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`warning: ${said}`);
    expect(run.stderr).not.toContain('does not match a field');
    expect(await price()).toBe(before + 10);
  }, 60_000);

  it('a profile column the file lacks is named; with --strict its rows are invalid and nothing is written', async () => {
    const before = await price();
    const file = feed('missing.csv', ['SKU,Price', `${ref},${before + 5}`]);
    const said =
      'the profile\'s column "Regular price" (frmt_price) is not in the file: nothing is read for it';

    const checked = await cli(['validate', file, '--profile', profile, ...connection()]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stderr).toContain(`warning: ${said}`);

    const strict = await cli(['validate', file, '--profile', profile, '--strict', ...connection()]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(`warning: ${said} (--strict: the rows are invalid)`);
    expect(strict.stderr).toContain(
      'column "Regular price": the profile names it and the file\'s header does not have it (--strict)',
    );

    const plan = await cli([
      'import',
      file,
      '--profile',
      profile,
      '--strict',
      '--plan',
      '--json',
      ...connection(),
    ]);
    expect((JSON.parse(plan.stdout[0]!) as Summary).outcomes.invalid).toBe(1);
    const run = await cli(['import', file, '--profile', profile, '--strict', '--json', ...connection()]);
    expect(run.code).toBe(1);
    expect((JSON.parse(run.stdout[0]!) as Summary).outcomes.invalid).toBe(1);
    expect(await price()).toBe(before);
  }, 60_000);

  it('two headers that could be the profile column are read as neither; the exact one wins over a near one', async () => {
    const before = await price();
    const both = feed('both.csv', ['SKU,Regular Price,REGULAR PRICE', `${ref},${before + 1},${before + 2}`]);
    const run = await cli(['import', both, '--profile', profile, ...connection()]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'warning: columns "Regular Price", "REGULAR PRICE" and the profile\'s "Regular price" differ only in letter case or surrounding spaces, and which is meant cannot be told: none is read as the profile\'s',
    );
    expect(run.stderr).toContain('the profile\'s column "Regular price" (frmt_price) is not in the file');
    expect(await price()).toBe(before);

    const exact = feed('exact.csv', [
      'SKU,Regular Price,Regular price',
      `${ref},${before + 3},${before + 4}`,
    ]);
    const again = await cli(['import', exact, '--profile', profile, ...connection()]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      'warning: column "Regular Price" not read as the profile\'s "Regular price": the file has that column as written too',
    );
    expect(await price()).toBe(before + 4);
  }, 60_000);
});
