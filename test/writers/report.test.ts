import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { openReport, REPORT_COLUMNS, type ReportLine } from '../../src/writers/report.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-'));
});

const lines: ReportLine[] = [
  {
    location: 'line 2',
    entity: 'products',
    ref: 'P1',
    outcome: 'valid',
    field: '',
    column: '',
    value: '',
    message: '',
    warnings: '',
  },
  {
    location: 'line 3',
    entity: 'variants',
    ref: 'V1',
    outcome: 'invalid',
    field: 'frmt_price',
    column: 'Price',
    value: '12,5O',
    message: 'column "Price": must be a number, got "12,5O"',
    warnings: '',
  },
  {
    location: 'line 4',
    entity: 'products',
    ref: '',
    outcome: 'skipped',
    field: '',
    column: '',
    value: '=SUM(A1)',
    message: '',
    warnings: '',
  },
];

async function write(name: string): Promise<string> {
  const path = join(dir, name);
  const report = await openReport(path);
  for (const line of lines) await report.write(line);
  await report.close();
  return path;
}

describe('report files', () => {
  it('CSV: a header and one line per row, quotes and all; a cell a spreadsheet would run is guarded', async () => {
    const parsed = Papa.parse<ReportLine>(await readFile(await write('r.csv'), 'utf8'), {
      header: true,
      skipEmptyLines: true,
    });
    expect(parsed.meta.fields).toEqual(REPORT_COLUMNS);
    expect(parsed.data).toEqual(
      lines.map((l) => (l.value === '=SUM(A1)' ? { ...l, value: "'=SUM(A1)" } : l)),
    );
  });

  it('JSON Lines: one object per row', async () => {
    const text = await readFile(await write('r.jsonl'), 'utf8');
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(lines);
  });

  it('XLSX: frozen header, autofilter, invalid rows highlighted', async () => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(await write('r.xlsx'));
    const sheet = workbook.getWorksheet('Report')!;
    expect(sheet.getRow(1).values).toEqual([undefined, ...REPORT_COLUMNS]);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.autoFilter).toBeTruthy();
    expect(sheet.getRow(3).getCell(8).value).toBe('column "Price": must be a number, got "12,5O"');
    const fill = (row: number) =>
      (sheet.getRow(row).getCell(1).fill as ExcelJS.FillPattern | undefined)?.fgColor?.argb;
    expect(fill(3)).toBe('FFFFC7CE');
    expect(fill(2)).toBeUndefined();
    expect(sheet.rowCount).toBe(4);
    // Text cells: what looks like a formula is shown, never run.
    expect(sheet.getRow(4).getCell(7).value).toBe('=SUM(A1)');
    expect(sheet.getRow(4).getCell(7).type).toBe(ExcelJS.ValueType.String);
  });

  it('a valid row written by writeValid is the same line as written whole, in every format', async () => {
    // Locations and refs that need quoting in CSV: a sheet name with a comma, a ref with a quote.
    const valid = [
      ['line 2', 'products', 'P1'],
      ['sheet Fall, 2024 row 3', 'products', 'A "big" one'],
      ['item 4', 'custom:Store Locations', ' padded '],
    ] as const;
    for (const ext of ['csv', 'jsonl', 'xlsx']) {
      const whole = join(dir, `whole.${ext}`);
      const fast = join(dir, `fast.${ext}`);
      const a = await openReport(whole);
      const b = await openReport(fast);
      for (const [location, entity, ref] of valid) {
        await a.write({
          location,
          entity,
          ref,
          outcome: 'valid',
          field: '',
          column: '',
          value: '',
          message: '',
          warnings: '',
        });
        await b.writeValid(location, entity, ref);
      }
      await Promise.all([a.close(), b.close()]);
      if (ext === 'xlsx') {
        const read = async (path: string) => {
          const workbook = new ExcelJS.Workbook();
          await workbook.xlsx.readFile(path);
          return workbook.getWorksheet('Report')!.getSheetValues();
        };
        expect(await read(fast)).toEqual(await read(whole));
      } else expect(await readFile(fast, 'utf8')).toBe(await readFile(whole, 'utf8'));
    }
    const parsed = Papa.parse<ReportLine>(await readFile(join(dir, 'fast.csv'), 'utf8'), {
      header: true,
      skipEmptyLines: true,
    });
    expect(parsed.data.map((l) => [l.location, l.entity, l.ref, l.outcome])).toEqual(
      valid.map((v) => [...v, 'valid']),
    );
  });

  it('refuses an extension it cannot write', async () => {
    await expect(openReport(join(dir, 'r.txt'))).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});

describe('valid lines written as bytes', () => {
  // Refs CSV writes as they are, and every kind it must quote, guard or encode (the text path).
  const refs = [
    'SKU-1',
    '',
    'a,b',
    'say "hi"',
    ' edge',
    'edge ',
    '=SUM(A1)',
    '-5',
    "'quoted",
    'line\nbreak',
    'Größe-ü',
    'emoji-😀',
    'x'.repeat(300),
  ];
  const entities = ['products', 'variants', 'a,b entity'];

  it('are the bytes of the text lines, across chunk ends and entity changes', async () => {
    const asBytes = join(dir, 'bytes.csv');
    const asText = join(dir, 'text.csv');
    const bytes = await openReport(asBytes);
    const text = await openReport(asText);
    expect(bytes.writeValidAt).toBeTypeOf('function');
    // Enough lines to fill several chunks; line numbers of every length up to ten digits.
    let line = 1;
    for (let i = 0; i < 40_000; i++) {
      const ref = refs[i % refs.length]!;
      const entity = entities[Math.floor(i / 5000) % entities.length]!;
      line = i < 39_990 ? i + 2 : 10 ** (i - 39_990) + 7;
      await bytes.writeValidAt!(line, entity, ref);
      await text.writeValid(`line ${line}`, entity, ref);
      if (i % 997 === 0) {
        // Lines written as text in between keep their place.
        const invalid = { ...lines[1]!, location: `line ${line}` };
        await bytes.write(invalid);
        await text.write(invalid);
      }
    }
    await bytes.close();
    await text.close();
    const written = await readFile(asBytes);
    expect(written.length).toBeGreaterThan(3 * 256 * 1024);
    expect(written.equals(await readFile(asText))).toBe(true);
    const parsed = Papa.parse<string[]>(written.toString('utf8'), { skipEmptyLines: true }).data;
    expect(parsed[1]).toEqual(['line 2', 'products', 'SKU-1', 'valid', '', '', '', '', '']);
    expect(parsed.at(-1)?.[0]).toBe(`line ${line}`);
  });

  it('are not offered for JSON Lines, whose lines are text', async () => {
    const report = await openReport(join(dir, 'lines.jsonl'));
    expect(report.writeValidAt).toBeUndefined();
    await report.close();
  });
});
