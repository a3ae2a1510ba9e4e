// A damaged workbook given to `validate` with no CATALOG_URL (the embedded sandbox is started): one coded
// line and exit 2 at once. The sandbox's server was left open on that error and kept the process alive.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli-process.js';

describe('validate of a damaged workbook', () => {
  it('exits 2 with XLSX_CORRUPT, not a hang', { timeout: 90_000 }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'catalog-io-bad-xlsx-'));
    writeFileSync(join(cwd, 'bad.xlsx'), 'prod_ref,prod_title\nA,B\n');
    const run = await runCliProcess(['validate', 'bad.xlsx', '--report', 'r.csv'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^catalog-io: .+ \[XLSX_CORRUPT\]$/);
  });
});
