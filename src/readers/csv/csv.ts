// The CSV reader core: text in, header and rows out. It knows nothing of files, URLs or bytes.
import { CatalogIoError } from '../../errors.js';
import { BatchedRows } from '../batched.js';
import { checkHeaders } from '../headers.js';
import { cellTooLarge, invalidUtf8, recordTooLarge, replacedAt } from '../limits.js';
import { maxRowBytes } from '../options.js';
import { readAhead } from '../sources/peek.js';
import { type Cell, type SourceRow, TableRow } from '../types.js';
import type { DecodeStatus } from '../utf8-part.js';
import { type CsvBatch, countNewlines, csvRecordBatches, guessDelimiter } from './records.js';

export interface CsvSettings {
  source: string;
  /** Fixed delimiter; guessed among `, ; TAB |` when absent. */
  delimiter?: string;
  /** 1-based physical line of the header; records above it are skipped. */
  headerRow: number;
  /** Trim spaces around cells; when undefined, on if the header is space-padded. */
  trim?: boolean;
  maxCellBytes: number;
  /** The decoder's count of invalid UTF-8: while it is 0, no row needs looking at for them. */
  decoded?: DecodeStatus;
  /**
   * Where the notes go (the opened source's): those found at open, and those only the end of the rows
   * tells (short rows), read by whoever reports the run after the last row.
   */
  notes?: string[];
}

export interface OpenedTable {
  headers: string[];
  delimiter?: string;
  /** The physical line of the header record, and whether cells are trimmed: what a part of the file read on its own needs. */
  headerLine?: number;
  trim?: boolean;
  notes: string[];
  rows: AsyncIterable<SourceRow>;
}

const SAMPLE_CHARS = 64 * 1024;

/** Excel's first line `sep=;`: the file's delimiter, the header on the line after it. */
const SEP_HINT = /^"?sep=([^\r\n"])"?[ \t]*(?:\r\n|\n|\r)/i;

export async function readCsv(text: AsyncIterable<string>, given: CsvSettings): Promise<OpenedTable> {
  let settings = given;
  const notes = settings.notes ?? [];
  const { sample, complete, text: replayed } = await sampleText(text, SAMPLE_CHARS);
  if (sample.trim() === '') {
    throw new CatalogIoError('SOURCE_EMPTY', `Empty file: ${settings.source} holds no text`);
  }
  refuseMarkup(sample, settings.source);
  // A file saved for Excel may start with `sep=;`: it names the delimiter and is not the header.
  const hint = settings.headerRow === 1 ? SEP_HINT.exec(sample) : null;
  if (hint) {
    settings = { ...settings, headerRow: 2, delimiter: settings.delimiter ?? hint[1]! };
    notes.push(`line 1 "${hint[0].trim()}" names the delimiter; the header is line 2`);
  }
  let delimiter = settings.delimiter;
  if (!delimiter) {
    delimiter = guessDelimiter(skipLines(sample, settings.headerRow - 1), complete);
    notes.push(`delimiter ${delimiterName(delimiter)} detected`);
  }
  // A record larger than a few cells' limit means an unclosed quote or a giant cell.
  const batches = csvRecordBatches(replayed, delimiter, maxRowBytes(settings.maxCellBytes));
  const iterator = batches[Symbol.asyncIterator]();

  let header: { cells: string[]; line: number } | undefined;
  let rest: CsvBatch = { records: [], lines: new Int32Array(0) };
  while (!header) {
    const next = await iterator.next();
    if (next.done) break;
    const { records, lines, tooLarge, malformed, escapedQuotes } = next.value;
    if (tooLarge) {
      throw new CatalogIoError(
        'CELL_TOO_LARGE',
        `Header too large: more than ${tooLarge.chars} characters before the header line ends (raise --max-cell if the data is genuine)`,
        { location: `line ${tooLarge.line}` },
      );
    }
    const at = records.findIndex((cells, i) => lines[i]! >= settings.headerRow && !isBlank(cells));
    if (at >= 0) {
      header = { cells: records[at]!, line: lines[at]! };
      rest = { records: records.slice(at + 1), lines: lines.slice(at + 1) };
      const after = malformed?.filter((i) => i > at).map((i) => i - at - 1);
      if (after?.length) rest.malformed = after;
      if (escapedQuotes) {
        const moved = new Map<number, string[]>();
        for (const [i, texts] of escapedQuotes) if (i > at) moved.set(i - at - 1, texts);
        if (moved.size > 0) rest.escapedQuotes = moved;
      }
    }
  }
  if (!header) {
    throw new CatalogIoError('CSV_HEADER_EMPTY', `No header: ${settings.source} has no header row`, {
      location: `line ${settings.headerRow}`,
    });
  }
  let trim = settings.trim;
  if (trim === undefined && isPadded(header.cells)) {
    trim = true;
    notes.push('cells trimmed (the header is space-padded)');
  }
  const headers = checkHeaders(
    trim ? repairPaddedQuotes(header.cells, delimiter) : header.cells,
    `line ${header.line}`,
  );
  const rows = new BatchedRows(
    dataRows(rest, iterator, headers, { ...settings, delimiter, trim: Boolean(trim), notes }),
  );
  return { headers, delimiter, notes, rows, headerLine: header.line, trim: Boolean(trim) };
}

