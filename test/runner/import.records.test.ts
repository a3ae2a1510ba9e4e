// importFile against a real sandbox: create, update, unchanged, every _command, --mode, multilingual
// fields, a value the API refuses, --plan, and a second run that writes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import {
  byRef,
  importWith,
  readCsv,
  resetStats,
  stats,
  tempDir,
  writeFeed,
  writesOf,
} from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let dir: string;

beforeAll(() => {
  dir = tempDir('import-records');
});

describe('create, update, unchanged', () => {
  it('creates new refs, patches only changed fields, and leaves equal rows alone', async () => {
    const { sb } = fixture;
    const first = await writeFeed(
      dir,
      'first.csv',
      'prod_ref,prod_title,prod_weight,prod_tags\nR-1,Shirt,0.5,a|b\nR-2,Pants,1.25,\nR-3,Hat,0.1,c\n',
    );
    const created = await importWith(sb, first);
    expect(created.outcomes.created).toBe(3);
    expect(created.outcomes.failed + created.outcomes.invalid).toBe(0);

    const second = await writeFeed(
      dir,
      'second.csv',
      'prod_ref,prod_title,prod_weight,prod_tags\nR-1,Shirt,0.50,a|b\nR-2,Trousers,1.25,\nR-3,Hat,0.2,c|d\n',
    );
    await resetStats(sb);
    const report = `${dir}/second.report.csv`;
    const updated = await importWith(sb, second, { reportFile: report });
    expect(updated.outcomes).toMatchObject({ unchanged: 1, updated: 2, created: 0 });
    const s = await stats(sb);
    expect(s.byMethod.PATCH).toBe(2);
    expect(s.byMethod.POST ?? 0).toBe(0);

    const lines = await readCsv(report);
    expect(lines.map((l) => [l.ref, l.outcome, l.changed])).toEqual([
      ['R-1', 'unchanged', ''],
      ['R-2', 'updated', 'prod_title_en'],
      ['R-3', 'updated', 'prod_weight; prod_tags'],
    ]);
    expect(lines[0]!.location).toBe('line 2');

    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('R-2')!.prod_title).toBe('Trousers');
    expect(products.get('R-3')!.prod_weight).toBe(0.2);
    expect(products.get('R-3')!.prod_tags).toEqual(['c', 'd']);
  });

  it('a second import of the same file sends no POST, PATCH or DELETE', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'again.csv',
      'prod_ref,prod_title,prod_title_fr,prod_weight,prod_is_new,prod_release_date\nA-1,Lamp,Lampe,2,true,2024-05-01\nA-2,Desk,Bureau,20.5,false,\n',
    );
    const first = await importWith(sb, feed);
    expect(first.outcomes.created).toBe(2);
    await resetStats(sb);
    const again = await importWith(sb, feed);
    expect(again.outcomes.unchanged).toBe(2);
    const s = await stats(sb);
    expect(writesOf(s)).toBe(0);
    expect(Object.keys(s.byMethod)).toEqual(['GET']);
  });
});

describe('_command and --mode', () => {
  it('MERGE, NEW on an existing ref, UPDATE on a missing ref, DELETE, IGNORE', async () => {
    const { sb } = fixture;
    await importWith(
      sb,
      await writeFeed(dir, 'cmd-base.csv', 'prod_ref,prod_title\nC-1,One\nC-2,Two\nC-3,Three\n'),
    );
    const feed = await writeFeed(
      dir,
      'cmd.csv',
      [
        '_command,prod_ref,prod_title',
        'MERGE,C-1,One again',
        'MERGE,C-9,Nine',
        'NEW,C-2,Two twice',
        'UPDATE,C-404,Nobody',
        'DELETE,C-3,',
        'IGNORE,C-2,Whatever',
        'DELETE,C-405,',
      ].join('\n'),
    );
    const report = `${dir}/cmd.report.csv`;
    const summary = await importWith(sb, feed, { reportFile: report });
    const lines = await readCsv(report);
    // The IGNORE row is not written nor judged; its line names its record (a full sync keeps it).
    expect(lines.map((l) => [l.location, l.ref, l.outcome])).toEqual([
      ['line 2', 'C-1', 'updated'],
      ['line 3', 'C-9', 'created'],
      ['line 4', 'C-2', 'failed'],
      ['line 5', 'C-404', 'failed'],
      ['line 6', 'C-3', 'deleted'],
      ['line 7', 'C-2', 'skipped'],
      ['line 8', 'C-405', 'skipped'],
    ]);
    expect(lines[2]!.message).toMatch(/prod_ref 'C-2' already exists/);
    expect(lines[3]!.message).toMatch(/prod_ref 'C-404' does not exist/);
    expect(lines[6]!.message).toMatch(/nothing to delete/);
    expect(summary.outcomes.failed).toBe(2);

    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('C-1')!.prod_title).toBe('One again');
    expect(products.get('C-2')!.prod_title).toBe('Two');
    expect(products.has('C-3')).toBe(false);
    expect(products.has('C-9')).toBe(true);
    expect(products.has('C-404')).toBe(false);
  });

  it('--mode create refuses existing refs; --mode update refuses new ones', async () => {
    const { sb } = fixture;
    await importWith(sb, await writeFeed(dir, 'mode-base.csv', 'prod_ref,prod_title\nM-1,Old\n'));
    const feed = await writeFeed(dir, 'mode.csv', 'prod_ref,prod_title\nM-1,Changed\nM-2,Fresh\n');

    const create = await importWith(sb, feed, { mode: 'create', reportFile: `${dir}/mode-create.csv` });
    expect(create.outcomes).toMatchObject({ created: 1, failed: 1 });
    let products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('M-1')!.prod_title).toBe('Old');
    expect(products.get('M-2')!.prod_title).toBe('Fresh');

    const feed2 = await writeFeed(dir, 'mode2.csv', 'prod_ref,prod_title\nM-1,Changed\nM-3,Never\n');
    const update = await importWith(sb, feed2, { mode: 'update' });
    expect(update.outcomes).toMatchObject({ updated: 1, failed: 1, created: 0 });
    products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('M-1')!.prod_title).toBe('Changed');
    expect(products.has('M-3')).toBe(false);
  });
});

