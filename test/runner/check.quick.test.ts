// The plain lane of validate (`RowChecker.quick`) judges simple table rows without building drafts. It may
// step aside (undefined) whenever it is unsure, but whatever it does say must be what the full check
// (`RowChecker.check`) says of the same row: same entity and ref, valid exactly when the check finds no
// error, and for a duplicate the same message. These properties hold it to that on tricky cells.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../src/mappers/profile-types.js';
import { type Cell, type Location, type SourceRow, TableRow } from '../../src/readers/types.js';
import { type CheckedRow, type CheckOptions, type QuickChecked, RowChecker } from '../../src/runner/check.js';
import { validateRows } from '../../src/runner/validate.js';
import type { ReportLine, ReportWriter } from '../../src/writers/report.js';
import { validLine } from '../../src/writers/report-text.js';
import { demoModel } from '../mappers/demo-model.js';

const model = demoModel();
const RUNS = 1_000;
const SEED = 20261125;

// ---- cells ------------------------------------------------------------------------------------------

/** Texts that sit on the edges of the one-pass readers: marks, signs, exponents, separators, guards. */
const EDGE_TEXTS = [
  '',
  ' ',
  '0',
  '-0',
  '+5',
  '007',
  '12',
  ' 12 ',
  '-3.5',
  '12,5',
  '1,234',
  '0,123',
  '1,234.5',
  '1.',
  '.5',
  '1e5',
  '1E-7',
  'e',
  '-',
  '+',
  ',',
  '.',
  'NaN',
  'Infinity',
  '99999999999999999999999',
  '2024-02-29',
  '2025-02-29',
  '2025-02-30',
  '2025-13-01',
  '2025-01-31',
  '2025-1-31',
  '2025-01-31x',
  '2025-01-31T10:00',
  '2024-03-05T10:00:00Z',
  '2024-03-05T10:00:00.000Z',
  '2024-03-05T10:00:00.120Z',
  '2024-02-30T10:00:00Z',
  '2024-03-05T24:00:00Z',
  '2024-12-31T23:59:60Z',
  '2024-03-05T10:00:00z',
  '2024-03-05 10:00:00Z',
  '2024-03-05T10:00:00+01:00',
  '2024-03-05T10:00:00.5Z',
  '0050-01-01T00:00:00Z',
  '31/01/2025',
  '|',
  ' | ',
  'a|b',
  ' a | | b ',
  '1|2',
  "'=1+2",
  "'-3",
  "'+4",
  "'@home",
  "''=x",
  "'",
  '=SUM(A1)',
  'spring',
  'Summer',
  'photo.jpg',
  'https://cdn.example.test/a.png',
  'x'.repeat(50),
  'x'.repeat(51),
  'x'.repeat(64),
  'x'.repeat(65),
  'x'.repeat(100),
  'x'.repeat(101),
  'x'.repeat(255),
  'x'.repeat(256),
  '\u{1F600}'.repeat(40),
];

const trickyChar = fc.constantFrom(..."0123456789,.-+eE |'=:T/a".split(''));

const trickyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EDGE_TEXTS) },
  { weight: 4, arbitrary: fc.string({ unit: trickyChar, maxLength: 14 }) },
  // Long texts around the limits (64 refs, 50 tags, 100 brands, 255 titles), sometimes split into a list.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 40, max: 300 }), fc.constantFrom('', '|', ' | '))
      .map(([n, mark]) => `${'y'.repeat(n)}${mark}${mark ? 'z' : ''}`),
  },
);

/** XLSX cells: numbers as the sheet stores them, including the ones no field takes. */
const sheetNumber = fc.oneof(
  fc.integer({ min: -1_000, max: 1_000 }),
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.5, -0, 1e21, 2 ** 53),
);

const anyCell: fc.Arbitrary<Cell> = fc.oneof(
  { weight: 8, arbitrary: trickyText },
  { weight: 2, arbitrary: sheetNumber },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.boolean() },
);

