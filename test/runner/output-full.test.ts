// A disk that fills under the report (here a report path linked to /dev/full, whose every write fails
// with ENOSPC) or under the run's journal (here a file size limit, `ulimit -f`, which the journal
// reaches first): validate and import end with exit 2 and one line that names the file and says why,
// not a stack trace or an "unexpected error"; the import keeps what it did, and --resume finishes the
// run with a complete report and nothing written twice. An import state that cannot be kept is a
// warning: the state only spares lookups.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEntry } from '../helpers/cli-entry.js';
import { useSandbox } from '../helpers/sandbox.js';
import { productsByRef, runCli } from './import.nightly.support.js';
import { tempDir } from './import.support.js';

const ROWS = 3000;
const fixture = useSandbox({ seed: 'empty' });
const hasDevFull = existsSync('/dev/full');
let dir: string;
let feed: string;
let full: string;
/** JSON Lines has no header: its first write comes with the first batch's rows, after their writes. */
let fullLines: string;

beforeAll(() => {
  dir = tempDir('output-full');
  feed = join(dir, 'feed.csv');
  const rows = ['prod_ref,prod_title'];
  for (let i = 1; i <= ROWS; i++) rows.push(`DF-${i},Item ${i}`);
  writeFileSync(feed, `${rows.join('\n')}\n`);
  full = join(dir, 'full-report.csv');
  fullLines = join(dir, 'full-report.jsonl');
  if (hasDevFull) {
    symlinkSync('/dev/full', full);
    symlinkSync('/dev/full', fullLines);
  }
});