/** What `readCsvPart` needs to know of the file a part of it belongs to (its header, read before). */
export interface CsvPartSettings {
  source: string;
  headers: string[];
  delimiter: string;
  trim: boolean;
  maxCellBytes: number;
  /** The physical line the part starts on. */
  firstLine: number;
  decoded?: DecodeStatus;
}

/** Rows shorter or longer than the header in a part: merged over the parts, they make the file's notes. */
export type ShortRows = RowCounter;

/** No row read yet, under a header of `width` columns. */
export function emptyRowCounter(width: number): RowCounter {
  return {
    index: 0,
    short: 0,
    shortest: width,
    longest: 0,
    firstShortLine: 0,
    long: 0,
    widest: 0,
    firstLongLine: 0,
  };
}

/**
 * The data rows of a part of a CSV file that starts on a record boundary after the header (a chunk
 * validated on its own thread, or the rest of a file): the same rows, cells, lines and row errors as
 * `readCsv` gives for those records. `short` fills as the rows are read.
 */
export function readCsvPart(
  text: AsyncIterable<string>,
  settings: CsvPartSettings,
): { rows: BatchedRows; short: ShortRows } {
  const counter = emptyRowCounter(settings.headers.length);
  const batches = csvRecordBatches(
    text,
    settings.delimiter,
    maxRowBytes(settings.maxCellBytes),
    settings.firstLine,
  );
  const rows = new BatchedRows(
    batchesOfRows(
      { records: [], lines: new Int32Array(0) },
      batches[Symbol.asyncIterator](),
      settings.headers,
      { ...settings, headerRow: 1 },
      counter,
    ),
  );
  return { rows, short: counter };
}

/** The parts' short-row counts as one (in the parts' order), and the file's note from them. */
export function mergeShortRows(into: ShortRows, part: ShortRows): void {
  if (part.long > 0) {
    if (into.long === 0) into.firstLongLine = part.firstLongLine;
    into.long += part.long;
    into.widest = Math.max(into.widest, part.widest);
  }
  if (part.short === 0) return;
  if (into.short === 0) into.firstShortLine = part.firstShortLine;
  into.short += part.short;
  into.shortest = Math.min(into.shortest, part.shortest);
  into.longest = Math.max(into.longest, part.longest);
}

/** The file's notes on rows of another length than the header (none when every row fits). */
export function rowLengthNotes(counter: ShortRows, width: number): string[] {
  const notes = [shortRowsNote(counter, width), longRowsNote(counter, width)];
  return notes.filter((note): note is string => note !== undefined);
}