/** Refs from a small pool (so duplicates happen) or any tricky cell. */
const refCell: fc.Arbitrary<Cell> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('P-1', 'P-2', 'P-3', ' P-1 ', 'p-1', 'P-2|P-3', 7, '7') },
  { weight: 1, arbitrary: anyCell },
);

/** Cells a simple profile reads without trouble: the controls that show the plain lane is really taken. */
const cleanCells: Record<string, fc.Arbitrary<Cell>> = {
  prod_ref: fc.constantFrom('P-1', 'P-2', 'P-3', 'P-4'),
  prod_brand: fc.constantFrom('Acme', 'Globex', ''),
  prod_weight: fc.constantFrom('1.5', '12', '0,25', ''),
  prod_pack_size: fc.constantFrom('6', '12', ''),
  prod_release_date: fc.constantFrom('2025-01-31', ''),
  prod_date: fc.constantFrom('2024-03-05T10:00:00Z', '2024-03-05T10:00:00.250Z', ''),
};

// ---- rows -------------------------------------------------------------------------------------------

/**
 * The columns of the profile under test: each kind of plain reading (text with a limit, multilingual in
 * the base language and in `fr`, number, integer, date, date-time, a list, a link list), plus what keeps a layout
 * off the plain lane (an enum, an image) and a column no field matches.
 */
const OPTIONAL_COLUMNS = [
  'prod_brand',
  'prod_title',
  'prod_title_fr',
  'prod_weight',
  'prod_pack_size',
  'prod_release_date',
  'prod_date',
  'prod_tags',
  'cat_refs',
  'prod_season',
  'prod_images',
  'colour',
];

/** Header lists: the ref plus a shuffled subset; enum and image columns in some runs only. */
function headerLists(extra: string[] = []): fc.Arbitrary<string[]> {
  return fc
    .shuffledSubarray(OPTIONAL_COLUMNS, { minLength: 1 })
    .chain((chosen) =>
      fc.shuffledSubarray([...chosen, 'prod_ref', ...extra], { minLength: chosen.length + 1 + extra.length }),
    );
}

function location(line: number): Location {
  return { text: `line ${line}`, source: 'feed.csv', line };
}

interface Sheet {
  headers: string[];
  /** Cells by position, one array per row. */
  rows: Cell[][];
}

/** A header list and rows for it (ONE headers array per sheet, as the readers hand it out). */
function sheets(
  cellFor: (header: string) => fc.Arbitrary<Cell>,
  extra: string[] = [],
  rowCount = { min: 1, max: 8 },
): fc.Arbitrary<Sheet> {
  return headerLists(extra).chain((headers) =>
    fc
      .array(fc.tuple(...headers.map(cellFor)), { minLength: rowCount.min, maxLength: rowCount.max })
      .map((rows) => ({ headers, rows: rows as Cell[][] })),
  );
}

function tableRows(sheet: Sheet): TableRow[] {
  return sheet.rows.map((values, i) => new TableRow(location(i + 2), values, sheet.headers, i + 1));
}

// ---- the agreement itself ---------------------------------------------------------------------------

/** What a report would say of the row: the part of a verdict both ways must agree on. */
function verdictOfCheck(checked: CheckedRow) {
  const draft = checked.mapped.drafts[0];
  return {
    entity: draft?.entity,
    ref: draft?.ref,
    outcome: checked.errors.length ? 'invalid' : checked.skipped ? 'skipped' : 'valid',
    errors: checked.errors.map(({ field, column, message, value }) => ({ field, column, message, value })),
  };
}

function verdictOfQuick(quick: QuickChecked) {
  return {
    entity: quick.entity,
    ref: quick.ref,
    outcome: quick.errors.length ? 'invalid' : 'valid',
    errors: quick.errors.map(({ field, column, message, value }) => ({ field, column, message, value })),
  };
}

/**
 * Feeds the same rows, in the same order, to two fresh checkers: A asks the plain lane first (and the
 * full check when it steps aside, as validate does, so its duplicate memory stays in step), B always
 * runs the full check. Every plain verdict must equal B's. Returns how many rows took the plain lane.
 */
