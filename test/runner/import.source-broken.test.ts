// A source that breaks mid-way (a quote never closed, a JSON cut short): the rows read before the break
// are done as usual and each has its line in the report; then the run stops, exit 2, saying why. The
// rows read but still in the pending batch used to be neither written nor reported.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty' });
const dir = mkdtempSync(join(tmpdir(), 'catalog-io-source-broken-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function importOf(file: string, extra: string[]) {
  const { sb } = fixture;
  const out = memoryOutput();
  const report = `${file}.report.csv`;
  const summary = `${file}.summary.json`;
  const code = await main(
    [
      'import',
      file,
      '--report',
      report,
      '--summary',
      summary,
      ...sandboxFlags(sb, { rateLimit: 'off' }),
      ...extra,
    ],
    out,
  );
  const lines = Papa.parse<Record<string, string>>(readFileSync(report, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  }).data;
  return { code, stderr: out.stderr.join('\n'), lines, summary: JSON.parse(readFileSync(summary, 'utf8')) };
}

describe('a source that breaks mid-way', () => {
  it('CSV with a quote never closed: the 250 rows before it are created and reported, exit 2', async () => {
    const rows = ['prod_ref,prod_title'];
    for (let i = 1; i <= 250; i++) rows.push(`QB-${i},Title ${i}`);
    rows.push('QB-999,"unclosed');
    const file = join(dir, 'unclosed.csv');
    writeFileSync(file, `${rows.join('\n')}\n`);
    const run = await importOf(file, ['--entity', 'products']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.lines.map((l) => l.outcome)).toEqual(new Array(250).fill('created'));
    expect(run.lines.at(-1)!.location).toBe('line 251');
    expect(run.stderr).toContain('stopped: the source could not be read on');
    expect(run.stderr).toContain('[CSV_QUOTE_NOT_CLOSED]');
    expect(run.summary).toMatchObject({ state: 'stopped', exitCode: 2 });
  });

  it('a JSON array cut short: a plan reports every whole record before the cut', async () => {
    const records = Array.from({ length: 247 }, (_, i) =>
      JSON.stringify({ prod_ref: `JB-${i}`, prod_title: 'T' }),
    );
    const file = join(dir, 'cut.json');
    writeFileSync(file, `[${records.join(',\n')},\n{"prod_ref": "JB-CUT", "prod_ti`);
    const run = await importOf(file, ['--entity', 'products', '--plan']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.lines).toHaveLength(247);
    expect(new Set(run.lines.map((l) => l.outcome))).toEqual(new Set(['would-create']));
    expect(run.stderr).toMatch(/\[JSON_SYNTAX\]/);
  });
});