/** The data rows, a batch per chunk of text; a failure comes after the rows read before it. */
async function* dataRows(
  first: CsvBatch,
  batches: AsyncIterator<CsvBatch>,
  headers: string[],
  settings: CsvSettings & { delimiter: string; trim: boolean; notes: string[] },
): AsyncGenerator<SourceRow[]> {
  const counter = emptyRowCounter(headers.length);
  try {
    yield* batchesOfRows(first, batches, headers, settings, counter);
  } finally {
    settings.notes.push(...rowLengthNotes(counter, headers.length));
  }
}

async function* batchesOfRows(
  first: CsvBatch,
  batches: AsyncIterator<CsvBatch>,
  headers: string[],
  settings: CsvSettings & { delimiter: string; trim: boolean },
  counter: RowCounter,
): AsyncGenerator<SourceRow[]> {
  let batch = first;
  for (;;) {
    const { records, lines, tooLarge, malformed, escapedQuotes } = batch;
    // As long as the batch can need (pushed one by one, the array was made again eight times on the way).
    const rows = new Array<SourceRow>(records.length + (tooLarge ? 1 : 0));
    let n = 0;
    if (tooLarge) rows[n++] = tooLargeRow(tooLarge, headers, settings, counter);
    try {
      for (let i = 0; i < records.length; i++) {
        const row = dataRow(records[i]!, lines[i]!, headers, settings, counter);
        if (row && malformed?.includes(i)) row.error = malformedQuotes(records[i]!, lines[i]!, headers);
        const escaped = escapedQuotes?.get(i);
        if (row && escaped) row.escapedQuotes = escaped;
        if (row) rows[n++] = row;
      }
    } catch (err) {
      rows.length = n;
      if (rows.length > 0) yield rows;
      throw err;
    }
    rows.length = n;
    if (rows.length > 0) yield rows;
    const next = await batches.next();
    if (next.done) return;
    batch = next.value;
  }
}

/** The rows read so far, and those shorter or longer than the header (reported once, at the end). */
interface RowCounter {
  index: number;
  short: number;
  shortest: number;
  longest: number;
  firstShortLine: number;
  /** Rows whose cells beyond the header were all empty, and dropped. */
  long: number;
  widest: number;
  firstLongLine: number;
}

/**
 * Rows with fewer cells than the header are read with the missing cells at the end empty (as pandas
 * or csv-parse's `relax_column_count_less` do): a feed whose header gained a column its rows lack is
 * whole otherwise. One note for the file says so, rather than a line per row.
 */
function shortRowsNote(counter: RowCounter, width: number): string | undefined {
  if (counter.short === 0) return undefined;
  const rows = counter.short === 1 ? '1 row has' : `${counter.short} rows have`;
  const { shortest, longest } = counter;
  const cells = shortest === longest ? `${shortest}` : `${shortest} to ${longest}`;
  return `${rows} fewer cells than the header (${cells} of ${width}; first on line ${counter.firstShortLine}): the missing cells at the end were read as empty`;
}

/**
 * Rows with more cells than the header, the cells beyond it all empty (a line ending in the delimiter,
 * PrestaShop's trailing `;`): the empty cells are dropped, and one note says so. A filled cell beyond
 * the header is the row's error instead (see `fitToHeader`).
 */
function longRowsNote(counter: RowCounter, width: number): string | undefined {
  if (counter.long === 0) return undefined;
  const rows = counter.long === 1 ? '1 row has' : `${counter.long} rows have`;
  const cells = counter.widest === width + 1 ? `${counter.widest}` : `up to ${counter.widest}`;
  return `${rows} more cells than the header (${cells} of ${width}; first on line ${counter.firstLongLine}): the cells beyond the header were empty and were dropped`;
}

