// validate judges references as the import resolves them, and each case is run through validate, the
// plan and the import on one sandbox and held to the same verdict row by row: a product later in the
// same batch is written before its variant; one beyond the batch is not; a record whose row is invalid is
// never written; a category's parent may come anywhere later; a DAM name must be in the DAM or registered
// from a URL of the file before; what only a registration can tell is a warning on a valid row.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disagreements, type TrialLine, tryFeed } from '../helpers/feed-trial.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ remoteAssets: 'synthetic' });
const home = process.cwd();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-references-'));
  process.chdir(dir);
});
afterAll(() => process.chdir(home));

async function feed(name: string, lines: string[], profile?: object) {
  const file = join(dir, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  let profileFile = false as string | false;
  if (profile) {
    profileFile = join(dir, `${name}.profile.json`);
    await writeFile(profileFile, JSON.stringify(profile));
  }
  return { file, profile: profileFile };
}

const byRef = (lines: TrialLine[]) => Object.fromEntries(lines.map((l) => [l.ref, l]));

const VARIATIONS = {
  entity: 'products',
  variants: true,
  parentColumn: 'Parent',
  autoColumns: false,
  columns: { SKU: 'frmt_ref', Name: 'prod_title', Price: 'frmt_price' },
  fields: { prod_ref: { from: ['SKU'] } },
};

describe('validate predicts how the import resolves references', () => {
  it('a variant before its product: valid in the same batch, invalid when the product is a batch or more later', async () => {
    const rows = ['SKU,Parent,Name,Price', 'RV-1,RP-1,,10', 'RP-1,,Shirt,', 'RV-LATE,RP-LATE,,12'];
    for (let i = 0; i < 120; i++) rows.push(`RX-${i},,Thing ${i},`);
    rows.push('RP-LATE,,Late,');
    const { file, profile } = await feed('variations.csv', rows, VARIATIONS);
    const t = await tryFeed(fixture.sb, file, { dir, profile });
    expect(disagreements(t)).toEqual([]);
    const v = byRef(t.validate.lines);
    expect(v['RV-1']!.outcome).toBe('valid');
    expect(v['RV-LATE']).toMatchObject({
      outcome: 'invalid',
      column: 'Parent',
      value: 'RP-LATE',
      message:
        'column "Parent": products "RP-LATE" comes later in the file (line 125): the import writes it after this row; put it before',
    });
    expect(byRef(t.imported.lines)['RV-LATE']!.outcome).toBe('failed');
    expect(byRef(t.imported.lines)['RV-1']!.outcome).toBe('created');
  });

  it("a category's parent may come anywhere later; one whose row is invalid makes its children invalid", async () => {
    const rows = ['cat_ref,cat_parent_ref,cat_title', 'RC-CHILD,RC-PARENT,Child', 'RC-ORPHAN,RC-BAD,Orphan'];
    for (let i = 0; i < 150; i++) rows.push(`RC-${i},,Filler ${i}`);
    // A title of 300 characters: the write-schema refuses it.
    rows.push('RC-PARENT,,Parent', `RC-BAD,,${'x'.repeat(300)}`);
    const { file } = await feed('categories.csv', rows);
    const t = await tryFeed(fixture.sb, file, { dir, profile: false, feed: ['--entity', 'categories'] });
    expect(disagreements(t)).toEqual([]);
    const v = byRef(t.validate.lines);
    expect(v['RC-CHILD']!.outcome).toBe('valid');
    expect(v['RC-BAD']!.outcome).toBe('invalid');
    expect(v['RC-ORPHAN']).toMatchObject({
      outcome: 'invalid',
      message: 'column "cat_parent_ref": categories "RC-BAD" is not written: its row (line 155) is invalid',
    });
  });

  it('a DAM name not in the DAM, nor registered from a URL of the file before the row, is left out with a warning', async () => {
    const { file } = await feed('images.csv', [
      'prod_ref,prod_title,prod_images',
      `RI-1,One,https://img.example.com/shots/ri-front.jpg`,
      'RI-2,Two,ri-front.jpg',
      'RI-3,Three,ri-never-registered.jpg',
    ]);
    const t = await tryFeed(fixture.sb, file, { dir, profile: false, feed: ['--entity', 'products'] });
    expect(disagreements(t)).toEqual([]);
    const v = byRef(t.validate.lines);
    expect(v['RI-1']).toMatchObject({
      outcome: 'valid',
      warnings: 'image not checked: the DAM fetches https://img.example.com/shots/ri-front.jpg on import',
    });
    expect(v['RI-2']).toMatchObject({ outcome: 'valid', warnings: '' });
    expect(v['RI-3']).toMatchObject({
      outcome: 'valid',
      warnings:
        'column "prod_images": image "ri-never-registered.jpg" is neither in the DAM nor registered from a URL of the file before this row: the import writes the record without it',
    });
    // The import writes it without the image, and says so.
    expect(byRef(t.imported.lines)['RI-3']).toMatchObject({
      outcome: 'created',
      warnings:
        "image ri-never-registered.jpg left out: the image 'ri-never-registered.jpg' does not exist in the DAM",
    });
  });

  it('what the DAM refuses by the URL alone is a warning on a valid row, and the import writes the record without it', async () => {
    const { file } = await feed('refused.csv', [
      'prod_ref,prod_title,prod_images',
      'RW-1,One,http://localhost/img/rw-1.jpg',
      'RW-2,Two,https://img.example.com/a/rw-same.jpg',
      'RW-3,Three,https://img.example.com/b/rw-same.jpg',
    ]);
    const t = await tryFeed(fixture.sb, file, { dir, profile: false, feed: ['--entity', 'products'] });
    expect(disagreements(t)).toEqual([]);
    const v = byRef(t.validate.lines);
    expect(v['RW-1']).toMatchObject({
      outcome: 'valid',
      warnings:
        "image 'http://localhost/img/rw-1.jpg': the DAM refuses the host 'localhost': the import writes the record without it",
    });
    expect(v['RW-3']!.warnings).toBe(
      "image 'https://img.example.com/b/rw-same.jpg': the file name 'rw-same.jpg' is already used by https://img.example.com/a/rw-same.jpg (the DAM keys assets by file name): the import writes the record without it",
    );
    const done = byRef(t.imported.lines);
    expect([done['RW-1']!.outcome, done['RW-3']!.outcome]).toEqual(['created', 'created']);
    expect(done['RW-1']!.warnings).not.toBe('');
    expect(done['RW-3']!.warnings).not.toBe('');
  });

  it('under --on-asset-error fail, what the DAM refuses by the URL makes the row invalid, as the import fails it', async () => {
    const { file } = await feed('refused-strict.csv', [
      'prod_ref,prod_title,prod_images',
      'RS-1,One,http://10.0.0.7/img/rs-1.jpg',
      'RS-2,Two,https://img.example.com/a/rs-2.jpg',
      'RS-3,Three,rs-not-in-dam.jpg',
    ]);
    const t = await tryFeed(fixture.sb, file, {
      dir,
      profile: false,
      feed: ['--entity', 'products', '--on-asset-error', 'fail'],
    });
    expect(disagreements(t)).toEqual([]);
    const v = byRef(t.validate.lines);
    expect(v['RS-1']).toMatchObject({
      outcome: 'invalid',
      column: 'prod_images',
      message:
        "column \"prod_images\": image 'http://10.0.0.7/img/rs-1.jpg': the DAM refuses the host '10.0.0.7'",
    });
    expect(v['RS-2']!.outcome).toBe('valid');
    expect(v['RS-3']!.outcome).toBe('invalid');
    expect(t.imported.lines.map((l) => l.outcome)).toEqual(['failed', 'created', 'failed']);
  });
});
