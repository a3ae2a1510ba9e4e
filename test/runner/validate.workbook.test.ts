// `catalog-io validate book.xlsx` validates every sheet of a workbook, as `catalog-io import` imports it:
// sheets placed on entities (by name, then by header), in the import's order whatever the tabs' order,
// one report, one summary, one exit code; a sheet no entity fits is named, never skipped silently; the
// reference check follows the whole workbook (a variant finds the product its products sheet defines).
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;
let book: string;

/** `validate` of the workbook against the sandbox tenant, with `extra` flags and its JSON summary. */
async function validateBook(...extra: string[]) {
  const out = memoryOutput();
  const code = await main(['validate', book, ...sandboxFlags(fixture.sb), ...extra, '--json'], out);
  expect([...out.stdout, ...out.stderr].join('\n')).not.toContain(fixture.sb.apiKey);
  return { code, out };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-workbook-'));
  book = join(dir, 'book.xlsx');
  const workbook = new ExcelJS.Workbook();
  // Tabs out of the import's order: variants first, then a sheet no entity fits, then products
  // (placed by its header: no entity is named "Artikel").
  const variants = workbook.addWorksheet('Variants');
  variants.addRows([
    ['frmt_ref', 'prod_ref', 'frmt_price'],
    ['WB-1-S', 'WB-1', 9.9],
    ['WB-2-S', 'WB-2', 'abc'],
  ]);
  workbook.addWorksheet('Notes').addRows([['written by'], ['someone']]);
  const products = workbook.addWorksheet('Artikel');
  products.addRows([
    ['prod_ref', 'prod_title'],
    ['WB-1', 'Shirt'],
    ['WB-2', 'Pants'],
  ]);
  await workbook.xlsx.writeFile(book);
});

describe('validate a whole workbook', () => {
  it('validates every sheet it can place, products before variants, into one report and summary', async () => {
    const report = join(dir, 'report.csv');
    const { code, out } = await validateBook('--report', report);
    expect(code, out.stderr.join('\n')).toBe(1);
    const summary = JSON.parse(out.stdout.join('\n')) as {
      rows: number;
      outcomes: Record<string, number>;
      sheets: Array<{ sheet: string; entity: string; rows: number }>;
      warnings: string[];
      topErrors: Array<{ message: string; count: number }>;
    };
    expect(summary.sheets).toEqual([
      { sheet: 'Artikel', entity: 'products', rows: 2 },
      { sheet: 'Variants', entity: 'variants', rows: 2 },
    ]);
    expect(summary.rows).toBe(4);
    // The variants' products are in the workbook, not yet in the tenant: found. One price is no number.
    expect(summary.outcomes).toEqual({ valid: 3, invalid: 1, skipped: 0 });
    expect(summary.topErrors.map((t) => t.message)).toEqual(['column "frmt_price": must be a number']);
    expect(summary.warnings).toContain(
      'sheets not validated, no entity found for them: "Notes" (name one with --sheet and --entity, or map it in the profile\'s "sheets")',
    );
    const lines = Papa.parse<Record<string, string>>(await readFile(report, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    expect(lines.map((l) => [l.location, l.entity, l.ref, l.outcome])).toEqual([
      ['sheet Artikel row 2', 'products', 'WB-1', 'valid'],
      ['sheet Artikel row 3', 'products', 'WB-2', 'valid'],
      ['sheet Variants row 2', 'variants', 'WB-1-S', 'valid'],
      ['sheet Variants row 3', 'variants', 'WB-2-S', 'invalid'],
    ]);
  });

  it("writes each sheet's rejects to a file named after it, and names them", async () => {
    const rejects = join(dir, 'rejects.csv');
    const { code, out } = await validateBook('--rejects', rejects);
    expect(code, out.stderr.join('\n')).toBe(1);
    const summary = JSON.parse(out.stdout.join('\n')) as { rejects: string[] };
    expect(summary.rejects).toEqual([join(dir, 'rejects-Artikel.csv'), join(dir, 'rejects-Variants.csv')]);
    const variants = Papa.parse<Record<string, string>>(await readFile(summary.rejects[1]!, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    expect(variants.map((r) => [r.frmt_ref, r.frmt_price])).toEqual([['WB-2-S', 'abc']]);
  });

  it('a named sheet is validated alone, as before', async () => {
    const { code, out } = await validateBook('--sheet', 'Artikel');
    expect(code, out.stderr.join('\n')).toBe(0);
    const summary = JSON.parse(out.stdout.join('\n')) as { rows: number; sheets?: unknown };
    expect(summary.rows).toBe(2);
    expect(summary.sheets).toBeUndefined();
  });
});
