// Excel keeps 15 significant digits of a number. A decimal the tenant holds as a float artefact
// (19.990000000000002) is 19.99 once a person has opened and saved the exported workbook in Excel; the
// re-import must find that row unchanged, and still find a real change. A whole number of 16 digits is
// exported as text, which Excel keeps whole. Real sandbox over loopback, real files, the CLI's `main`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { call, sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'catalog-io-excel-precision-'));
const home = process.cwd();

/** A float artefact: the double next to 19.99, which JSON and JavaScript write with 17 digits. */
const ARTEFACT = 19.990000000000002;
/** A whole number of 16 significant digits (below 2^53): Excel keeps 15 of them as a number. */
const LONG_WHOLE = 1234567890123456;

beforeAll(async () => {
  process.chdir(dir);
  expect(ARTEFACT).not.toBe(19.99);
  for (const body of [
    { prod_ref: 'EXCEL-FLOAT', prod_title: 'Float artefact', prod_weight: ARTEFACT },
    { prod_ref: 'EXCEL-SUM', prod_title: 'Sum artefact', prod_weight: 0.1 + 0.2 },
    { prod_ref: 'EXCEL-WHOLE', prod_title: 'Long whole number', prod_pack_size: LONG_WHOLE },
  ]) {
    const res = await call(fixture.sb.catalogUrl, '/Products', {
      method: 'POST',
      key: fixture.sb.apiKey,
      body,
    });
    expect(res.status, res.text).toBe(201);
  }
});
afterAll(() => {
  process.chdir(home);
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const out = memoryOutput();
  const code = await main(args, out);
  return { code, stdout: out.stdout, stderr: out.stderr };
}

function connection(): string[] {
  return sandboxFlags(fixture.sb, { rateLimit: 'off' });
}

async function writes(): Promise<number> {
  const res = await call(fixture.sb.origin, '/_sandbox/stats');
  const byMethod = (res.body as { byMethod: Record<string, number> }).byMethod;
  return (byMethod.POST ?? 0) + (byMethod.PATCH ?? 0) + (byMethod.DELETE ?? 0) + (byMethod.PUT ?? 0);
}

async function exportProducts(out: string, format: 'xlsx' | 'csv'): Promise<void> {
  const exported = await cli([
    'export',
    'products',
    '--out',
    out,
    '--format',
    format,
    '--filter',
    "startswith(prod_ref,'EXCEL-')",
    ...connection(),
  ]);
  expect(exported.code, exported.stderr.join('\n')).toBe(0);
}

/**
 * What Excel does to a workbook it opens and saves: every number cell keeps 15 significant digits.
 * `edit` then changes cells as a person would. Written back with exceljs.
 */
async function openAndSaveInExcel(
  file: string,
  edit: (sheet: ExcelJS.Worksheet, cellOf: (ref: string, header: string) => ExcelJS.Cell) => void = () => {},
): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const sheet = workbook.getWorksheet('products')!;
  sheet.eachRow((row) => {
    row.eachCell((cell) => {
      if (typeof cell.value === 'number') cell.value = Number(cell.value.toPrecision(15));
    });
  });
  edit(sheet, (ref, header) => cellOf(sheet, ref, header));
  await workbook.xlsx.writeFile(file);
}

function cellOf(sheet: ExcelJS.Worksheet, ref: string, header: string): ExcelJS.Cell {
  const headers = sheet.getRow(1).values as unknown[];
  const column = headers.indexOf(header);
  expect(column, header).toBeGreaterThan(0);
  let found: ExcelJS.Cell | undefined;
  sheet.eachRow((row) => {
    if (row.getCell(1).value === ref) found = row.getCell(column);
  });
  expect(found, ref).toBeDefined();
  return found!;
}

interface PlanLine {
  ref: string;
  outcome: string;
  changed: string;
}

/** `import --plan` of the products of `file`: the summary's outcomes and the report's lines. */
async function plan(file: string, extra: string[] = []) {
  const report = `${file}.plan.csv`;
  const result = await cli([
    'import',
    file,
    '--entity',
    'products',
    ...extra,
    '--plan',
    '--report',
    report,
    '--json',
    ...connection(),
  ]);
  expect(result.code, result.stderr.join('\n')).toBe(0);
  const summary = JSON.parse(result.stdout[0]!) as { rows: number; outcomes: Record<string, number> };
  const lines = Papa.parse<PlanLine>(readFileSync(report, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  }).data;
  const byRef = Object.fromEntries(lines.map((l) => [l.ref, l]));
  return { summary, byRef };
}

async function stored(ref: string): Promise<Record<string, unknown>> {
  const res = await call(
    fixture.sb.catalogUrl,
    `/Products?$filter=${encodeURIComponent(`prod_ref eq '${ref}'`)}`,
    { key: fixture.sb.apiKey },
  );
  return (res.body as { value: Array<Record<string, unknown>> }).value[0]!;
}