/** One record as a row (undefined for a blank line); its index counts the rows before it. */
function dataRow(
  record: string[],
  line: number,
  headers: string[],
  settings: CsvSettings & { delimiter: string; trim: boolean },
  counter: RowCounter,
): SourceRow | undefined {
  let values = record;
  if (settings.trim) values = repairPaddedQuotes(values, settings.delimiter).map((value) => value.trim());
  if (isBlank(values)) return undefined;
  const width = headers.length;
  // Only a row of another length than the header pays for the checks below.
  if (values.length !== width) values = fitToHeader(values, width, line, counter);
  // Exactly one cell per header: missing ones are empty, extra ones are reported below.
  const cells: Cell[] = values.length === width ? values : new Array<Cell>(width);
  let error: SourceRow['error'];
  for (let i = 0; i < width; i++) {
    const value = values[i] ?? '';
    // A length check per cell; bytes are counted only for a cell that may be over the limit.
    if (value.length * 3 > settings.maxCellBytes && Buffer.byteLength(value) > settings.maxCellBytes) {
      error ??= cellTooLarge(
        Buffer.byteLength(value),
        settings.maxCellBytes,
        `line ${line}, column "${headers[i]}"`,
      );
      cells[i] = '';
    } else cells[i] = value;
  }
  counter.index++;
  // The location's text is made only if someone asks for it (see TableRow).
  const row = new TableRow(undefined, cells, headers, counter.index, line, settings.source);
  if (!error && settings.decoded && settings.decoded.invalidSequences > 0) {
    const at = replacedAt(cells);
    if (at >= 0) error = invalidUtf8(`line ${line}, column "${headers[at]}"`);
  }
  if (error) row.error = error;
  else if (values.length > width) {
    row.error = {
      code: 'CSV_ROW_LENGTH',
      message: `Cells beyond the header: the row has ${values.length}, the header has ${width}, and a cell right of the last named column is filled (line ${line})`,
    };
  }
  return row;
}

/**
 * A row of another length than the header: empty cells beyond the header (a line ending in the
 * delimiter, an editor's padding) are dropped and counted for the file's note; a short row is counted for the file's note (its
 * missing cells read as empty). A row with filled cells beyond the header keeps its length and is a
 * row error: which cell belongs where cannot be known.
 */
function fitToHeader(values: string[], width: number, line: number, counter: RowCounter): string[] {
  if (values.length > width) {
    for (let i = width; i < values.length; i++) if (values[i] !== '') return values;
    if (counter.long === 0) counter.firstLongLine = line;
    counter.long++;
    if (values.length > counter.widest) counter.widest = values.length;
    return values.slice(0, width);
  }
  if (counter.short === 0) counter.firstShortLine = line;
  counter.short++;
  if (values.length < counter.shortest) counter.shortest = values.length;
  if (values.length > counter.longest) counter.longest = values.length;
  return values;
}

/**
 * A record whose malformed quotes swallowed the lines after it: an error that names the lines, so the
 * rows they held are not taken for one valid row (nor lost without a word).
 */
function malformedQuotes(record: string[], line: number, headers: string[]): NonNullable<SourceRow['error']> {
  const at = Math.max(
    0,
    record.findIndex((cell) => cell.includes('\n')),
  );
  const breaks = countNewlines(record);
  const column = headers[at] === undefined ? '' : `, column "${headers[at]}"`;
  return {
    code: 'CSV_QUOTE_MALFORMED',
    message: `Malformed quotes: a quoted cell is closed and text follows its quote, so the cell runs on to line ${line + breaks} and takes in the rows there; write a quote inside a quoted cell twice ("") (line ${line}${column})`,
  };
}

/** The row of a record too large to hold: reported (its cells empty), and the reading goes on. */
function tooLargeRow(
  tooLarge: { line: number; chars: number },
  headers: string[],
  settings: CsvSettings,
  counter: RowCounter,
): SourceRow {
  counter.index++;
  const location = `line ${tooLarge.line}`;
  const row = new TableRow(
    { text: location, source: settings.source, line: tooLarge.line },
    new Array<Cell>(headers.length).fill(''),
    headers,
    counter.index,
  );
  row.error = recordTooLarge(tooLarge.chars, settings.maxCellBytes, location);
  return row;
}

