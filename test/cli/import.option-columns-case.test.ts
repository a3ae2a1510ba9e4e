// The profile's options that name a column (`parentColumn`, `scopeColumn`, `commandColumn`, `fillDown`)
// find it in the file's header as its `columns` do: as written, else a header that differs only in letter
// case or surrounding spaces, with the same warning. A supplier feed whose header says `Parent` or
// `_COMMAND` while the profile says `parent` / `_command` used to lose the option without a word. An
// option naming a column the header does not have is said, as a missing column is (with --strict the
// rows are invalid). Through the CLI's real CSV reader and mapper, against a sandbox.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain, sandboxFlags, useCliFolder } from '../helpers/cli-main.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty' });
const dir = useCliFolder('option-columns-case');

const cli = (args: string[]) => runMain([...args, ...sandboxFlags(fixture.sb)]);

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

interface Summary {
  outcomes: Record<string, number>;
  warnings: string[];
}

async function all(path: string): Promise<Array<Record<string, unknown>>> {
  const res = await call(fixture.sb.catalogUrl, `${path}?$top=100`, {
    key: fixture.sb.apiKey,
    headers: { 'accept-language': 'en' },
  });
  expect(res.status, res.text).toBe(200);
  return (res.body as { value: Array<Record<string, unknown>> }).value;
}

const loosely = (header: string, name: string) =>
  `column ${JSON.stringify(header)} read as the profile's ${JSON.stringify(name)} (the names differ only in letter case or surrounding spaces)`;

const parentProfile = file(
  'parent.json',
  JSON.stringify({
    entity: 'products',
    variants: true,
    parentColumn: 'parent',
    scopeColumn: 'store_view',
    commandColumn: '_command',
    columns: { SKU: 'frmt_ref', Name: 'prod_title', Price: 'frmt_price' },
    fields: { prod_ref: { from: ['SKU'] } },
  }),
);

describe("the profile's option columns in a header of another letter case", () => {
  it('parentColumn, scopeColumn and commandColumn are read from "Parent", "Store_View" and "_COMMAND"', async () => {
    const feed = file(
      'parent.csv',
      [
        'SKU,Parent,Name,Price,_COMMAND,Store_View',
        'CASE-P,,Case product,,,',
        'CASE-V1,CASE-P,,12,,',
        'CASE-V2,CASE-P,,13,IGNORE,',
        'CASE-P,,Produit du magasin,,,fr_view',
        '',
      ].join('\n'),
    );

    const checked = await cli(['validate', feed, '--profile', parentProfile, '--json']);
    expect(checked.code, checked.stderr).toBe(0);
    const warnings = (JSON.parse(checked.stdout[0]!) as Summary).warnings;
    expect(warnings).toEqual(
      expect.arrayContaining([
        loosely('Parent', 'parent'),
        loosely('_COMMAND', '_command'),
        loosely('Store_View', 'store_view'),
      ]),
    );
    expect(warnings.join('\n')).not.toContain('does not match a field');

    const run = await cli(['import', feed, '--profile', parentProfile, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const products = await all('/Products');
    expect(products.map((p) => [p.prod_ref, p.prod_title])).toEqual([['CASE-P', 'Case product']]);
    // CASE-V1 is CASE-P's variant; CASE-V2's row is ignored by its command; the store view's row skipped.
    const variants = await all('/Variants');
    expect(variants.map((v) => [v.frmt_ref, v.prod_id, v.frmt_price])).toEqual([
      ['CASE-V1', products[0]!.prod_id, 12],
    ]);
  }, 60_000);

  it('fillDown fills the columns it names from headers of another case', async () => {
    const profile = file(
      'fill.json',
      JSON.stringify({
        entity: 'products',
        variants: true,
        fillDown: ['handle', 'name'],
        columns: { handle: 'prod_ref', name: 'prod_title', sku: 'frmt_ref', price: 'frmt_price' },
      }),
    );
    const feed = file(
      'fill.csv',
      ['Handle,Name,SKU,Price', 'fill-tee,Fill Tee,FT-S,10', ',,FT-M,11', ''].join('\n'),
    );
    const run = await cli(['import', feed, '--profile', profile, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const product = (await all('/Products')).find((p) => p.prod_ref === 'fill-tee')!;
    expect(product.prod_title).toBe('Fill Tee');
    const variants = (await all('/Variants')).filter((v) => String(v.frmt_ref).startsWith('FT-'));
    expect(variants.map((v) => [v.frmt_ref, v.prod_id]).sort()).toEqual([
      ['FT-M', product.prod_id],
      ['FT-S', product.prod_id],
    ]);
  }, 60_000);

  it('an option naming a column the header lacks is said; with --strict the rows are invalid', async () => {
    const feed = file('no-parent.csv', ['SKU,Name,Price', 'LONE-1,Lone,5', ''].join('\n'));
    const said = [
      'the profile\'s parentColumn "parent" is not in the file: the option does nothing',
      'the profile\'s scopeColumn "store_view" is not in the file: the option does nothing',
      'the profile\'s commandColumn "_command" is not in the file: the option does nothing',
    ];
    const checked = await cli(['validate', feed, '--profile', parentProfile, '--json']);
    expect(checked.code, checked.stderr).toBe(0);
    expect((JSON.parse(checked.stdout[0]!) as Summary).warnings).toEqual(expect.arrayContaining(said));

    const strict = await cli(['validate', feed, '--profile', parentProfile, '--strict', '--json']);
    expect(strict.code).toBe(1);
    const summary = JSON.parse(strict.stdout[0]!) as Summary;
    expect(summary.warnings).toEqual(
      expect.arrayContaining(said.map((line) => `${line} (--strict: the rows are invalid)`)),
    );
    expect(summary.outcomes.invalid).toBe(1);

    // The default command column may be missing without a word.
    const plain = file('plain.json', JSON.stringify({ entity: 'products', columns: { SKU: 'prod_ref' } }));
    const quiet = await cli(['validate', feed, '--profile', plain, '--json']);
    expect((JSON.parse(quiet.stdout[0]!) as Summary).warnings.join('\n')).not.toContain('commandColumn');
  }, 60_000);
});