function agreeOnSheet(options: Omit<CheckOptions, 'model'>, rows: SourceRow[]): number {
  const a = new RowChecker({ model, ...options });
  const b = new RowChecker({ model, ...options });
  let plain = 0;
  for (const row of rows) {
    const quick = a.quick(row);
    const full = b.check(row);
    if (quick === undefined) {
      a.check(row);
      continue;
    }
    plain += 1;
    expect(full.mapped.drafts, `${row.location.text}: the full check makes one draft`).toHaveLength(1);
    expect(verdictOfQuick(quick), `${row.location.text} ${JSON.stringify(row.values)}`).toEqual(
      verdictOfCheck(full),
    );
  }
  return plain;
}

/** Runs a sheet property and checks that the plain lane was really exercised (not a vacuous pass). */
function assertAgreement(
  options: Omit<CheckOptions, 'model'>,
  sheet: fc.Arbitrary<Sheet>,
  extraCheck?: (row: TableRow, quick: QuickChecked | undefined) => void,
  minPlainRows = RUNS / 10,
): void {
  let plainRows = 0;
  fc.assert(
    fc.property(sheet, (generated) => {
      const rows = tableRows(generated);
      if (extraCheck) {
        const probe = new RowChecker({ model, ...options });
        for (const row of rows) {
          const quick = probe.quick(row);
          extraCheck(row, quick);
          if (!quick) probe.check(row);
        }
      }
      plainRows += agreeOnSheet(options, rows);
    }),
    // A recorded seed: the count of plain rows below is a property of the cases drawn, not of luck.
    { numRuns: RUNS, seed: SEED },
  );
  expect(plainRows, 'rows judged by the plain lane').toBeGreaterThan(minPlainRows);
}

/** The ref column draws from the ref pool, every other column from any tricky cell. */
const anyCellFor = (header: string) => (header === 'prod_ref' ? refCell : anyCell);

describe('RowChecker.quick agrees with RowChecker.check', () => {
  it('on tricky text, sheet numbers and nulls in every plain column kind', () => {
    assertAgreement({ profile: { entity: 'products' } }, sheets(anyCellFor));
  });

  it('in strict mode (unknown columns make rows invalid)', () => {
    assertAgreement({ profile: { entity: 'products' }, strict: true }, sheets(anyCellFor));
  });

  it('when the CSV formula guard is taken off (cells starting with a quote)', () => {
    const guarded = fc.oneof(
      anyCell,
      fc.constantFrom("'=1+2", "'-3", "'+4", "'@home", "'=", "'", "''=x"),
      trickyText.map((text) => `'=${text}`),
    );
    assertAgreement(
      { profile: { entity: 'products' }, unguardFormulas: true },
      sheets((header) => (header === 'prod_ref' ? fc.oneof(refCell, guarded) : guarded)),
      undefined,
      // Most rows hold a guarded cell somewhere and step aside: a few in a hundred take the lane.
      RUNS / 40,
    );
  });

  it('with a _command column: the plain lane steps aside whenever the command is not blank', () => {
    const command = fc.constantFrom<Cell>(
      '',
      ' ',
      null,
      'MERGE',
      'merge',
      ' NEW ',
      'UPDATE',
      'DELETE',
      'IGNORE',
      'bogus',
      "'=MERGE",
      0,
    );
    assertAgreement(
      { profile: { entity: 'products' } },
      sheets((header) => (header === '_command' ? command : anyCellFor(header)), ['_command']),
      (row, quick) => {
        const cell = row.values[row.headers.indexOf('_command')];
        const blank = cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');
        if (!blank) expect(quick, `${row.location.text}: command ${JSON.stringify(cell)}`).toBeUndefined();
      },
      // Three commands in twelve are blank: fewer rows take the lane than without the column.
      RUNS / 20,
    );
  });

  it('with a renamed command column and column rules that keep the plain reading (rename, culture, split)', () => {
    const profile: Profile = {
      entity: 'products',
      commandColumn: 'Action',
      columns: {
        SKU: 'prod_ref',
        Titre: { field: 'prod_title', culture: 'fr' },
        Tags: { field: 'prod_tags', split: ';' },
        Categories: { field: 'cat_refs', split: ',' },
      },
    };
    const renamed: Record<string, string> = {
      prod_ref: 'SKU',
      prod_title_fr: 'Titre',
      prod_tags: 'Tags',
      cat_refs: 'Categories',
    };
    const cellFor = (header: string) =>
      header === 'SKU'
        ? refCell
        : header === 'Action'
          ? fc.constantFrom<Cell>('', null, 'MERGE', 'IGNORE')
          : fc.oneof(anyCell, fc.constantFrom('a;b', ' a ; ; b ', '1,2', 'a,b;c'));
    assertAgreement(
      { profile },
      sheets(cellFor, ['Action']).map(({ headers, rows }) => ({
        headers: headers.map((h) => renamed[h] ?? h),
        rows,
      })),
    );
  });
});

