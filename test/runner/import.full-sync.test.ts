// Full sync (`--missing delete`): the records the feed no longer names are deleted (a product's
// variants first), and reported; rows that failed or were invalid are never counted missing; a
// truncated feed trips --max-missing (exit 3, nothing deleted, the refs listed); --plan deletes nothing.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, useSandbox } from '../helpers/sandbox.js';
import { runCli, runIds, summaryOf } from './import.nightly.support.js';
import { byRef, readAll, readCsv, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let cwd: string;

const feedOf = (from: number, to: number, extra: string[] = []) => {
  const rows = ['prod_ref,prod_title,prod_weight'];
  for (let i = from; i <= to; i++) rows.push(`FS-${i},Item ${i},${i}`);
  return [...rows, ...extra].join('\n');
};

const sync = (feed: string, report: string, ...more: string[]) => [
  'import',
  feed,
  '--missing',
  'delete',
  '--report',
  report,
  '--rate-limit',
  'off',
  ...more,
];

beforeAll(async () => {
  cwd = tempDir('import-full-sync');
  const all = await writeFeed(cwd, 'all.csv', feedOf(1, 40));
  const seeded = await runCli(['import', all, '--rate-limit', 'off'], cwd, fixture.sb);
  expect(seeded.code, seeded.stderr).toBe(0);
  // FS-40 has two variants.
  const products = await byRef(fixture.sb, '/Products', 'prod_ref');
  const id = products.get('FS-40')!.prod_id;
  for (const ref of ['FS-40-S', 'FS-40-M']) {
    const res = await call(fixture.sb.catalogUrl, '/Variants', {
      method: 'POST',
      key: fixture.sb.apiKey,
      body: { frmt_ref: ref, prod_id: id, frmt_price: 1 },
    });
    expect(res.status, res.text).toBe(201);
  }
}, 300_000);

describe('--missing delete', () => {
  it('--plan lists what would go and deletes nothing', async () => {
    const feed = await writeFeed(cwd, 'plan.csv', feedOf(1, 39));
    const run = await runCli(sync(feed, 'plan.report.csv', '--plan'), cwd, fixture.sb);
    expect(run.code, run.stderr).toBe(0);
    const lines = await readCsv(join(cwd, 'plan.report.csv'));
    expect(lines.filter((l) => l.outcome === 'would-delete').map((l) => l.ref)).toEqual(['FS-40']);
    expect((await byRef(fixture.sb, '/Products', 'prod_ref')).has('FS-40')).toBe(true);
  }, 300_000);

  it('a row told IGNORE keeps its record: it is in the feed, only not to be touched', async () => {
    const rows = feedOf(1, 40).split('\n');
    const ignored = ['_command,prod_ref,prod_title,prod_weight', ...rows.slice(1).map((r) => `,${r}`)];
    ignored[40] = `IGNORE,${rows[40]}`;
    const feed = await writeFeed(cwd, 'ignore.csv', ignored.join('\n'));
    const run = await runCli(sync(feed, 'ignore.report.csv', '--plan'), cwd, fixture.sb);
    expect(run.code, run.stderr).toBe(0);
    const lines = await readCsv(join(cwd, 'ignore.report.csv'));
    expect(lines.find((l) => l.location === 'line 41')).toMatchObject({ ref: 'FS-40', outcome: 'skipped' });
    expect(lines.filter((l) => l.outcome === 'would-delete')).toEqual([]);
  }, 300_000);

  it('a truncated feed trips --max-missing: exit 3, nothing deleted, the refs that would go are reported', async () => {
    const feed = await writeFeed(cwd, 'truncated.csv', feedOf(1, 20));
    const run = await runCli(sync(feed, 'truncated.report.csv'), cwd, fixture.sb);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/20 of 40 products are not in the feed, more than --max-missing 5%/);
    expect((await readAll(fixture.sb, '/Products')).length).toBe(40);
    const lines = await readCsv(join(cwd, 'truncated.report.csv'));
    const listed = lines.filter((l) => l.outcome === 'would-delete').map((l) => l.ref);
    expect(listed.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `FS-${i + 21}`).sort());
    const [last] = (await runIds(cwd)).slice(-1);
    expect(await summaryOf(cwd, last!)).toMatchObject({ state: 'stopped', exitCode: 3 });
  }, 300_000);

  it('deletes the records the feed no longer names, variants first; failed and invalid rows are not missing', async () => {
    // FS-39 is invalid in this feed: it must stay. FS-40 is gone from the feed: it goes, with its variants.
    const rows = feedOf(1, 38).split('\n');
    rows.push('FS-39,Item 39,heavy');
    const feed = await writeFeed(cwd, 'full.csv', rows.join('\n'));
    const summaryFile = join(cwd, 'nightly-summary.json');
    const run = await runCli(
      sync(feed, 'full.report.csv', '--max-missing', '2', '--summary', summaryFile),
      cwd,
      fixture.sb,
    );
    expect(run.code, run.stderr).toBe(1);
    const products = await byRef(fixture.sb, '/Products', 'prod_ref');
    expect(products.size).toBe(39);
    expect(products.has('FS-40')).toBe(false);
    expect(products.has('FS-39')).toBe(true);
    const variants = await readAll(fixture.sb, '/Variants');
    expect(variants.filter((v) => String(v.frmt_ref).startsWith('FS-40'))).toEqual([]);

    const lines = await readCsv(join(cwd, 'full.report.csv'));
    expect(lines).toHaveLength(40);
    const deleted = lines.filter((l) => l.outcome === 'deleted');
    expect(deleted.map((l) => l.ref)).toEqual(['FS-40']);
    expect(deleted[0]!.message).toContain('2 variant(s) deleted with it');
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    expect(summary).toMatchObject({ state: 'finished', exitCode: 1, outcomes: { deleted: 1, invalid: 1 } });

    // The same report from the journal, as a workbook; the API key is nowhere in the state folder.
    const runId = String(summary.runId);
    const out = await runCli(['runs', 'report', runId, '--out', 'full.report.xlsx'], cwd, fixture.sb);
    expect(out.code, out.stderr).toBe(0);
    const { default: ExcelJS } = await import('exceljs');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(cwd, 'full.report.xlsx'));
    const sheet = workbook.worksheets[0]!;
    expect(sheet.rowCount).toBe(41);
    const refs = [];
    for (let r = 2; r <= 41; r++)
      refs.push(`${sheet.getRow(r).getCell(3).text} ${sheet.getRow(r).getCell(4).text}`);
    expect(refs).toContain('FS-40 deleted');
    expect(refs).toContain('FS-39 invalid');
    for (const file of filesUnder(join(cwd, '.catalog-io')))
      expect(readFileSync(file, 'utf8').includes(fixture.sb.apiKey), file).toBe(false);
  }, 300_000);
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}