describe('multilingual fields', () => {
  it('sends every language of a row in one request and reads each back in its culture', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'ml.csv',
      'prod_ref,prod_title,prod_title_fr,prod_title_es\nL-1,Chair,Chaise,Silla\n',
    );
    await resetStats(sb);
    const summary = await importWith(sb, feed);
    expect(summary.outcomes.created).toBe(1);
    expect((await stats(sb)).byMethod.POST).toBe(1);
    expect((await byRef(sb, '/Products', 'prod_ref', 'fr')).get('L-1')!.prod_title).toBe('Chaise');
    expect((await byRef(sb, '/Products', 'prod_ref', 'es')).get('L-1')!.prod_title).toBe('Silla');
    expect((await byRef(sb, '/Products', 'prod_ref', 'en')).get('L-1')!.prod_title).toBe('Chair');

    // Only the French title changes: one PATCH carrying only that culture.
    const changed = await writeFeed(
      dir,
      'ml2.csv',
      'prod_ref,prod_title,prod_title_fr,prod_title_es\nL-1,Chair,Fauteuil,Silla\n',
    );
    await resetStats(sb);
    const report = `${dir}/ml2.report.csv`;
    const again = await importWith(sb, changed, { reportFile: report });
    expect(again.outcomes.updated).toBe(1);
    expect((await stats(sb)).byMethod.PATCH).toBe(1);
    expect((await readCsv(report))[0]!.changed).toBe('prod_title_fr');
    expect((await byRef(sb, '/Products', 'prod_ref', 'fr')).get('L-1')!.prod_title).toBe('Fauteuil');
    expect((await byRef(sb, '/Products', 'prod_ref', 'es')).get('L-1')!.prod_title).toBe('Silla');
  });
});

describe('an image name the DAM does not hold', () => {
  it('an image name not in the DAM is left out with a warning (one lookup, no refused write); --on-asset-error fail fails that row, the rest go on', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'refused.csv',
      'prod_ref,prod_title,prod_images\nX-1,Fine,\nX-2,Broken,no-such-image.jpg\nX-3,Also fine,\n',
    );
    const report = `${dir}/refused.report.csv`;
    const summary = await importWith(sb, feed, { reportFile: report });
    expect(summary.outcomes).toMatchObject({ created: 3, failed: 0 });
    const line = (await readCsv(report)).find((l) => l.ref === 'X-2')!;
    expect(line.outcome).toBe('created');
    expect(line.warnings).toBe(
      "image no-such-image.jpg left out: the image 'no-such-image.jpg' does not exist in the DAM",
    );

    const strict = await writeFeed(
      dir,
      'refused-strict.csv',
      'prod_ref,prod_title,prod_images\nXS-1,Fine,\nXS-2,Broken,no-such-image.jpg\nXS-3,Also fine,\n',
    );
    const strictReport = `${dir}/refused-strict.report.csv`;
    const rejects = `${dir}/refused.rejects.csv`;
    const failed = await importWith(sb, strict, {
      reportFile: strictReport,
      rejectsFile: rejects,
      onAssetError: 'fail',
    });
    expect(failed.outcomes).toMatchObject({ created: 2, failed: 1 });
    const refused = (await readCsv(strictReport)).find((l) => l.ref === 'XS-2')!;
    expect(refused.outcome).toBe('failed');
    expect(refused.message).toContain("the image 'no-such-image.jpg' does not exist in the DAM");

    const rejected = await readCsv(rejects);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!).toMatchObject({
      prod_ref: 'XS-2',
      prod_title: 'Broken',
      prod_images: 'no-such-image.jpg',
    });
    expect(rejected[0]!._error).toContain('no-such-image.jpg');
  });
});

describe('--plan', () => {
  it('writes nothing and says what would change, old -> new', async () => {
    const { sb } = fixture;
    await importWith(
      sb,
      await writeFeed(
        dir,
        'plan-base.csv',
        'prod_ref,prod_title,prod_weight\nP-1,Cup,0.3\nP-2,Mug,0.4\nP-4,Jug,2\n',
      ),
    );
    const feed = await writeFeed(
      dir,
      'plan.csv',
      '_command,prod_ref,prod_title,prod_weight\n,P-1,Cup,0.35\n,P-2,Mug,0.4\n,P-3,Bowl,1\nDELETE,P-4,,\n',
    );
    await resetStats(sb);
    const report = `${dir}/plan.report.csv`;
    const summary = await importWith(sb, feed, { plan: true, reportFile: report });
    expect(summary.plan).toBe(true);
    const s = await stats(sb);
    expect(writesOf(s)).toBe(0);
    const lines = await readCsv(report);
    expect(lines.map((l) => [l.ref, l.outcome])).toEqual([
      ['P-1', 'would-update'],
      ['P-2', 'unchanged'],
      ['P-3', 'would-create'],
      ['P-4', 'would-delete'],
    ]);
    expect(lines[0]!.changed).toBe('prod_weight: 0.3 -> 0.35');
    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('P-1')!.prod_weight).toBe(0.3);
    expect(products.has('P-3')).toBe(false);
    expect(products.has('P-4')).toBe(true);
  });
});