const MARKUP: Array<{ start: RegExp; what: string }> = [
  { start: /^<!doctype\s+html|^<html[\s>]/i, what: 'an HTML page' },
  { start: /^<\?xml[\s?]/i, what: 'an XML document' },
  { start: /^<!doctype/i, what: 'a markup document' },
];

/**
 * A feed URL that answered with a login or error page, saved as `.csv`, would otherwise be read as
 * one column headed `<!DOCTYPE html>`: markup at the start of the text is refused.
 */
function refuseMarkup(sample: string, source: string): void {
  const leading = /^\uFEFF?\s*/.exec(sample)![0];
  const start = sample.slice(leading.length);
  if (!start.startsWith('<')) return;
  const found = MARKUP.find((markup) => markup.start.test(start));
  if (!found) return;
  const firstLine = start.slice(0, start.search(/\n|$/)).slice(0, 60);
  throw new CatalogIoError(
    'CSV_NOT_CSV',
    `Not CSV: ${source} looks like ${found.what} (it starts with "${firstLine}"), expected a header line; a feed URL may have answered with a login or error page`,
    { location: `line ${leading.split('\n').length}` },
  );
}

function isBlank(cells: string[]): boolean {
  for (const cell of cells) if (cell.trim() !== '') return false;
  return true;
}

/** Most header names start or end with spaces: a fixed-width, padded file (the last name often is not). */
function isPadded(cells: string[]): boolean {
  if (cells.length < 2) return false;
  const padded = cells.filter((cell) => cell !== cell.trim()).length;
  return padded * 2 > cells.length;
}

/**
 * In a padded file a quote after spaces (` "paper, stretch" `) is not seen as a quote by the parser,
 * which splits the cell at the delimiter inside. Join such pieces back and remove the quotes.
 */
function repairPaddedQuotes(cells: string[], delimiter: string): string[] {
  let out: string[] | undefined;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i]!;
    if (cell.startsWith('"') || !cell.trimStart().startsWith('"')) {
      out?.push(cell);
      continue;
    }
    out ??= cells.slice(0, i);
    let j = i;
    let joined = cell.trim();
    while (!closesQuote(joined) && j < cells.length - 1) {
      j++;
      joined = `${joined}${delimiter}${cells[j]!}`.trim();
    }
    out.push(
      closesQuote(joined) ? joined.slice(1, -1).replaceAll('""', '"') : cells.slice(i, j + 1).join(delimiter),
    );
    i = j;
  }
  return out ?? cells;
}

/** `"..."` with an odd run of quotes at the end: the quote that opened the cell is closed. */
function closesQuote(text: string): boolean {
  if (text.length < 2 || !text.endsWith('"')) return false;
  let quotes = 0;
  for (let k = text.length - 1; k > 0 && text[k] === '"'; k--) quotes++;
  return quotes % 2 === 1;
}

function delimiterName(delimiter: string): string {
  return delimiter === '\t' ? 'TAB' : `"${delimiter}"`;
}

function skipLines(text: string, count: number): string {
  let at = 0;
  for (let i = 0; i < count && at !== -1; i++) {
    const next = text.indexOf('\n', at);
    at = next === -1 ? -1 : next + 1;
  }
  return at === -1 ? '' : text.slice(at);
}

/** Reads at least `size` characters ahead for detection; the text is replayed whole afterwards. */
async function sampleText(
  text: AsyncIterable<string>,
  size: number,
): Promise<{ sample: string; complete: boolean; text: AsyncIterable<string> }> {
  const { head, ended, rest } = await readAhead(text, size);
  async function* replay(): AsyncGenerator<string> {
    yield* head;
    yield* rest;
  }
  return { sample: head.join(''), complete: ended, text: replay() };
}
