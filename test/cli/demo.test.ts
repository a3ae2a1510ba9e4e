// The newcomer's tour runs end to end: validate (with one invalid row), import, re-import with no
// writes, and export to a spreadsheet that a second reader opens.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';

const dir = mkdtempSync(join(tmpdir(), 'catalog-io-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('catalog-io demo', () => {
  it('validates, imports, re-imports without writes and exports the samples', async () => {
    const out = memoryOutput();
    const code = await main(['demo', '--out', dir], out);
    const text = out.stdout.join('\n');
    expect(code, text + out.stderr.join('\n')).toBe(0);

    // one invalid row, shown with its report line
    expect(text).toMatch(/supplier-update\.csv\s+4 rows: 3 valid, 1 invalid/);
    expect(text).toMatch(
      /the report says: line 4,variants,SMP-CHINO-NAVY-32,invalid,.*must be a number, got ""59,9O""/,
    );
    // the second import writes nothing
    const reimport = text.slice(text.indexOf('4. Import the same feeds again'), text.indexOf('5. '));
    expect(reimport).not.toMatch(/[1-9]\d* writes/);
    expect(reimport.match(/ 0 writes/g)).toHaveLength(5);
    // the supplier update changes three variants and never sends the bad row
    expect(text).toMatch(/supplier-update\.csv\s+3 updated, 1 invalid/);

    const catalog = join(dir, 'catalog.xlsx');
    expect(existsSync(catalog)).toBe(true);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(catalog);
    const names = wb.worksheets.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(['products', 'variants', 'categories', 'custom Store Locations']),
    );
    const products = wb.getWorksheet('products')!;
    const header = (products.getRow(1).values as unknown[]).slice(1);
    expect(header).toEqual(
      expect.arrayContaining(['prod_ref', 'prod_title', 'prod_title_fr', 'prod_title_es']),
    );
    const refs: unknown[] = [];
    products.eachRow((row, n) => {
      if (n > 1) refs.push(row.getCell(header.indexOf('prod_ref') + 1).value);
    });
    expect(refs).toEqual(expect.arrayContaining(['SMP-LINEN-SHIRT', 'SMP-CHINO', 'SMP-MUG']));

    const report = readFileSync(join(dir, 'reports', 'import-supplier-update.csv'), 'utf8');
    expect(report).toMatch(/SMP-CHINO-SAND-32,updated/);
  });
});
