// Bounded output as well as input, through the CLI in child processes against a sandbox: a 40 KB
// workbook whose 1 MB shared string is used by 2,000 cells of one row (the shared-string bomb) with
// --rejects, a JSON record of a million keys, a header of 500,000 columns. Each ends with the row
// rejected and located, files of a bounded size, one grouped warning line, and a bounded peak memory.
import { writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedStringReuse } from '../fixtures/hostile/generate.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../runner/import.support.js';
import { runMeasured } from './hostile-process.js';

const fixture = useSandbox({ seed: 'empty' });
let cwd: string;
/** Node, tsx, the CLI and one bounded row (4 × --max-cell), not the expanded file. */
const PEAK_MB = 350;

beforeAll(() => {
  cwd = tempDir('bounds');
});

const env = () => ({
  CATALOG_URL: fixture.sb.catalogUrl,
  DAM_URL: fixture.sb.damUrl,
  CATALOG_API_KEY: fixture.sb.apiKey,
});

async function validate(...args: string[]) {
  const run = await runMeasured(['validate', ...args], { env: env(), cwd, timeoutMs: 120_000 });
  expect(run.stderr).not.toContain('INTERNAL');
  expect(run.peakMb, 'peak memory').toBeLessThan(PEAK_MB);
  return run;
}

describe('one row that expands', () => {
  for (const rejects of ['bomb-rejects.csv', 'bomb-rejects.xlsx']) {
    it(`a 1 MB shared string used by 2,000 cells, --rejects ${rejects}: the row rejected and located, the file small`, async () => {
      const workbook = sharedStringReuse(2000, 1_000_000);
      expect(workbook.length).toBeLessThan(60_000);
      const file = join(cwd, `bomb-${rejects.split('.').pop()}.xlsx`);
      writeFileSync(file, workbook);
      const run = await validate(file, '--rejects', rejects, '--report', `${rejects}.report.csv`);
      expect(run.code, run.stderr).toBe(1);
      const size = (await stat(join(cwd, rejects))).size;
      // Four 1 MB cells kept at most (the row limit), never the 2 GB the row expands to.
      expect(size).toBeLessThan(5 * 1024 * 1024);
      const report = await readFile(join(cwd, `${rejects}.report.csv`), 'utf8');
      expect(report).toMatch(/sheet Feed row 2,.*invalid.*Row too large/);
      expect(report).toContain('the cells from column ""extra_4"" on are left out');
      expect(report).toMatch(/sheet Feed row 3,.*OK-1/);
      expect(report.length).toBeLessThan(64 * 1024);
    }, 180_000);
  }
});

describe('keys and columns by the hundred thousand', () => {
  it('a JSON record of a million keys: skipped as it is read, never built; the next record read', async () => {
    const keys = Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":1`).join(',');
    const file = join(cwd, 'keys.json');
    writeFileSync(file, `[{${keys}},{"prod_ref":"K-1","prod_title":"Fine"}]`);
    const run = await validate(file, '--rejects', 'keys-rejects.ndjson', '--report', 'keys-report.csv');
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr.split('\n').length).toBeLessThan(30);
    const report = await readFile(join(cwd, 'keys-report.csv'), 'utf8');
    expect(report).toMatch(/item 1,.*invalid.*Row too large/);
    expect(report).toMatch(/item 2,products,K-1,valid/);
    expect((await stat(join(cwd, 'keys-rejects.ndjson'))).size).toBeLessThan(4096);
  }, 180_000);

  it('records of 50,000 unknown keys each: one grouped warning line', async () => {
    const record = (n: number) =>
      `{"prod_ref":"U-${n}","prod_title":"T",${Array.from({ length: 50_000 }, (_, i) => `"u${n}_${i}":1`).join(',')}}`;
    const file = join(cwd, 'unknown.ndjson');
    writeFileSync(file, `${record(1)}\n${record(2)}\n`);
    const run = await validate(file);
    expect(run.code, run.stderr).toBe(0);
    const warnings = run.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toEqual([
      'warning: 100000 columns ("u1_0", "u1_1", "u1_2", "u1_3", "u1_4" and 99995 more) do not match a field of products: ignored',
    ]);
  }, 180_000);

  it('a header of 500,000 columns: one warning line with the count and the first few', async () => {
    const names = Array.from({ length: 499_998 }, (_, i) => `c${i.toString(36)}`);
    const file = join(cwd, 'wide.csv');
    writeFileSync(file, `prod_ref,prod_title,${names.join(',')}\nW-1,Wide${','.repeat(names.length)}\n`);
    const run = await validate(file);
    expect(run.code, run.stderr).toBe(0);
    const warnings = run.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toEqual([
      'warning: 499998 columns ("c0", "c1", "c2", "c3", "c4" and 499993 more) do not match a field of products: ignored',
    ]);
    expect(run.stderr.split('\n').length).toBeLessThan(30);
  }, 180_000);
});