describe.skipIf(!hasDevFull)('a full disk under the report', () => {
  it('validate: exit 2, OUTPUT_FAILED naming the file, a CSV or an XLSX report alike', async () => {
    const workbook = join(dir, 'full-report.xlsx');
    symlinkSync('/dev/full', workbook);
    for (const report of [full, workbook]) {
      const run = await runCli(['validate', feed, '--report', report], dir, fixture.sb);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(
        `catalog-io: Writing ${report} failed: the disk is full [OUTPUT_FAILED]`,
      );
    }
    // A rejects workbook too (a row must be rejected for it to be written).
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'prod_ref,prod_title\n,No ref\n');
    const rejects = await runCli(['validate', bad, '--rejects', workbook], dir, fixture.sb);
    expect(rejects.code).toBe(2);
    expect(rejects.stderr).toContain(
      `catalog-io: Writing ${workbook} failed: the disk is full [OUTPUT_FAILED]`,
    );
  });

  it('import: exit 2 and how to finish it; --resume then writes every row once', async () => {
    const cwd = join(dir, 'import');
    mkdirSync(cwd);
    const failed = await runCli(['import', feed, '--report', fullLines, ...fast], cwd, fixture.sb);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain(
      `catalog-io: Writing ${fullLines} failed: the disk is full; the rows done so far are kept: make room, then run the same command with --resume to finish the run [OUTPUT_FAILED]`,
    );
    // Rows were written before the report's first write failed.
    const before = await productsByRef(fixture.sb);
    expect(before.records).toBeGreaterThan(0);
    expect(before.records).toBeLessThan(ROWS);
    expect(failed.stderr).not.toMatch(/\n\s+at |unexpected error/);
    await resumeWhole(cwd, 'DF-');
  });

  it('import: a journal that cannot grow ends the run the same way, and --resume finishes it', async () => {
    const cwd = join(dir, 'journal');
    mkdirSync(cwd);
    const other = join(cwd, 'feed.csv');
    writeFileSync(other, readFileSync(feed, 'utf8').replaceAll('DF-', 'JL-'));
    // 400 blocks of 512 bytes: the journal (a line a row) reaches it first, a few hundred rows in.
    const node = [process.execPath, ...cliEntry(), 'import', other, '--report', 'limited.csv', ...fast];
    // Spawned, not run synchronously: the sandbox answers from this process.
    const child = spawn('sh', ['-c', 'ulimit -f 400; exec "$@"', 'sh', ...node], {
      cwd,
      env: { ...process.env, ...connection() },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const limited = { status, stderr };
    expect(limited.status, limited.stderr).toBe(2);
    expect(limited.stderr).toMatch(
      /^catalog-io: Writing the run's journal \S+rows\.jsonl failed: the file reached the size this process may write \(ulimit -f\); the rows done so far are kept: make room, then run the same command with --resume to finish the run \[OUTPUT_FAILED\]$/m,
    );
    expect((await productsByRef(fixture.sb)).byRef).toHaveProperty('JL-1');
    await resumeWhole(cwd, 'JL-', other);
  });
});

describe.skipIf(!hasDevFull)('a full disk under the --summary copy', () => {
  it('the run is recorded, the copy fails in words, and the device stays a device', async () => {
    const small = join(dir, 'small.csv');
    writeFileSync(small, 'prod_ref,prod_title\nSUM-1,One\n');
    const copy = join(dir, 'full-summary.json');
    symlinkSync('/dev/full', copy);
    const run = await runCli(['import', small, '--summary', copy, '--rate-limit', 'off'], dir, fixture.sb);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Writing the summary copy ${copy} failed: the disk is full [OUTPUT_FAILED]`);
    // Written with a plain write, not a copy that removes its target when a write fails.
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
    const runs = readdirSync(join(dir, '.catalog-io', 'runs')).sort();
    const last = JSON.parse(readFileSync(join(dir, '.catalog-io', 'runs', runs.at(-1)!, 'run.json'), 'utf8'));
    expect(last.state).toBe('finished');
  });
});

describe.skipIf(!hasDevFull)('a full disk under an export', () => {
  it.each(['csv', 'xlsx'])(
    '%s: exit 2, OUTPUT_FAILED naming the file; no partial file, the last good export untouched',
    async (format) => {
      const cwd = join(dir, `export-${format}`);
      mkdirSync(cwd);
      const out = join(cwd, `catalog.${format}`);
      writeFileSync(out, 'last night, complete\n');
      // The export writes beside its file and renames when whole: that file is on a full disk here.
      symlinkSync('/dev/full', `${out}.partial`);
      const run = await runCli(['export', 'products', '--out', out, '--quiet', ...fast], cwd, fixture.sb);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(`catalog-io: Writing ${out} failed: the disk is full [OUTPUT_FAILED]`);
      expect(existsSync(`${out}.partial`)).toBe(false);
      expect(readFileSync(out, 'utf8')).toBe('last night, complete\n');
    },
  );
});

describe('an import state that cannot be kept', () => {
  it('is a warning on a run that otherwise ends well: every row is looked up', async () => {
    const cwd = join(dir, 'state');
    mkdirSync(join(cwd, '.catalog-io'), { recursive: true });
    // A file where the state folder goes.
    writeFileSync(join(cwd, '.catalog-io', 'state'), '');
    const other = join(cwd, 'feed.csv');
    writeFileSync(other, readFileSync(feed, 'utf8').replaceAll('DF-', 'NS-'));
    for (const outcome of ['created', 'unchanged']) {
      const run = await runCli(
        ['import', other, '--report', 'report.csv', '--json', ...fast],
        cwd,
        fixture.sb,
      );
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout) as {
        outcomes: Record<string, number>;
        warnings: string[];
        requests: { byMethod: Record<string, number> };
      };
      expect(summary.outcomes[outcome]).toBe(ROWS);
      expect(summary.warnings).toContain(
        `the import state could not be used (a part of ${join(cwd, '.catalog-io', 'state')} is a file, not a folder): every row is looked up`,
      );
      // Looked up, 100 refs a request (the state would have spared these on the second run).
      expect(summary.requests.byMethod.GET).toBeGreaterThanOrEqual(ROWS / 100);
    }
  });
});

const fast = ['--rate-limit', 'off', '--concurrency', '16'];

function connection(): Record<string, string> {
  const { sb } = fixture;
  return { CATALOG_URL: sb.catalogUrl, DAM_URL: sb.damUrl, CATALOG_API_KEY: sb.apiKey };
}

/** `--resume` of the last run in `cwd`: a whole report, every row created once on the tenant. */
async function resumeWhole(cwd: string, prefix: string, source = feed): Promise<void> {
  const report = join(cwd, 'report.csv');
  const resumed = await runCli(['import', source, '--report', report, '--resume', ...fast], cwd, fixture.sb);
  expect(resumed.code, resumed.stderr).toBe(0);
  const lines = Papa.parse<Record<string, string>>(readFileSync(report, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  }).data;
  expect(lines).toHaveLength(ROWS);
  expect(new Set(lines.map((l) => l.ref)).size).toBe(ROWS);
  expect(lines.every((l) => l.outcome === 'created')).toBe(true);
  const tenant = await productsByRef(fixture.sb);
  expect(tenant.duplicates).toEqual([]);
  expect(Object.keys(tenant.byRef).filter((ref) => ref.startsWith(prefix))).toHaveLength(ROWS);
}
