// A stray quote kept in a reference is written as given, with a warning on the row in validate, the plan
// and the import alike: eShopOnContainers' `Roslyn Red T-Shirt",12,7.png` (record 7, line 8), whose Name
// is also the ref (the feed has no SKU column), tried as a new user tries it; and a plain table whose
// rows validate judges in its quick lane. A ref quoted as CSV quotes a quote (`"12"" PAN"`) holds the
// file's own quote: no warning. Nor in an XLSX cell or a JSON string, which no quoting wraps: a quote
// there is the cell's own text.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Trial, trialSteps, tryFeed } from '../helpers/feed-trial.js';
import { useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';

const eshop = useSandbox({ remoteAssets: 'synthetic' });
const plain = useSandbox();
let dir: string;
let trial: Trial;
let table: Trial;
let unquoted: Trial[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quoted-ref-'));
  trial = await tryFeed(eshop.sb, join(REALWORLD, 'eshoponcontainersai_CatalogItems.csv'), { dir });
  const feed = join(dir, 'plain.csv');
  await writeFile(
    feed,
    'prod_ref,prod_title\nQ-1,Lamp\nQ-2",Desk\n"12"" PAN",Pan\n"Pan 14""",Pan\nQ-5","Desk 12"" wide"\n',
  );
  table = await tryFeed(plain.sb, feed, { dir, profile: false, feed: ['--entity', 'products'] });
  const json = join(dir, 'plain.ndjson');
  await writeFile(
    json,
    '{"prod_ref":"J-1","prod_title":"Lamp"}\n{"prod_ref":"J-2\\"","prod_title":"Desk"}\n',
  );
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Products');
  sheet.addRows([
    ['prod_ref', 'prod_title'],
    ['X-1', 'Lamp'],
    ['X-2"', 'Desk'],
  ]);
  const xlsx = join(dir, 'plain.xlsx');
  await workbook.xlsx.writeFile(xlsx);
  unquoted = [];
  for (const file of [json, xlsx])
    unquoted.push(await tryFeed(plain.sb, file, { dir, profile: false, feed: ['--entity', 'products'] }));
}, 120_000);

describe('a reference with a stray quote', () => {
  it('eShopOnContainers line 8: written as given, with a warning in the three reports', () => {
    const said =
      'column "Name": the reference "Roslyn Red T-Shirt\\"" holds a double quote ("), kept as part of it: a stray quote in the file?';
    for (const [name, step] of Object.entries(trialSteps(trial))) {
      expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(0);
      const line = step.lines.find((l) => l.location === 'line 8');
      expect(line?.ref, name).toBe('Roslyn Red T-Shirt"');
      expect(line?.warnings?.split('; '), name).toContain(said);
      // Said once, though the row drafts a product and a variant with that ref.
      expect(line?.warnings?.split(said).length, name).toBe(2);
      const others = step.lines.filter((l) => l.location !== 'line 8');
      expect(
        others.filter((l) => l.warnings?.includes('double quote')),
        name,
      ).toEqual([]);
    }
    expect(trial.imported.lines.find((l) => l.location === 'line 8')?.outcome).toBe('created');
  });

  it('a plain table (validate’s quick lane): the same warning, and the row is valid', () => {
    const said =
      'column "prod_ref": the reference "Q-2\\"" holds a double quote ("), kept as part of it: a stray quote in the file?';
    for (const [name, step] of Object.entries(trialSteps(table))) {
      expect(
        step.lines.map((l) => [l.location, l.warnings ?? '']),
        name,
      ).toEqual([
        ['line 2', ''],
        ['line 3', said],
        // Quoted cells with an escaped quote: the quote is meant.
        ['line 4', ''],
        ['line 5', ''],
        // A stray quote in the ref, though another cell of the row quotes a quote as it should.
        ['line 6', said.replace('Q-2', 'Q-5')],
      ]);
      expect(
        step.lines.map((l) => l.ref),
        name,
      ).toEqual(['Q-1', 'Q-2"', '12" PAN', 'Pan 14"', 'Q-5"']);
    }
    expect(table.validate.lines[1]?.outcome).toBe('valid');
    // The row names no image: it is not among the rows written without one.
    expect(table.imported.summary).toMatchObject({ assetWarnings: 0 });
  });

  it("an XLSX cell or a JSON string: the quote is the cell's own, no warning; written as given", () => {
    for (const [i, trial] of unquoted.entries()) {
      const refs = i === 0 ? ['J-1', 'J-2"'] : ['X-1', 'X-2"'];
      for (const [name, step] of Object.entries(trialSteps(trial))) {
        expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(0);
        expect(
          step.lines.map((l) => [l.ref, l.warnings ?? '']),
          name,
        ).toEqual(refs.map((ref) => [ref, '']));
      }
      expect(trial.imported.lines.map((l) => l.outcome)).toEqual(['created', 'created']);
    }
  });
});
