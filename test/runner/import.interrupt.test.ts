// SIGINT and SIGTERM mid-run: no new batch, the requests in flight finish, the report is complete
// (rows not reached are `not-attempted`), summary.json says `interrupted`, exit 130 / 143; a second
// Ctrl-C cuts the requests in flight and the run still ends `interrupted`, its reports whole. Then --resume completes the run, with nothing written twice.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { productsByRef, runCli, runIds, startCli, summaryOf } from './import.nightly.support.js';
import { readCsv, tempDir, writeFeed } from './import.support.js';

const ROWS = 1500;
const fixture = useSandbox({ seed: 'empty' });
let dir: string;

beforeAll(() => {
  dir = tempDir('import-interrupt');
});

/** A working folder with a feed of its own refs. */
async function setup(name: string): Promise<{ cwd: string; feed: string }> {
  const cwd = join(dir, name);
  mkdirSync(cwd);
  const rows = ['prod_ref,prod_title,prod_weight'];
  for (let i = 1; i <= ROWS; i++) rows.push(`${name}-${i},Item ${i},${i}`);
  return { cwd, feed: await writeFeed(cwd, 'feed.csv', rows.join('\n')) };
}

const args = (feed: string) => [
  'import',
  feed,
  '--report',
  'report.csv',
  '--batch-size',
  '20',
  '--rate-limit',
  'off',
];

/** Resolves once the run's journal holds at least `rows` finished rows. */
async function journalReaches(cwd: string, rows: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const runs = existsSync(join(cwd, '.catalog-io', 'runs')) ? await runIds(cwd) : [];
    const file = runs[0] ? join(cwd, '.catalog-io', 'runs', runs[0], 'rows.jsonl') : undefined;
    if (file && existsSync(file)) {
      const n = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"t":"row"')).length;
      if (n >= rows) return;
    }
    if (Date.now() > deadline) throw new Error(`the journal of ${cwd} did not reach ${rows} rows`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function expectResumeCompletes(cwd: string, feed: string, prefix: string) {
  const resumed = await runCli([...args(feed), '--resume'], cwd, fixture.sb);
  expect(resumed.code, resumed.stderr).toBe(0);
  const report = await readCsv(join(cwd, 'report.csv'));
  expect(report).toHaveLength(ROWS);
  expect(new Set(report.map((l) => l.outcome))).toEqual(new Set(['created']));
  const products = await productsByRef(fixture.sb);
  expect(products.duplicates).toEqual([]);
  expect(Object.keys(products.byRef).filter((r) => r.startsWith(`${prefix}-`))).toHaveLength(ROWS);
}

describe('interrupts', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} mid-run: exit ${code}, a whole report with the rows not attempted, then --resume completes`, async () => {
      const name = `INT${signal}`;
      const { cwd, feed } = await setup(name);
      const child = startCli(args(feed), cwd, fixture.sb);
      await journalReaches(cwd, 100);
      child.process.kill(signal);
      const end = await child.exited;
      expect(end.code, end.stderr).toBe(code);
      expect(end.stderr).toContain(`interrupted (${signal})`);
      expect(end.stderr).toContain('--resume');

      const report = await readCsv(join(cwd, 'report.csv'));
      expect(report).toHaveLength(ROWS);
      const notAttempted = report.filter((l) => l.outcome === 'not-attempted');
      const created = report.filter((l) => l.outcome === 'created');
      expect(notAttempted.length).toBeGreaterThan(0);
      expect(created.length + notAttempted.length).toBe(ROWS);
      expect(notAttempted[0]!.message).toContain(signal);
      const [runId] = await runIds(cwd);
      const summary = await summaryOf(cwd, runId!);
      expect(summary).toMatchObject({ state: 'interrupted', exitCode: code, rows: ROWS });
      expect((summary.outcomes as Record<string, number>)['not-attempted']).toBe(notAttempted.length);
      // Rows reported created are in the tenant; those not attempted are not.
      const products = await productsByRef(fixture.sb);
      for (const l of created) expect(products.byRef[l.ref!]).toBeDefined();
      for (const l of notAttempted) expect(products.byRef[l.ref!]).toBeUndefined();

      if (signal === 'SIGTERM') {
        // A feed that changed since is not resumed by id: the journal would not match it.
        const original = readFileSync(feed, 'utf8');
        writeFileSync(feed, `${original}\n${name}-extra,Extra,1`);
        const refused = await runCli([...args(feed), '--resume', runId!], cwd, fixture.sb);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(`Cannot resume run ${runId}`);
        expect(refused.stderr).toContain('changed size');
        writeFileSync(feed, original);
      }
      await expectResumeCompletes(cwd, feed, name);
    }, 300_000);
  }

  it('a second Ctrl-C cuts the requests in flight, and the run still ends interrupted: an XLSX report of every row, a consistent journal', async () => {
    const { cwd, feed } = await setup('INT2');
    const xlsxArgs = args(feed).map((a) => (a === 'report.csv' ? 'report.xlsx' : a));
    const child = startCli(xlsxArgs, cwd, fixture.sb);
    await journalReaches(cwd, 100);
    child.process.kill('SIGINT');
    await child.waitFor('Ctrl-C again');
    child.process.kill('SIGINT');
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(130);
    expect(end.stderr).toContain('interrupted (SIGINT)');
    expect(end.stderr).not.toContain('100%');
    const [runId] = await runIds(cwd);
    const summary = await summaryOf(cwd, runId!);
    expect(summary).toMatchObject({ state: 'interrupted', exitCode: 130, rows: ROWS });
    const { default: ExcelJS } = await import('exceljs');
    const refsOf = async (file: string) => {
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(join(cwd, file));
      const sheet = workbook.getWorksheet('Report') ?? workbook.worksheets[0]!;
      const header = (sheet.getRow(1).values as unknown[]).slice(1);
      const ref = header.indexOf('ref') + 1;
      const outcome = header.indexOf('outcome') + 1;
      const lines: Array<{ ref: string; outcome: string }> = [];
      for (let r = 2; r <= sheet.rowCount; r++)
        lines.push({
          ref: sheet.getRow(r).getCell(ref).text,
          outcome: sheet.getRow(r).getCell(outcome).text,
        });
      return lines;
    };
    // Every row once, in order, each created or not attempted.
    const lines = await refsOf('report.xlsx');
    expect(lines.map((l) => l.ref)).toEqual(Array.from({ length: ROWS }, (_, i) => `INT2-${i + 1}`));
    expect(new Set(lines.map((l) => l.outcome))).toEqual(new Set(['created', 'not-attempted']));
    // The same from the journal, in any format.
    const out = await runCli(['runs', 'report', runId!, '--out', 'again.xlsx'], cwd, fixture.sb);
    expect(out.code, out.stderr).toBe(0);
    expect(await refsOf('again.xlsx')).toEqual(lines);
    const csv = await runCli(['runs', 'report', runId!, '--out', 'again.csv'], cwd, fixture.sb);
    expect(csv.code, csv.stderr).toBe(0);
    expect((await readCsv(join(cwd, 'again.csv'))).map((l) => ({ ref: l.ref, outcome: l.outcome }))).toEqual(
      lines,
    );
    await expectResumeCompletes(cwd, feed, 'INT2');
  }, 300_000);
});
