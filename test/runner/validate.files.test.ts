// validateFile() on each input format: the rejects file follows the input's format and reads back.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateFile, validateRows } from '../../src/runner/validate.js';
import { demoModel } from '../mappers/demo-model.js';
import { csvRows } from '../mappers/rows.js';

const model = demoModel();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-files-'));
});

describe('validateFile', () => {
  it('XLSX input: XLSX rejects with _error, XLSX report with the invalid row highlighted', async () => {
    const source = join(dir, 'in.xlsx');
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Feed');
    sheet.addRow(['SKU', 'Price']);
    sheet.addRow(['V1', 9.5]);
    sheet.addRow(['V2', 'cheap']);
    await workbook.xlsx.writeFile(source);
    const result = await validateFile({
      source,
      model,
      profile: { entity: 'variants', columns: { SKU: 'frmt_ref', Price: 'frmt_price' } },
      reportFile: join(dir, 'report.xlsx'),
      rejectsFile: join(dir, 'rejects.xlsx'),
    });
    expect(result.outcomes).toEqual({ valid: 1, invalid: 1, skipped: 0 });
    const rejects = new ExcelJS.Workbook();
    await rejects.xlsx.readFile(join(dir, 'rejects.xlsx'));
    const rows = rejects.worksheets[0]!.getSheetValues()
      .filter(Boolean)
      .map((r) => (r as unknown[]).slice(1));
    expect(rows).toEqual([
      ['SKU', 'Price', '_error', '_source'],
      ['V2', 'cheap', 'column "Price": must be a number, got "cheap"', 'sheet Feed row 3'],
    ]);
    // Named as the source's sheet, so `--sheet Feed` finds the rows again.
    expect(rejects.worksheets[0]!.name).toBe('Feed');
    const report = new ExcelJS.Workbook();
    await report.xlsx.readFile(join(dir, 'report.xlsx'));
    const invalid = report.worksheets[0]!.getRow(3);
    expect(invalid.getCell(1).value).toBe('sheet Feed row 3');
    expect((invalid.getCell(4).fill as ExcelJS.FillPattern).fgColor?.argb).toBe('FFFFC7CE');
  });

  it('XLSX input with --rejects rejects.csv: a real CSV of the same columns, not an XLSX in disguise', async () => {
    const source = join(dir, 'in-named.xlsx');
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Feed');
    sheet.addRow(['SKU', 'Price', 'Note']);
    sheet.addRow(['V1', 9.5, 'fine']);
    sheet.addRow(['V2', 'cheap', 'say "hi", twice']);
    await workbook.xlsx.writeFile(source);
    const rejectsFile = join(dir, 'named-rejects.csv');
    const result = await validateFile({
      source,
      model,
      profile: { entity: 'variants', columns: { SKU: 'frmt_ref', Price: 'frmt_price', Note: null } },
      rejectsFile,
    });
    expect(result.outcomes).toEqual({ valid: 1, invalid: 1, skipped: 0 });
    const bytes = await readFile(rejectsFile);
    expect(bytes.subarray(0, 2).toString('latin1')).not.toBe('PK');
    const parsed = Papa.parse<string[]>(bytes.toString('utf8').replace(/^\uFEFF/, ''), {
      skipEmptyLines: true,
    });
    expect(parsed.data).toEqual([
      ['SKU', 'Price', 'Note', '_error', '_source'],
      ['V2', 'cheap', 'say "hi", twice', 'column "Price": must be a number, got "cheap"', 'sheet Feed row 3'],
    ]);
  });

  it('JSON input: NDJSON rejects keep nested objects', async () => {
    const source = join(dir, 'in.json');
    await writeFile(
      source,
      JSON.stringify([
        { sku: 'P1', name: { en: 'Mug', fr: 'Tasse' }, weight: 0.3 },
        { sku: 'P2', name: { en: 'Pan' }, weight: 'heavy' },
      ]),
    );
    const result = await validateFile({
      source,
      model,
      profile: {
        entity: 'products',
        columns: {
          sku: 'prod_ref',
          'name.en': 'prod_title',
          'name.fr': { field: 'prod_title', culture: 'fr' },
          weight: 'prod_weight',
        },
      },
      reportFile: join(dir, 'report.jsonl'),
      rejectsFile: join(dir, 'rejects.ndjson'),
    });
    expect(result.outcomes.invalid).toBe(1);
    const rejected = (await readFile(join(dir, 'rejects.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rejected).toEqual([
      {
        sku: 'P2',
        name: { en: 'Pan' },
        weight: 'heavy',
        _error: 'column "weight": must be a number, got "heavy"',
        _source: 'item 2',
      },
    ]);
    const report = (await readFile(join(dir, 'report.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(report.map((l) => [l.location, l.ref, l.outcome])).toEqual([
      ['item 1', 'P1', 'valid'],
      ['item 2', 'P2', 'invalid'],
    ]);
  });

  it('a file large enough to make room for its refs by its size still finds duplicates on both sides', async () => {
    // 200,000 rows: at row 65,536 a third of the file is read, and its size tells the duplicate check to
    // make room for about 200,000 refs.
    const source = join(dir, 'many.csv');
    const lines = ['prod_ref'];
    for (let i = 0; i < 200_000; i++) lines.push(`P${i}`);
    lines.push('P10', 'P199999');
    await writeFile(source, `${lines.join('\n')}\n`);
    const result = await validateFile({
      source,
      model,
      profile: { entity: 'products' },
      reportFile: join(dir, 'many-report.csv'),
    });
    expect(result.outcomes).toEqual({ valid: 200_000, invalid: 2, skipped: 0 });
    const report = Papa.parse<Record<string, string>>(await readFile(join(dir, 'many-report.csv'), 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    expect(report.slice(-2).map((line) => line.message)).toEqual([
      'column "prod_ref": duplicate reference: "P10" was first used on line 12',
      'column "prod_ref": duplicate reference: "P199999" was first used on line 200001',
    ]);
  });

  it('CSV input with ";": the rejects file keeps the delimiter', async () => {
    const source = join(dir, 'in.csv');
    await writeFile(source, 'prod_ref;prod_pack_size\nP1;2\nP2;2,5\n');
    await validateFile({
      source,
      model,
      profile: { entity: 'products' },
      rejectsFile: join(dir, 'rejects.csv'),
    });
    const parsed = Papa.parse<string[]>(
      (await readFile(join(dir, 'rejects.csv'), 'utf8')).replace(/^\uFEFF/, ''),
      {
        skipEmptyLines: true,
      },
    );
    expect(parsed.meta.delimiter).toBe(';');
    expect(parsed.data).toEqual([
      ['prod_ref', 'prod_pack_size', '_error', '_source'],
      ['P2', '2,5', 'column "prod_pack_size": must be a whole number, got "2,5"', 'line 3'],
    ]);
  });
});

describe('validateRows', () => {
  it('reports duplicate refs with the first location, and counts the top errors', async () => {
    const rows = csvRows(
      ['frmt_ref', 'frmt_stock'],
      [
        ['V1', '1'],
        ['V2', 'x'],
        ['V1', '2'],
        ['V3', 'y'],
      ],
    );
    const summary = await validateRows({ rows: iterate(rows), model, profile: { entity: 'variants' } });
    expect(summary.outcomes).toEqual({ valid: 1, invalid: 3, skipped: 0 });
    expect(summary.topErrors).toEqual([
      { message: 'column "frmt_stock": must be a whole number', count: 2, first: 'line 3' },
      {
        message: 'column "frmt_ref": duplicate reference: first used on line 2',
        count: 1,
        first: 'line 4',
      },
    ]);
  });

  it('checks duplicates over the whole file when its refs outgrow memory (they go to disk)', async () => {
    const rows = csvRows(['frmt_ref'], [['V1'], ['V2'], ['V3'], ['V4'], ['V1'], ['V4'], ['V5'], ['V3']]);
    const summary = await validateRows({
      rows: iterate(rows),
      model,
      profile: { entity: 'variants' },
      refLimit: 2,
    });
    expect(summary.outcomes).toEqual({ valid: 5, invalid: 3, skipped: 0 });
    expect(summary.warnings).toEqual([]);
    expect(summary.topErrors.map((e) => e.message).sort()).toEqual([
      'column "frmt_ref": duplicate reference: first used on line 2',
      'column "frmt_ref": duplicate reference: first used on line 4',
      'column "frmt_ref": duplicate reference: first used on line 5',
    ]);
  });

  it('pulls rows one at a time (a slow report writer holds the reader back)', async () => {
    let pulled = 0;
    let maxAhead = 0;
    let written = 0;
    async function* source() {
      for (const row of csvRows(
        ['frmt_ref'],
        Array.from({ length: 50 }, (_, i) => [`V${i}`]),
      )) {
        pulled += 1;
        maxAhead = Math.max(maxAhead, pulled - written);
        yield row;
      }
    }
    const write = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      written += 1;
    };
    const report = { write, writeValid: write, close: async () => {} };
    await validateRows({ rows: source(), model, profile: { entity: 'variants' }, report });
    expect(written).toBe(50);
    expect(maxAhead).toBe(1);
  });
});

async function* iterate<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}
