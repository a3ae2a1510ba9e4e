// A tenant with an empty custom entity exports a header-only sheet for it into the whole-catalog
// workbook. That workbook re-imports whole: the header-only sheet is nothing to import for its entity
// (0 rows, a note), every other row comes back `unchanged`, the report is written, exit 0. `--plan`
// and `validate` agree. A header-only file read on its own is still CSV_NO_DATA.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { runMain, sandboxFlags, useCliFolder } from '../helpers/cli-main.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const demo = useSandbox({ seed: 'demo' });
const dir = useCliFolder('empty-sheet');

const connection = () => sandboxFlags(demo.sb);

const cli = runMain;

interface Summary {
  rows: number;
  outcomes: Record<string, number>;
  sheets: Array<{ sheet: string; entity: string; rows: number; exitCode?: number }>;
}

const SUPPLIERS = "/CustomEntities('Suppliers')";

describe('a whole workbook with a header-only sheet', () => {
  const book = join(dir, 'all.xlsx');

  beforeAll(async () => {
    // The demo's one supplier gone: the tenant's Suppliers entity is empty, as a real one may be.
    const list = await call(demo.sb.catalogUrl, SUPPLIERS, { key: demo.sb.apiKey });
    const items = (list.body as { value: Array<Record<string, unknown>> }).value;
    for (const item of items) {
      const id = Object.entries(item).find(([k]) => k === 'ce_id' || k === 'id')?.[1];
      const gone = await call(demo.sb.catalogUrl, `${SUPPLIERS}/item(${id})`, {
        method: 'DELETE',
        key: demo.sb.apiKey,
      });
      expect(gone.status, gone.text).toBeLessThan(300);
    }
    const exported = await cli(['export', '--out', book, ...connection()]);
    expect(exported.code, exported.stderr).toBe(0);
  }, 120_000);

  it('imports every other sheet unchanged, writes the report and exits 0', async () => {
    const report = join(dir, 'r.csv');
    const run = await cli(['import', book, '--report', report, ...connection()]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('CSV_NO_DATA');
    expect(run.stderr).toContain(
      'note: sheet "custom Suppliers" (custom:Suppliers) has a header and no rows: nothing to import for it',
    );
    expect(run.stderr).toMatch(/sheets: .*custom Suppliers \(custom:Suppliers, 0 rows\)/);
    expect(existsSync(report)).toBe(true);
    const lines = Papa.parse<Record<string, string>>(readFileSync(report, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    expect(lines.length).toBeGreaterThan(50);
    expect(new Set(lines.map((l) => l.outcome))).toEqual(new Set(['unchanged']));
    expect(lines.some((l) => l.sheet === 'custom Suppliers')).toBe(false);

    const json = await cli(['import', book, '--json', ...connection()]);
    expect(json.code, json.stderr).toBe(0);
    const summary = JSON.parse(json.stdout[0]!) as Summary;
    expect(summary.outcomes.unchanged).toBe(summary.rows);
    expect(summary.sheets).toContainEqual({
      sheet: 'custom Suppliers',
      entity: 'custom:Suppliers',
      rows: 0,
      exitCode: 0,
    });
  }, 180_000);

  it('--plan and validate read the same workbook the same way', async () => {
    const plan = await cli(['import', book, '--plan', '--json', ...connection()]);
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout[0]!) as Summary;
    expect(planned.outcomes.unchanged).toBe(planned.rows);
    // A full sync never takes an empty sheet as an order to empty its entity.
    const sync = await cli(['import', book, '--plan', '--missing', 'delete', '--json', ...connection()]);
    expect(sync.code, sync.stderr).toBe(0);
    expect((JSON.parse(sync.stdout[0]!) as { warnings: string[] }).warnings).toContain(
      '--missing delete: nothing deleted from custom:Suppliers, its sheet "custom Suppliers" has no rows (a full sync of it needs at least one)',
    );

    const report = join(dir, 'validate.csv');
    const checked = await cli(['validate', book, '--report', report, ...connection()]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stderr).toContain(
      'note: sheet "custom Suppliers" (custom:Suppliers) has a header and no rows: nothing to validate for it',
    );
    expect(existsSync(report)).toBe(true);
  }, 120_000);

  it('the header-only sheet (or CSV file) imported on its own is still refused as a file with no data', async () => {
    const one = await cli(['import', book, '--sheet', 'custom Suppliers', ...connection()]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain(
      `No data: sheet "custom Suppliers" of ${book} has a header but no data rows [CSV_NO_DATA]`,
    );
    const csv = join(dir, 'suppliers.csv');
    const exported = await cli(['export', 'custom:Suppliers', '--out', csv, ...connection()]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(csv, 'utf8').trim().split('\n')).toHaveLength(1);
    const alone = await cli(['import', csv, '--entity', 'custom:Suppliers', ...connection()]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain(`No data: ${csv} has a header but no data rows [CSV_NO_DATA]`);
  }, 60_000);
});
