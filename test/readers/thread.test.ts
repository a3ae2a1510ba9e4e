// Reading on a second thread: openSourceThreaded(…, 'on') must be indistinguishable from openSource().
// Every case reads the same real file both ways and compares rows, errors and the opened source.
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { beforeAll, describe, expect, it } from 'vitest';
import { CatalogIoError } from '../../src/errors.js';
import type { Profile } from '../../src/mappers/profile-types.js';
import {
  type OpenedSource,
  openSource,
  openSourceThreaded,
  type ReaderOptions,
  type SourceRow,
} from '../../src/readers/index.js';
import { type BufferedRows, TableRow } from '../../src/readers/types.js';
import { validateFile } from '../../src/runner/validate.js';
import { demoModel } from '../mappers/demo-model.js';

/** More rows than one batch (1,000) several times over, so batches and header lists travel. */
const ROWS = 3500;

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-io-thread-'));
});

async function fixture(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

/** Everything a consumer can see of a row, as plain data (cells have a null prototype). */
function rowView(row: SourceRow) {
  return {
    kind: row instanceof TableRow ? 'table' : 'keyed',
    location: { ...row.location },
    cells: { ...row.cells },
    index: row.index,
    error: row.error,
    values: row.values ? [...row.values] : undefined,
    headers: row.headers ? [...row.headers] : undefined,
  };
}

function sourceView(source: OpenedSource) {
  return {
    format: source.format,
    encoding: source.encoding,
    delimiter: source.delimiter,
    headers: [...source.headers],
    notes: [...source.notes],
    source: source.source,
    totalBytes: source.totalBytes,
  };
}

function errorView(error: unknown) {
  if (!(error instanceof CatalogIoError)) return { notCoded: String(error) };
  return { code: error.code, message: error.message, location: error.location, details: error.details };
}

interface Reading {
  opened: ReturnType<typeof sourceView>;
  rows: SourceRow[];
  /** The source after its last row: JSON headers and notes grow while reading. */
  ended: ReturnType<typeof sourceView>;
  error?: ReturnType<typeof errorView>;
}

/** Reads a whole source, keeping the rows before a failure and the failure itself. */
async function readThrough(open: () => Promise<OpenedSource>): Promise<Reading> {
  const source = await open();
  const opened = sourceView(source);
  const rows: SourceRow[] = [];
  try {
    for await (const row of source.rows) rows.push(row);
  } catch (err) {
    await source.close();
    return { opened, rows, ended: sourceView(source), error: errorView(err) };
  }
  await source.close();
  return { opened, rows, ended: sourceView(source) };
}

const inline = (spec: string, options: ReaderOptions = {}) => readThrough(() => openSource(spec, options));
const threaded = (spec: string, options: ReaderOptions = {}) =>
  readThrough(() => openSourceThreaded(spec, options, 'on'));

/** Compares row by row, so a difference names its row rather than printing two long lists. */
function expectSameRows(actual: SourceRow[], expected: SourceRow[]): void {
  for (let i = 0; i < Math.min(actual.length, expected.length); i++) {
    const got = rowView(actual[i]!);
    const want = rowView(expected[i]!);
    if (!isDeepStrictEqual(got, want))
      expect(got, `row ${i + 1} (${want.location.text})`).toStrictEqual(want);
  }
  expect(actual.length, 'number of rows').toBe(expected.length);
}

async function expectSameReading(spec: string, options: ReaderOptions = {}): Promise<Reading> {
  const want = await inline(spec, options);
  const got = await threaded(spec, options);
  expect(got.opened).toStrictEqual(want.opened);
  expectSameRows(got.rows, want.rows);
  expect(got.ended).toStrictEqual(want.ended);
  expect(got.error).toStrictEqual(want.error);
  return want;
}

async function failureOf(open: () => Promise<OpenedSource>): Promise<unknown> {
  try {
    const source = await open();
    await source.close();
  } catch (err) {
    return err;
  }
  return undefined;
}

/**
 * A CSV with what makes CSV hard: quoted delimiters, a record over several lines, a row longer and a
 * row shorter than the header, a blank line.
 */
function awkwardCsv(options: { delimiter: string; newline: string; name: string }): string {
  const { delimiter: d, newline: nl } = options;
  const lines = [['sku', 'name', 'price', 'description'].join(d)];
  for (let i = 1; i <= ROWS; i++) {
    if (i === 1234) lines.push(`SKU-${i}${d}five${d}1${d}cells${d}extra`);
    else if (i === 1235) lines.push(`SKU-${i}${d}only two`);
    else if (i % 500 === 0)
      lines.push(`SKU-${i}${d}"${options.name} ${i}"${d}${i}${d}"first line${nl}second ""quoted"" line"`);
    else lines.push(`SKU-${i}${d}"${options.name}${d} size ${i}"${d}${i % 97}${d}plain ${i}`);
    if (i === 2000) lines.push('');
  }
  return lines.join(nl) + nl;
}

/** Keyed records whose keys differ from row to row, with nested objects and lists. */
function record(i: number): Record<string, unknown> {
  const item: Record<string, unknown> = { sku: `N-${i}`, attrs: { color: i % 2 ? 'red' : 'blue' } };
  if (i % 3) item.price = i / 4;
  if (i % 5 === 0) item.attrs = { color: 'green', size: { eu: 40 + (i % 6), us: null } };
  if (i % 7 === 0) item.tags = ['a', `t${i}`];
  if (i > 2500) item.late = true;
  if (i % 11 === 0) item.name = 'Crème brûlée';
  return item;
}

async function workbook(): Promise<string> {
  const book = new ExcelJS.Workbook();
  const products = book.addWorksheet('Products');
  products.addRow(['sku', 'price', 'active', 'released', 'note']);
  for (let i = 1; i <= 2000; i++) {
    products.addRow([
      `P-${i}`,
      i % 13 === 0 ? null : i * 1.25,
      i % 2 === 0,
      new Date(Date.UTC(2024, i % 12, 1 + (i % 28), 8, 30)),
      i % 7 === 0 ? null : `note ${i}`,
    ]);
  }
  const prices = book.addWorksheet('Prices');
  prices.addRow(['sku', 'amount', 'currency']);
  for (let i = 1; i <= 1600; i++) prices.addRow([`P-${i}`, i % 9 === 0 ? null : i * 10, 'EUR']);
  book.addWorksheet('Ignored').addRow(['nothing', 'here']);
  return fixture('two-sheets.xlsx', Buffer.from(await book.xlsx.writeBuffer()));
}

describe('reading on a second thread gives the rows openSource() gives', () => {
  it('equivalence: CSV with quotes, a multi-line cell, a ragged row, a blank line and a BOM', async () => {
    const path = await fixture(
      'bom.csv',
      `\ufeff${awkwardCsv({ delimiter: ',', newline: '\n', name: 'Café, crème' })}`,
    );
    const { rows, opened, ended } = await expectSameReading(path);
    // The fixture holds what it claims, so the comparison above is not vacuous.
    expect(opened.headers[0]).toBe('sku');
    expect(rows.length).toBe(ROWS);
    expect(rows.filter((row) => row.error).map((row) => row.error!.code)).toEqual(['CSV_ROW_LENGTH']);
    // The short row's note is known only at the end, and crosses the thread too.
    expect(ended.notes.filter((note) => note.includes('fewer cells'))).toHaveLength(1);
    expect(rows[499]!.cells.description).toBe('first line\nsecond "quoted" line');
  });

  it('equivalence: windows-1252 CSV with semicolons and CRLF line ends', async () => {
    const text = awkwardCsv({ delimiter: ';', newline: '\r\n', name: 'Übergröße “XL” 3,50 €' });
    const path = await fixture('cp1252.csv', iconv.encode(text, 'windows-1252'));
    const { opened, rows } = await expectSameReading(path);
    expect(opened.encoding).toBe('windows-1252');
    expect(opened.delimiter).toBe(';');
    expect(rows[0]!.cells.name).toBe('Übergröße “XL” 3,50 €; size 1');
  });

  it('equivalence: XLSX with two selected sheets (numbers, booleans, dates, empty cells)', async () => {
    const path = await workbook();
    const { rows } = await expectSameReading(path, { sheet: ['Products', 'Prices'] });
    expect(rows.filter((row) => row.location.sheet === 'Prices')).toHaveLength(1600);
    expect(rows.some((row) => row.cells.price === null)).toBe(true);
    expect(typeof rows[0]!.cells.active).toBe('boolean');
  });

  it('equivalence: NDJSON with nested objects and keys that differ between rows', async () => {
    const lines: string[] = [];
    for (let i = 1; i <= ROWS; i++) lines.push(JSON.stringify(record(i)));
    const path = await fixture('items.ndjson', `${lines.join('\n')}\n`);
    const { ended, opened, rows } = await expectSameReading(path);
    expect(rows).toHaveLength(ROWS);
    // The header learnt keys after the first batch: the threaded side must have followed.
    expect(ended.headers.length).toBeGreaterThan(opened.headers.length);
    expect(ended.headers).toContain('late');
  });

  it('equivalence: a JSON array with nested objects and keys that differ between rows', async () => {
    const items: string[] = [];
    for (let i = 1; i <= ROWS; i++) items.push(JSON.stringify(record(i), null, 1));
    const path = await fixture('items.json', `[\n${items.join(',\n')}\n]\n`);
    const { ended, rows } = await expectSameReading(path);
    expect(rows).toHaveLength(ROWS);
    expect(ended.headers).toContain('late');
  });

  it('every row of a sheet shares one headers array', async () => {
    const path = await workbook();
    const { rows } = await threaded(path, { sheet: ['Products', 'Prices'] });
    const firstOfSheet = new Map<string | undefined, SourceRow>();
    for (const row of rows) {
      const first = firstOfSheet.get(row.location.sheet) ?? row;
      firstOfSheet.set(row.location.sheet, first);
      expect(row.headers, row.location.text).toBe(first.headers);
    }
    expect([...firstOfSheet.keys()]).toEqual(['Products', 'Prices']);
    const csv = await threaded(
      await fixture('shared.csv', awkwardCsv({ delimiter: ',', newline: '\n', name: 'x' })),
    );
    const csvHeaders = csv.rows[0]!.headers;
    expect(csvHeaders).toBeDefined();
    expect(csv.rows.every((row) => row.headers === csvHeaders)).toBe(true);
  });
});

describe('errors on a second thread are the errors openSource() gives', () => {
  it('an error in the middle of the file arrives after the same rows, with the same code and message', async () => {
    const lines: string[] = [];
    for (let line = 1; line <= 3000; line++)
      lines.push(line === 2345 ? '{"sku": "BROKEN", "price": 1,}' : JSON.stringify(record(line)));
    const ndjson = await expectSameReading(await fixture('broken.ndjson', `${lines.join('\n')}\n`));
    // NDJSON lines are independent: the broken one is a row error at its line, and reading goes on.
    const broken = ndjson.rows.filter((row) => row.error);
    expect(broken.map((row) => row.location.line)).toEqual([2345]);

    const csvText = awkwardCsv({ delimiter: ',', newline: '\n', name: 'n' });
    const csv = await expectSameReading(
      await fixture('unclosed.csv', `${csvText}SKU-LAST,"never closed,1\nmore text\n`),
    );
    expect(csv.error?.code).toBe('CSV_QUOTE_NOT_CLOSED');
    expect(csv.rows).toHaveLength(ROWS);

    // A JSON array is one document: a syntax error part-way ends the reading, after the items before it.
    const items: string[] = [];
    for (let i = 1; i <= 3000; i++)
      items.push(i === 2345 ? '{"sku": "BROKEN" "price": 1}' : JSON.stringify(record(i)));
    const json = await expectSameReading(await fixture('broken.json', `[\n${items.join(',\n')}\n]\n`));
    expect(json.error?.code).toMatch(/^JSON_/);
    expect(json.rows.length).toBeGreaterThan(2000);
  });

  it('opening a missing file or an empty file fails with the same code and message', async () => {
    const missing = join(dir, 'no-such-file.csv');
    const empty = await fixture('empty.csv', '');
    for (const spec of [missing, empty]) {
      const want = await failureOf(() => openSource(spec));
      const got = await failureOf(() => openSourceThreaded(spec, {}, 'on'));
      expect(want, spec).toBeInstanceOf(CatalogIoError);
      expect(got, spec).toBeInstanceOf(CatalogIoError);
      expect(errorView(got)).toStrictEqual(errorView(want));
    }
  });
});

describe('the reading thread ends with its reading', () => {
  let bigCsv = '';

  beforeAll(async () => {
    const lines = ['sku,name,price'];
    for (let i = 1; i <= 50_000; i++) lines.push(`SKU-${i},Name ${i},${i % 1000}.99`);
    bigCsv = await fixture('big.csv', `${lines.join('\n')}\n`);
  });

  it('stopping early with rows.return() ends the worker and the source reads no more', async () => {
    const source = await openSourceThreaded(bigCsv, {}, 'on');
    const indexes: number[] = [];
    for await (const row of source.rows) {
      indexes.push(row.index);
      if (indexes.length === 10) break; // calls rows.return()
    }
    expect(indexes).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await source.close();
    expect(await source.rows[Symbol.asyncIterator]().next()).toStrictEqual({ done: true, value: undefined });
  });

  it('stopping early with close() ends the worker and the source reads no more, as inline', async () => {
    const results: Array<IteratorResult<SourceRow>> = [];
    for (const open of [() => openSource(bigCsv), () => openSourceThreaded(bigCsv, {}, 'on')]) {
      const source = await open();
      const rows = source.rows[Symbol.asyncIterator]();
      for (let i = 1; i <= 10; i++) expect((await rows.next()).value?.index).toBe(i);
      await source.close();
      results.push(await rows.next());
    }
    const [inlineAfter, threadedAfter] = results;
    expect(inlineAfter).toStrictEqual({ done: true, value: undefined });
    expect(threadedAfter?.done, `threaded row after close: ${threadedAfter?.value?.location.text}`).toBe(
      true,
    );
  });

  it('bytesRead() grows while rows are read and reaches the file size; totalBytes is the file size', async () => {
    const size = (await stat(bigCsv)).size;
    const source = await openSourceThreaded(bigCsv, {}, 'on');
    expect(source.totalBytes).toBe(size);
    const seen: number[] = [source.bytesRead()];
    let rows = 0;
    for await (const _row of source.rows) {
      rows += 1;
      const read = source.bytesRead();
      if (read !== seen[seen.length - 1]) seen.push(read);
    }
    seen.push(source.bytesRead());
    await source.close();
    expect(rows).toBe(50_000);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
    expect(seen.filter((read) => read > 0 && read < size).length, 'readings part-way').toBeGreaterThan(1);
    expect(seen[seen.length - 1]).toBe(size);
  });

  it('takeBuffered() hands out rows in order without awaiting, and next() goes on at the right row', async () => {
    const want = (await inline(bigCsv)).rows;
    const source = await openSourceThreaded(bigCsv, {}, 'on');
    const rows = source.rows[Symbol.asyncIterator]() as AsyncIterator<SourceRow> & BufferedRows;
    const got: SourceRow[] = [];
    let takenWithoutWait = 0;
    // Between two next() calls take a varying number of buffered rows (0 to 9, or all that are held).
    for (let round = 0; ; round++) {
      const next = await rows.next();
      if (next.done) break;
      got.push(next.value);
      const limit = round % 11 === 10 ? Number.POSITIVE_INFINITY : round % 10;
      for (let k = 0; k < limit; k++) {
        const held = rows.takeBuffered();
        if (held === undefined) break;
        expect(held).toBeInstanceOf(TableRow); // a row, not a promise of one
        got.push(held);
        takenWithoutWait += 1;
      }
    }
    await source.close();
    expect(takenWithoutWait).toBeGreaterThan(want.length / 2);
    expect(got.map((row) => row.index)).toEqual(want.map((row) => row.index));
    expectSameRows(got, want);
  });
});

describe('validateFile reads the same on a second thread', () => {
  const model = demoModel();

  async function bothWays(source: string, profile: Profile) {
    const outputs: Array<{ result: unknown; report: Buffer; rejects: Buffer }> = [];
    for (const readThread of ['off', 'on'] as const) {
      const reportFile = join(dir, `${readThread}-report-${source.length}.csv`);
      const rejectsFile = join(dir, `${readThread}-rejects-${source.length}.csv`);
      const result = await validateFile({ source, model, profile, reportFile, rejectsFile, readThread });
      outputs.push({ result, report: await readFile(reportFile), rejects: await readFile(rejectsFile) });
    }
    const [off, on] = outputs as [(typeof outputs)[0], (typeof outputs)[0]];
    expect(on.result).toStrictEqual(off.result);
    expect(on.report.equals(off.report), 'report files are byte-identical').toBe(true);
    expect(on.rejects.equals(off.rejects), 'rejects files are byte-identical').toBe(true);
    return off;
  }

  it('the supplier update sample: byte-identical report and rejects', async () => {
    // The sample's columns are the variant fields themselves: no profile file, only the entity
    // (as the demo and `validate --entity variants` read it).
    const off = await bothWays(join(process.cwd(), 'samples', 'supplier-update.csv'), { entity: 'variants' });
    expect(off.result).toMatchObject({ rows: 4, outcomes: { valid: 3, invalid: 1 } });
    expect(off.rejects.toString('utf8')).toContain('SMP-CHINO-NAVY-32');
  });

  it('a generated CSV of 5,000 rows with invalid rows: byte-identical report and rejects', async () => {
    const lines = ['SKU,Price,Stock,Status'];
    let broken = 0;
    for (let i = 1; i <= 5000; i++) {
      const price = i % 113 === 0 ? '12,5O' : `${i % 500}.25`;
      const stock = i % 301 === 0 ? '1.5' : String(i % 40);
      const status = i % 257 === 0 ? 'gone' : i % 2 ? 'active' : 'inactive';
      if (i % 113 === 0 || i % 301 === 0 || i % 257 === 0) broken += 1;
      lines.push(i === 4321 ? `V-${i},"ragged, row"` : `V-${i},${price},${stock},${status}`);
    }
    const source = await fixture('variants-5000.csv', `${lines.join('\r\n')}\r\n`);
    const off = await bothWays(source, {
      entity: 'variants',
      columns: { SKU: 'frmt_ref', Price: 'frmt_price', Stock: 'frmt_stock', Status: 'frmt_stat' },
    });
    expect(off.result).toMatchObject({ rows: 5000 });
    expect((off.result as { outcomes: { invalid: number } }).outcomes.invalid).toBeGreaterThanOrEqual(broken);
  });
});