// ---- profiles and rows that never take the plain lane ------------------------------------------------

describe('RowChecker.quick steps aside', () => {
  const cleanSheet = (headers: string[]) =>
    fc
      .array(fc.tuple(...headers.map((h) => cleanCells[h] ?? fc.constant<Cell>('spring'))), {
        minLength: 1,
        maxLength: 6,
      })
      .map((rows) => ({ headers, rows: rows as Cell[][] }));

  const BASE_HEADERS = ['prod_ref', 'prod_brand', 'prod_weight', 'prod_pack_size', 'prod_release_date'];

  const NEVER_PLAIN: Array<{ name: string; options: Omit<CheckOptions, 'model'>; headers: string[] }> = [
    {
      name: 'variants: true',
      options: { profile: { entity: 'products', variants: true } },
      headers: BASE_HEADERS,
    },
    {
      name: 'fillDown: true',
      options: { profile: { entity: 'products', fillDown: true } },
      headers: BASE_HEADERS,
    },
    {
      name: 'fillDown on one column',
      options: { profile: { entity: 'products', fillDown: ['prod_brand'] } },
      headers: BASE_HEADERS,
    },
    {
      name: 'a fields rule with a constant',
      options: { profile: { entity: 'products', fields: { prod_brand: { constant: 'Acme' } } } },
      headers: BASE_HEADERS,
    },
    {
      name: 'a column rule with a value table',
      options: {
        profile: { entity: 'products', columns: { Weight: { field: 'prod_weight', map: { none: 0 } } } },
      },
      headers: [...BASE_HEADERS.filter((h) => h !== 'prod_weight'), 'Weight'],
    },
    {
      name: 'a column rule with a default',
      options: {
        profile: { entity: 'products', columns: { Brand: { field: 'prod_brand', default: 'Acme' } } },
      },
      headers: [...BASE_HEADERS.filter((h) => h !== 'prod_brand'), 'Brand'],
    },
    {
      name: 'a column rule naming an enum field',
      options: { profile: { entity: 'products', columns: { Season: 'prod_season' } } },
      headers: [...BASE_HEADERS, 'Season'],
    },
    {
      name: 'an enum column by its field name',
      options: { profile: { entity: 'products' } },
      headers: [...BASE_HEADERS, 'prod_season'],
    },
    {
      name: 'an import mode (default command)',
      options: { profile: { entity: 'products' }, defaultCommand: 'UPDATE' },
      headers: BASE_HEADERS,
    },
  ];

  for (const { name, options, headers } of NEVER_PLAIN) {
    it(`for profiles with ${name}`, () => {
      fc.assert(
        fc.property(cleanSheet(headers), (sheet) => {
          const checker = new RowChecker({ model, ...options });
          // Control: the same rows under a simple profile take the plain lane (the columns the feature
          // names are unknown there, and ignored), so stepping aside is the profile's doing.
          const simple = new RowChecker({ model, profile: { entity: 'products' } });
          const control = sheet.headers.map((h) => (h === 'prod_season' ? 'Season' : h));
          for (const [i, values] of sheet.rows.entries()) {
            const row = new TableRow(location(i + 2), values, sheet.headers, i + 1);
            expect(checker.quick(row), row.location.text).toBeUndefined();
            checker.check(row);
            const plainRow = new TableRow(location(i + 2), values, control, i + 1);
            expect(simple.quick(plainRow), `control ${row.location.text}`).toBeDefined();
          }
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('for keyed rows (JSON records, no cells by position)', () => {
    fc.assert(
      fc.property(cleanSheet(BASE_HEADERS), (sheet) => {
        const checker = new RowChecker({ model, profile: { entity: 'products' } });
        const control = new RowChecker({ model, profile: { entity: 'products' } });
        for (const [i, values] of sheet.rows.entries()) {
          const table = new TableRow(location(i + 2), values, sheet.headers, i + 1);
          const keyed: SourceRow = { location: table.location, cells: table.cells, index: table.index };
          expect(checker.quick(keyed), keyed.location.text).toBeUndefined();
          checker.check(keyed);
          expect(control.quick(table), `control ${table.location.text}`).toBeDefined();
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('RowChecker.quick on long sheets', () => {
  it('gives the same verdicts when it keeps verdicts on repeated texts and when it stops keeping them', () => {
    // Repeating columns (weight, date, tags) are kept; unique ones (title) stop being kept after 1,024 cells.
    const headers = ['prod_ref', 'prod_title', 'prod_weight', 'prod_release_date', 'prod_tags'];
    const weights = ['1,5', '2', '12.25', 'x', '', ' 3 ', '1e3', '-0'];
    const dates = ['2025-01-31', '2025-02-30', '2024-02-29', '31/01/2025', ''];
    const tags = ['a|b', 'a', ' | ', 'y'.repeat(51), `ok|${'z'.repeat(60)}`];
    const rows = Array.from({ length: 5_000 }, (_, i) => {
      const values: Cell[] = [
        `P-${i % 4_500}`,
        i % 7 === 0 ? 'y'.repeat(300 + (i % 3)) : `Title ${i}`,
        weights[i % weights.length]!,
        dates[(i * 7) % dates.length]!,
        tags[(i * 3) % tags.length]!,
      ];
      return new TableRow(location(i + 2), values, headers, i + 1);
    });
    const plain = agreeOnSheet({ profile: { entity: 'products' } }, rows);
    expect(plain).toBeGreaterThan(1_000);
    expect(plain).toBeLessThan(rows.length);
  });
});

// ---- end to end: validateRows ------------------------------------------------------------------------

/** A report that keeps its lines in memory. */
function memoryReport(): ReportWriter & { lines: ReportLine[] } {
  const lines: ReportLine[] = [];
  const write = (line: ReportLine) => {
    lines.push(line);
    return undefined;
  };
  return {
    lines,
    write,
    writeValid: (location, entity, ref) => write(validLine(location, entity, ref)),
    close: async () => {},
  };
}

async function* stream(rows: SourceRow[]): AsyncGenerator<SourceRow> {
  for (const row of rows) yield row;
}

describe('validateRows with and without the plain lane', () => {
  it('writes the same report lines and summary', async () => {
    // Keyed rows always take the full path: the same rows as keyed records are the run without the lane.
    // Unique headers only: a keyed record cannot hold the same header twice.
    await fc.assert(
      fc.asyncProperty(sheets(anyCellFor, [], { min: 1, max: 20 }), async (sheet) => {
        const table = tableRows(sheet);
        const keyed: SourceRow[] = table.map((row) => ({
          location: row.location,
          cells: row.cells,
          index: row.index,
        }));
        const withLane = memoryReport();
        const without = memoryReport();
        const profile: Profile = { entity: 'products' };
        const a = await validateRows({ rows: stream(table), model, profile, report: withLane });
        const b = await validateRows({ rows: stream(keyed), model, profile, report: without });
        expect(withLane.lines).toHaveLength(table.length);
        for (let i = 0; i < table.length; i++)
          expect(withLane.lines[i], `${table[i]!.location.text} ${JSON.stringify(table[i]!.values)}`).toEqual(
            without.lines[i],
          );
        expect(a).toEqual(b);
      }),
      { numRuns: RUNS },
    );
  });
});