describe('an XLSX export opened and saved in Excel', () => {
  it('re-imports unchanged: a float artefact that Excel rounds to 15 digits plans no update', async () => {
    expect((await stored('EXCEL-FLOAT')).prod_weight).toBe(ARTEFACT);
    const file = join(dir, 'untouched.xlsx');
    await exportProducts(file, 'xlsx');
    // As exported: number cells Excel keeps as they are (15 significant digits), a long whole number as text.
    const exported = new ExcelJS.Workbook();
    await exported.xlsx.readFile(file);
    const sheet = exported.getWorksheet('products')!;
    expect(cellOf(sheet, 'EXCEL-FLOAT', 'prod_weight').value).toBe(19.99);
    expect(cellOf(sheet, 'EXCEL-FLOAT', 'prod_weight').type).toBe(ExcelJS.ValueType.Number);
    expect(cellOf(sheet, 'EXCEL-SUM', 'prod_weight').value).toBe(0.3);
    expect(cellOf(sheet, 'EXCEL-WHOLE', 'prod_pack_size').value).toBe(String(LONG_WHOLE));
    expect(cellOf(sheet, 'EXCEL-WHOLE', 'prod_pack_size').type).toBe(ExcelJS.ValueType.String);

    await openAndSaveInExcel(file);

    const reread = new ExcelJS.Workbook();
    await reread.xlsx.readFile(file);
    const weight = cellOf(reread.getWorksheet('products')!, 'EXCEL-FLOAT', 'prod_weight');
    expect(weight.value).toBe(19.99); // what Excel shows and saves; a number cell
    expect(weight.type).toBe(ExcelJS.ValueType.Number);

    const before = await writes();
    const { summary, byRef } = await plan(file, ['--sheet', 'products']);
    expect(summary.rows).toBe(3);
    expect(summary.outcomes).toMatchObject({ unchanged: 3 });
    expect(summary.outcomes['would-update'] ?? 0).toBe(0);
    expect(byRef['EXCEL-FLOAT']).toMatchObject({ outcome: 'unchanged', changed: '' });
    expect(byRef['EXCEL-SUM']).toMatchObject({ outcome: 'unchanged', changed: '' });
    expect(byRef['EXCEL-WHOLE']).toMatchObject({ outcome: 'unchanged', changed: '' });

    // And the import itself writes nothing.
    const imported = await cli([
      'import',
      file,
      '--entity',
      'products',
      '--sheet',
      'products',
      '--json',
      ...connection(),
    ]);
    expect(imported.code, imported.stderr.join('\n')).toBe(0);
    expect(JSON.parse(imported.stdout[0]!).outcomes).toMatchObject({ unchanged: 3, updated: 0 });
    expect(await writes()).toBe(before);
    expect((await stored('EXCEL-FLOAT')).prod_weight).toBe(ARTEFACT);
  });

  it('still plans and writes a real change: 19.99 edited to 19.98, and a 16th digit of a whole number', async () => {
    const file = join(dir, 'edited.xlsx');
    await exportProducts(file, 'xlsx');
    await openAndSaveInExcel(file, (_sheet, cell) => {
      cell('EXCEL-FLOAT', 'prod_weight').value = 19.98;
      // The whole number came as text (Excel keeps its 16 digits): a person edits its last digit.
      const whole = cell('EXCEL-WHOLE', 'prod_pack_size');
      expect(whole.value).toBe(String(LONG_WHOLE));
      whole.value = String(LONG_WHOLE + 1);
    });

    const { summary, byRef } = await plan(file, ['--sheet', 'products']);
    expect(summary.outcomes).toMatchObject({ 'would-update': 2, unchanged: 1 });
    expect(byRef['EXCEL-FLOAT']!.outcome).toBe('would-update');
    expect(byRef['EXCEL-FLOAT']!.changed).toBe(`prod_weight: ${ARTEFACT} -> 19.98`);
    expect(byRef['EXCEL-WHOLE']!.outcome).toBe('would-update');
    expect(byRef['EXCEL-WHOLE']!.changed).toBe(`prod_pack_size: ${LONG_WHOLE} -> ${LONG_WHOLE + 1}`);
    expect(byRef['EXCEL-SUM']!.outcome).toBe('unchanged');

    const imported = await cli([
      'import',
      file,
      '--entity',
      'products',
      '--sheet',
      'products',
      '--json',
      ...connection(),
    ]);
    expect(imported.code, imported.stderr.join('\n')).toBe(0);
    expect(JSON.parse(imported.stdout[0]!).outcomes).toMatchObject({ updated: 2, unchanged: 1 });
    expect((await stored('EXCEL-FLOAT')).prod_weight).toBe(19.98);
    expect((await stored('EXCEL-WHOLE')).prod_pack_size).toBe(LONG_WHOLE + 1);
    expect((await stored('EXCEL-SUM')).prod_weight).toBe(0.1 + 0.2);
  });
});

describe('a CSV export', () => {
  it('holds the exact value, and re-imports unchanged whether or not Excel rounded it', async () => {
    const file = join(dir, 'products.csv');
    await exportProducts(file, 'csv');
    const rows = Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    const sum = rows.find((r) => r.prod_ref === 'EXCEL-SUM')!;
    expect(sum.prod_weight).toBe(String(0.1 + 0.2)); // 0.30000000000000004: every digit the tenant holds
    const exact = await plan(file);
    expect(exact.summary.outcomes).toMatchObject({ unchanged: 3 });

    // The same file as Excel saves it: the decimal at 15 digits, everything else as it was.
    const text = readFileSync(file, 'utf8');
    const rounded = join(dir, 'rounded.csv');
    writeFileSync(rounded, text.replace(String(0.1 + 0.2), '0.3'));
    expect(readFileSync(rounded, 'utf8')).not.toBe(text);
    const excel = await plan(rounded);
    expect(excel.summary.outcomes).toMatchObject({ unchanged: 3 });
    expect(excel.summary.outcomes['would-update'] ?? 0).toBe(0);

    writeFileSync(rounded, text.replace(String(0.1 + 0.2), '0.31'));
    const edited = await plan(rounded);
    expect(edited.byRef['EXCEL-SUM']).toMatchObject({ outcome: 'would-update' });
  });
});
