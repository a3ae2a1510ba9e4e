// The XLSX report a person opens: ids and HTTP statuses as numbers, and a "Summary" sheet with the source,
// the counts per outcome, the requests and the duration.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty' });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-xlsx-'));
});

describe('XLSX import report', () => {
  it('has numeric ids and statuses and a Summary sheet', async () => {
    const feed = join(dir, 'feed.csv');
    await writeFile(feed, 'prod_ref,prod_title,prod_weight\nXR-1,One,1\nXR-2,Two,heavy\nXR-3,Three,3\n');
    const report = join(dir, 'report.xlsx');
    const code = await main(
      ['import', feed, '--report', report, ...sandboxFlags(fixture.sb, { rateLimit: 'off' })],
      memoryOutput(),
    );
    expect(code).toBe(1);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(report);
    const sheet = workbook.getWorksheet('Report')!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const idCell = sheet.getRow(2).getCell(header.indexOf('id') + 1);
    expect(typeof idCell.value).toBe('number');
    expect(sheet.getRow(2).getCell(header.indexOf('status') + 1).value).toBe(201);
    // The invalid row has no id: an empty cell, not a 0.
    expect(sheet.getRow(3).getCell(header.indexOf('id') + 1).value ?? '').toBe('');

    const summary = workbook.getWorksheet('Summary')!;
    const rows = new Map(
      (summary.getSheetValues().filter(Boolean) as unknown[][]).map((r) => [r[1] as string, r[2]]),
    );
    expect(rows.get('source')).toBe(feed);
    expect(rows.get('rows')).toBe(3);
    expect(rows.get('created')).toBe(2);
    expect(rows.get('invalid')).toBe(1);
    expect(rows.get('requests')).toBeGreaterThan(0);
    expect(rows.get('requests POST')).toBe(2);
    expect(typeof rows.get('duration (s)')).toBe('number');
    expect(String(rows.get('result'))).toMatch(/1 of 3 rows failed or invalid/);
  });
});
