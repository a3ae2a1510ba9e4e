// A write whose answer is lost, and whose check (the look-up by ref that would tell whether it was made)
// fails too: the row is not reported failed, for the record may be there. It is not finished, its
// message says the write may have been made and that --resume checks it, the exit code is not 0; the
// resume finds the record and reports it created. The same for an image: said uncertain, not failed.
// The last of a POST's tries is looked up as the others (made: created; not made: failed, said so;
// the look-up failing: not finished). Rows that need a category whose creation is not finished (one
// their path names, or their parent row) are not finished either, not failed.
// Through a loopback proxy in front of the sandbox, as the CLI runs it.
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useFaultProxy } from '../helpers/fault-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { productsByRef, runCli, runIds, startCli, summaryOf } from './import.nightly.support.js';
import { byRef, damImages, readAll, readCsv, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let dir: string;
const proxy = useFaultProxy(() => fixture.sb.catalogUrl);

beforeAll(() => {
  dir = tempDir('import-uncertain');
});

const viaProxy = () => ({
  CATALOG_URL: proxy.via(fixture.sb.catalogUrl),
  DAM_URL: proxy.via(fixture.sb.damUrl),
  CATALOG_IO_TEST_TIME_SCALE: '0.05',
});

const args = (feed: string, ...more: string[]) => [
  'import',
  feed,
  '--report',
  'report.csv',
  '--rate-limit',
  'off',
  ...more,
];

async function setup(name: string, lines: string[]): Promise<{ cwd: string; feed: string }> {
  const cwd = join(dir, name);
  mkdirSync(cwd);
  return { cwd, feed: await writeFeed(cwd, 'feed.csv', lines.join('\n')) };
}

/**
 * The first request matching `write` is made but its answer is lost; the look-ups of `lookup` after it
 * fail (500) every time.
 */
function loseThenFailLookups(write: RegExp, lookup: RegExp) {
  let lost = false;
  return {
    kind: 'script' as const,
    answer: (method: string, path: string) => {
      if (!lost && method === 'POST' && write.test(path)) {
        lost = true;
        return 'lose' as const;
      }
      if (lost && method === 'GET' && lookup.test(path)) return 500;
      return 'pass' as const;
    },
  };
}

/**
 * Each POST matching `write` gives no answer that tells whether it was made: the first ones are answered
 * 500 without reaching the service (not made), the `lastMade`-th is made and its answer lost. With
 * `failLookups`, the look-ups of `lookup` after that one fail (500) every time.
 */
function unknownEachTry(write: RegExp, lookup: RegExp, lastMade: number, failLookups: boolean) {
  let posts = 0;
  return {
    kind: 'script' as const,
    answer: (method: string, path: string) => {
      if (method === 'POST' && write.test(path)) {
        posts += 1;
        return posts < lastMade ? 500 : posts === lastMade ? ('lose' as const) : 500;
      }
      if (failLookups && posts >= lastMade && method === 'GET' && lookup.test(path)) return 500;
      return 'pass' as const;
    },
  };
}

describe('a write whose answer is lost and whose check fails', () => {
  it('a product: not finished (not failed), the message says the POST may have been processed and --resume checks it; the resume reports it created', async () => {
    const { cwd, feed } = await setup('UNC', ['prod_ref,prod_title', 'UNC-1,Item 1']);
    await proxy.set(loseThenFailLookups(/\/Products\b/, /\/Products\b/));
    const first = await runCli(args(feed), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted.lost).toBe(1);
    expect(proxy.faulted['500']).toBeGreaterThan(1);
    // The record was created: the report must not say the row failed.
    const products = await productsByRef(fixture.sb);
    expect(Object.keys(products.byRef).filter((r) => r.startsWith('UNC-'))).toEqual(['UNC-1']);
    const [line, ...more] = await readCsv(join(cwd, 'report.csv'));
    expect(more).toEqual([]);
    expect(line!.ref).toBe('UNC-1');
    expect(line!.outcome).toBe('not-attempted');
    expect(line!.message).toMatch(/^not finished: /);
    expect(line!.message).toMatch(/the POST may have been processed/);
    expect(line!.message).toMatch(/the look-up by ref that would tell failed \(API_SERVER after \d+ tries: /);
    expect(line!.message).toMatch(/--resume \(or the next run\) checks it/);
    // Not a success either: the exit code says so, and the run is left to --resume.
    expect(first.code, first.stderr).not.toBe(0);
    expect(first.stderr).toMatch(/1 rows not finished: their write may have been made/);
    const [runId] = await runIds(cwd);
    const summary = await summaryOf(cwd, runId!);
    expect(summary.state).toBe('stopped');
    expect((summary.outcomes as Record<string, number>)['not-attempted']).toBe(1);

    await proxy.set({ kind: 'pass' });
    const resumed = await runCli(args(feed, '--resume'), cwd, fixture.sb, viaProxy());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await runIds(cwd)).toEqual([runId]);
    const after = await readCsv(join(cwd, 'report.csv'));
    expect(after.map((l) => [l.ref, l.outcome])).toEqual([['UNC-1', 'created']]);
    expect((await productsByRef(fixture.sb)).duplicates).toEqual([]);
  }, 60_000);

  it('an image: said uncertain, not failed; the row is written without it and says the next run checks it', async () => {
    const url = `${fixture.sb.assetsUrl}/unc-image.jpg`;
    const { cwd, feed } = await setup('UNCI', ['prod_ref,prod_title,prod_images', `UNCI-1,Item 1,${url}`]);
    await proxy.set(loseThenFailLookups(/\/images\b/, /\/images\b/));
    const run = await runCli(args(feed), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted.lost).toBe(1);
    // The DAM registered it.
    expect((await damImages(fixture.sb)).map((i) => i.reference)).toContain('unc-image.jpg');
    const [line] = await readCsv(join(cwd, 'report.csv'));
    expect(line!.outcome).toBe('created');
    expect(line!.assets).toMatch(/unc-image\.jpg uncertain \(/);
    expect(line!.assets).not.toMatch(/unc-image\.jpg failed/);
    expect(line!.assets).toMatch(/the POST may have been processed/);
    expect(line!.assets).toMatch(/the look-up that would tell failed/);
    expect(line!.warnings).toMatch(/image .*unc-image\.jpg left out: .*the next run checks it/);
    expect(run.stderr).toMatch(/assets: 0 registered, .*, 0 failed, 1 uncertain/);
  }, 60_000);
});

describe('the last of the POST tries: its outcome unknown too', () => {
  it('made, its look-up failing: not finished (not failed), as the other uncertain writes; the resume reports it created', async () => {
    const { cwd, feed } = await setup('LAST', ['prod_ref,prod_title', 'LAST-1,Item 1']);
    // The six tries (the retry policy's attempts): five not made, the sixth made and its answer lost.
    await proxy.set(unknownEachTry(/\/Products\b/, /\/Products\b/, 6, true));
    const first = await runCli(args(feed), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted.lost).toBe(1);
    const products = await productsByRef(fixture.sb);
    expect(Object.keys(products.byRef).filter((r) => r.startsWith('LAST-'))).toEqual(['LAST-1']);
    const [line, ...more] = await readCsv(join(cwd, 'report.csv'));
    expect(more).toEqual([]);
    expect(line!.outcome).toBe('not-attempted');
    expect(line!.message).toMatch(/^not finished: API_SERVER after 6 tries: Catalog API POST \/Products: /);
    expect(line!.message).toMatch(/the POST may have been processed/);
    expect(line!.message).toMatch(/the look-up by ref that would tell failed \(API_SERVER after \d+ tries: /);
    expect(line!.message).toMatch(/--resume \(or the next run\) checks it/);
    expect(first.code, first.stderr).not.toBe(0);
    expect(first.stderr).toMatch(/1 rows not finished: their write may have been made/);
    const [runId] = await runIds(cwd);
    const summary = await summaryOf(cwd, runId!);
    expect(summary.state).toBe('stopped');
    // summary.json leaves out the outcomes of no row.
    expect(summary.outcomes).toEqual({ 'not-attempted': 1 });

    await proxy.set({ kind: 'pass' });
    const resumed = await runCli(args(feed, '--resume'), cwd, fixture.sb, viaProxy());
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await readCsv(join(cwd, 'report.csv'));
    expect(after.map((l) => [l.ref, l.outcome])).toEqual([['LAST-1', 'created']]);
    expect((await productsByRef(fixture.sb)).duplicates).toEqual([]);
  }, 60_000);

  it('made, its look-up answering: created', async () => {
    const { cwd, feed } = await setup('LASTOK', ['prod_ref,prod_title', 'LASTOK-1,Item 1']);
    await proxy.set(unknownEachTry(/\/Products\b/, /\/Products\b/, 6, false));
    const run = await runCli(args(feed), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted.lost).toBe(1);
    expect(proxy.faulted['500']).toBe(5);
    const [line] = await readCsv(join(cwd, 'report.csv'));
    expect([line!.ref, line!.outcome]).toEqual(['LASTOK-1', 'created']);
    expect(line!.id).not.toBe('');
    expect(run.code, run.stderr).toBe(0);
    const products = await productsByRef(fixture.sb);
    expect(Object.keys(products.byRef).filter((r) => r.startsWith('LASTOK-'))).toEqual(['LASTOK-1']);
  }, 60_000);

  it('not made by any try, as the look-ups after each tell: failed, said not created, nothing to --resume', async () => {
    const { cwd, feed } = await setup('NONE', ['prod_ref,prod_title', 'NONE-1,Item 1']);
    // Never made: a seventh POST is never sent.
    await proxy.set(unknownEachTry(/\/Products\b/, /\/Products\b/, 7, false));
    const run = await runCli(args(feed), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted['500']).toBe(6);
    expect(proxy.faulted.lost).toBeUndefined();
    const [line] = await readCsv(join(cwd, 'report.csv'));
    expect(line!.outcome).toBe('failed');
    expect(line!.message).toMatch(/^API_SERVER after 6 tries: Catalog API POST \/Products: /);
    expect(line!.message).toMatch(/the look-up by ref after each try found no record: not created$/);
    expect(line!.message).not.toMatch(/may have been processed|--resume/);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).not.toMatch(/not finished/);
    expect(Object.keys((await productsByRef(fixture.sb)).byRef).filter((r) => r.startsWith('NONE-'))).toEqual(
      [],
    );
  }, 60_000);
});

describe('the last of an image registration’s tries: its outcome unknown too', () => {
  const imageFeed = async (name: string) => {
    const url = `${fixture.sb.assetsUrl}/${name.toLowerCase()}.jpg`;
    return { url, ...(await setup(name, ['prod_ref,prod_title,prod_images', `${name}-1,Item 1,${url}`])) };
  };

  it('not registered by any try, as the look-ups after each tell: failed, said not registered, not “may have been processed”', async () => {
    const { cwd, feed } = await imageFeed('INONE');
    // Never made: the six tries are answered 500 without reaching the DAM.
    await proxy.set(unknownEachTry(/\/images\b/, /\/images\b/, 7, false));
    const run = await runCli(args(feed), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted['500']).toBe(6);
    expect(proxy.faulted.lost).toBeUndefined();
    expect((await damImages(fixture.sb)).map((i) => i.reference)).not.toContain('inone.jpg');
    const [line] = await readCsv(join(cwd, 'report.csv'));
    expect(line!.outcome).toBe('created');
    expect(line!.assets).toMatch(
      /inone\.jpg failed \(API_SERVER after 6 tries: .*; the look-up after each try found no image: not registered\)/,
    );
    expect(line!.assets).not.toMatch(/may have been processed|check before trying again|uncertain/);
    expect(line!.warnings).toMatch(/image .*inone\.jpg left out: API_SERVER after 6 tries: /);
    expect(line!.warnings).not.toMatch(/may have been processed|check before trying again/);
    expect(run.stderr).toMatch(/assets: 0 registered, .*, 1 failed/);
    expect(run.stderr).not.toMatch(/\d+ uncertain/);
  }, 60_000);

  it('registered by the last try, its look-up failing: uncertain, not failed', async () => {
    const { cwd, feed } = await imageFeed('ILAST');
    await proxy.set(unknownEachTry(/\/images\b/, /\/images\b/, 6, true));
    const run = await runCli(args(feed), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted.lost).toBe(1);
    expect((await damImages(fixture.sb)).map((i) => i.reference)).toContain('ilast.jpg');
    const [line] = await readCsv(join(cwd, 'report.csv'));
    expect(line!.outcome).toBe('created');
    expect(line!.assets).toMatch(/ilast\.jpg uncertain \(/);
    expect(line!.assets).toMatch(/the look-up that would tell failed/);
    expect(line!.assets).not.toMatch(/ilast\.jpg failed/);
    expect(run.stderr).toMatch(/assets: 0 registered, .*, 0 failed, 1 uncertain/);
  }, 60_000);

  it('registered by the last try, its look-up answering: registered', async () => {
    const { cwd, feed } = await imageFeed('IOK');
    await proxy.set(unknownEachTry(/\/images\b/, /\/images\b/, 6, false));
    const run = await runCli(args(feed), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted.lost).toBe(1);
    expect(proxy.faulted['500']).toBe(5);
    const [line] = await readCsv(join(cwd, 'report.csv'));
    expect(line!.outcome).toBe('created');
    expect(line!.assets).toMatch(/iok\.jpg registered/);
    expect(line!.warnings).toBe('');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/assets: 1 registered/);
  }, 60_000);
});

describe('a category of a path whose creation is uncertain', () => {
  it('the rows that need it are not finished (not failed), the others written; the resume finishes them', async () => {
    const cwd = join(dir, 'UPATH');
    mkdirSync(cwd);
    const feed = await writeFeed(
      cwd,
      'feed.csv',
      [
        'SKU,Name,Categories',
        'UPATH-1,Spade,Upath Garden > Tools',
        'UPATH-2,Rake,',
        'UPATH-3,Hoe,Upath Garden',
      ].join('\n'),
    );
    await writeFeed(
      cwd,
      'profile.json',
      JSON.stringify({
        entity: 'products',
        columns: {
          SKU: 'prod_ref',
          Name: 'prod_title',
          Categories: { field: 'cat_refs', categoryPath: { separator: ' > ' } },
        },
      }),
    );
    // The first category's POST is made and its answer lost; the look-ups of categories fail after it.
    await proxy.set(loseThenFailLookups(/\/Categories\b/, /\/Categories\b/));
    const first = await runCli(args(feed, '--profile', 'profile.json'), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted.lost).toBe(1);
    const lines = await readCsv(join(cwd, 'report.csv'));
    expect(lines.map((l) => [l.ref, l.outcome])).toEqual([
      ['UPATH-1', 'not-attempted'],
      ['UPATH-2', 'created'],
      ['UPATH-3', 'not-attempted'],
    ]);
    for (const l of [lines[0]!, lines[2]!]) {
      expect(l.message).toMatch(/^not finished: category 'Upath Garden' may have been created: /);
      expect(l.message).toMatch(/the POST may have been processed/);
      expect(l.message).toMatch(/the look-up by ref that would tell failed/);
      expect(l.message).toMatch(/--resume \(or the next run\) checks it/);
    }
    expect(first.code, first.stderr).not.toBe(0);
    expect(first.stderr).toMatch(/2 rows not finished: their write may have been made/);
    const [runId] = await runIds(cwd);
    const summary = await summaryOf(cwd, runId!);
    expect(summary.state).toBe('stopped');
    expect(summary.outcomes).toEqual({ created: 1, 'not-attempted': 2 });

    await proxy.set({ kind: 'pass' });
    const resumed = await runCli(
      args(feed, '--profile', 'profile.json', '--resume'),
      cwd,
      fixture.sb,
      viaProxy(),
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await readCsv(join(cwd, 'report.csv'));
    // Each row once, in the file's order: the row finished before (UPATH-2) between the two finished now.
    expect(after.map((l) => [l.location, l.ref, l.outcome])).toEqual([
      ['line 2', 'UPATH-1', 'created'],
      ['line 3', 'UPATH-2', 'created'],
      ['line 4', 'UPATH-3', 'created'],
    ]);
    // UPATH-2's line is the one the first attempt wrote.
    expect(after[1]).toEqual(lines[1]);
    // The category the lost POST made is found, not made twice.
    const titles = (await readAll(fixture.sb, '/Categories')).map((c) => c.cat_title);
    expect(titles.filter((t) => t === 'Upath Garden')).toHaveLength(1);
    expect(titles.filter((t) => t === 'Tools')).toHaveLength(1);
    const categories = await byRef(fixture.sb, '/Categories', 'cat_ref');
    const products = await productsByRef(fixture.sb);
    expect(products.byRef['UPATH-1']!.cat_ids).toEqual([categories.get('upath-garden/tools')!.cat_id]);
    expect(products.byRef['UPATH-3']!.cat_ids).toEqual([categories.get('upath-garden')!.cat_id]);
  }, 60_000);
});

describe('a category row whose parent row is not finished', () => {
  it('its creation uncertain: the child is not finished (not failed); the resume writes both', async () => {
    const { cwd, feed } = await setup('UCAT', [
      'cat_ref,cat_title,cat_parent_ref',
      'UCAT-A,Ucat parent,',
      'UCAT-B,Ucat child,UCAT-A',
    ]);
    await proxy.set(loseThenFailLookups(/\/Categories\b/, /\/Categories\b/));
    const first = await runCli(args(feed, '--entity', 'categories'), cwd, fixture.sb, viaProxy());
    expect(proxy.faulted.lost).toBe(1);
    const lines = await readCsv(join(cwd, 'report.csv'));
    expect(lines.map((l) => [l.ref, l.outcome])).toEqual([
      ['UCAT-A', 'not-attempted'],
      ['UCAT-B', 'not-attempted'],
    ]);
    expect(lines[1]!.message).toBe(
      "not finished: the parent category 'UCAT-A' may have been created: its row is not finished; --resume (or the next run) checks it and finishes it",
    );
    expect(first.code, first.stderr).not.toBe(0);
    expect(first.stderr).toMatch(/2 rows not finished: their write may have been made/);

    await resumeWritesParentAndChild(cwd, feed, 'UCAT');
  }, 60_000);

  it('cut short by a signal: the child is not finished (not failed), and the resume writes it', async () => {
    const { cwd, feed } = await setup('SCAT', [
      'cat_ref,cat_title,cat_parent_ref',
      'SCAT-A,Scat parent,',
      'SCAT-B,Scat child,SCAT-A',
    ]);
    // The parent's POST is held (a look-up's URL has a query: it passes); SIGTERM cuts it.
    await proxy.set({ kind: 'hang', paths: /\/Categories$/ });
    const child = startCli(args(feed, '--entity', 'categories'), cwd, fixture.sb, viaProxy());
    for (let waited = 0; !proxy.faulted.hang; waited += 20) {
      if (waited > 20_000) throw new Error(`the POST never came:\n${child.stderr()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.process.kill('SIGTERM');
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(143);
    const lines = await readCsv(join(cwd, 'report.csv'));
    expect(lines.map((l) => [l.ref, l.outcome])).toEqual([
      ['SCAT-A', 'not-attempted'],
      ['SCAT-B', 'not-attempted'],
    ]);

    await resumeWritesParentAndChild(cwd, feed, 'SCAT');
  }, 60_000);
});

/**
 * The proxy lets everything pass and `--resume` runs: both category rows `<prefix>-A` (the parent) and
 * `<prefix>-B` (its child) are created, the child below the parent.
 */
async function resumeWritesParentAndChild(cwd: string, feed: string, prefix: string): Promise<void> {
  await proxy.set({ kind: 'pass' });
  const resumed = await runCli(args(feed, '--entity', 'categories', '--resume'), cwd, fixture.sb, viaProxy());
  expect(resumed.code, resumed.stderr).toBe(0);
  const after = await readCsv(join(cwd, 'report.csv'));
  expect(after.map((l) => [l.ref, l.outcome])).toEqual([
    [`${prefix}-A`, 'created'],
    [`${prefix}-B`, 'created'],
  ]);
  const categories = await byRef(fixture.sb, '/Categories', 'cat_ref');
  expect(categories.get(`${prefix}-B`)!.cat_parent_id).toBe(categories.get(`${prefix}-A`)!.cat_id);
}

describe('a workbook imported whole', () => {
  it('a sheet with rows not finished: the summary file says so, and its state, though a sheet after it finished', async () => {
    const cwd = join(dir, 'UBOOK');
    mkdirSync(cwd);
    const book = new ExcelJS.Workbook();
    book.addWorksheet('Categories').addRows([
      ['cat_ref', 'cat_title'],
      ['UBOOK-C', 'Ubook category'],
    ]);
    book.addWorksheet('Products').addRows([
      ['prod_ref', 'prod_title'],
      ['UBOOK-P', 'Ubook product'],
    ]);
    await book.xlsx.writeFile(join(cwd, 'book.xlsx'));
    // The category's POST is made and its answer lost; the look-ups of categories fail after it.
    await proxy.set(loseThenFailLookups(/\/Categories\b/, /\/Categories\b/));
    const run = await runCli(
      args(join(cwd, 'book.xlsx'), '--summary', 'summary.json'),
      cwd,
      fixture.sb,
      viaProxy(),
    );
    expect(proxy.faulted.lost).toBe(1);
    const lines = await readCsv(join(cwd, 'report.csv'));
    expect(lines.map((l) => [l.ref, l.outcome])).toEqual([
      ['UBOOK-C', 'not-attempted'],
      ['UBOOK-P', 'created'],
    ]);
    // --resume is refused for a workbook imported whole: the row says the next run checks it.
    expect(lines[0]!.message).toMatch(/^not finished: .*the POST may have been processed/);
    expect(lines[0]!.message).toMatch(/; the next run checks it and finishes it$/);
    expect(lines[0]!.message).not.toMatch(/--resume/);
    expect(run.code, run.stderr).toBe(1);
    const summary = JSON.parse(await readFile(join(cwd, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(summary.exitCode).toBe(1);
    expect(summary.state).toBe('stopped');
    expect(summary.message).toBe(
      'Finished: 2 rows in 2 sheets, none failed. 1 rows not finished: their write may have been made and could not be checked; run the same command again to check and finish them.',
    );
  }, 60_000);
});
