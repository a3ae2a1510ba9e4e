// A stray quote kept in a reference is written as given, with a warning on the row in validate, the plan
// and the import alike: eShopOnContainers' `Roslyn Red T-Shirt",12,7.png` (record 7, line 8), whose Name
// is also the ref (the feed has no SKU column), tried as a new user tries it; and a plain table whose
// rows validate judges in its quick lane. A ref quoted as CSV quotes a quote (`"12"" PAN"`) holds the
// file's own quote: no warning.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Trial, trialSteps, tryFeed } from '../helpers/feed-trial.js';
import { useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';

const eshop = useSandbox({ remoteAssets: 'synthetic' });
const plain = useSandbox();
let dir: string;
let trial: Trial;
let table: Trial;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quoted-ref-'));
  trial = await tryFeed(eshop.sb, join(REALWORLD, 'eshoponcontainersai_CatalogItems.csv'), { dir });
  const feed = join(dir, 'plain.csv');
  await writeFile(
    feed,
    'prod_ref,prod_title\nQ-1,Lamp\nQ-2",Desk\n"12"" PAN",Pan\n"Pan 14""",Pan\nQ-5","Desk 12"" wide"\n',
  );
  table = await tryFeed(plain.sb, feed, { dir, profile: false, feed: ['--entity', 'products'] });
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
});
