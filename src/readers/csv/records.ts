// CSV records from text chunks with papaparse's chunk parser, each with the physical line it
// starts on. Line endings are normalized to LF first, so a file mixing CRLF and LF parses the same.
import Papa from 'papaparse';
import { CatalogIoError } from '../../errors.js';

/** The records of one chunk of text: each record's cells, and the 1-based physical line it starts on. */
export interface CsvBatch {
  records: string[][];
  lines: Int32Array;
  /** A record too large to hold, skipped to its end: it stands alone in its batch (no records). */
  tooLarge?: { line: number; chars: number };
  /**
   * Records whose quotes are malformed (a quote closes a cell and text follows it: `"12"" pan,2`) and
   * that run over several lines: the parser took the lines after it into the cell, so the record is not
   * what the file meant (by index in `records`).
   */
  malformed?: number[];
  /**
   * Records with a quoted cell that holds an escaped quote (`"12"" PAN"`): by index in `records`, the
   * texts of those cells (`12" PAN`). Their quote is the file's, not a stray one (see runner/check.ts).
   */
  escapedQuotes?: Map<number, string[]>;
}

/** CRLF and lone CR become LF; a CR at the end of one chunk and LF at the start of the next is one break. */
export async function* normalizeNewlines(text: AsyncIterable<string>): AsyncGenerator<string> {
  let pendingCR = false;
  for await (let chunk of text) {
    if (pendingCR && chunk.startsWith('\n')) chunk = chunk.slice(1);
    if (chunk.length === 0) continue;
    pendingCR = chunk.endsWith('\r');
    yield chunk.includes('\r') ? chunk.replace(/\r\n?/g, '\n') : chunk;
  }
}

/** Line breaks held in a record's cells. */
export function countNewlines(cells: string[]): number {
  let count = 0;
  for (const cell of cells) {
    let at = cell.indexOf('\n');
    while (at !== -1) {
      count++;
      at = cell.indexOf('\n', at + 1);
    }
  }
  return count;
}

/** Line breaks in `text` before `end`. */
function countBreaks(text: string, end: number): number {
  let count = 0;
  let at = text.indexOf('\n');
  while (at !== -1 && at < end) {
    count++;
    at = text.indexOf('\n', at + 1);
  }
  return count;
}

/**
 * Parses chunk by chunk the way papaparse's own streamers do: the unfinished last record is kept
 * and parsed again with the next chunk. The records of one chunk come out together, as one array:
 * a generator resuming per record cost more than the record. `maxRecordChars` bounds the carry: a
 * record that grows past it is skipped to its end without being held (a `tooLarge` batch, so the
 * row is reported and the records after it are read), and an unclosed quote is found at the end.
 * `firstLine`: the physical line the text starts on (a part of a file read on its own).
 */
export async function* csvRecordBatches(
  text: AsyncIterable<string>,
  delimiter: string,
  maxRecordChars: number,
  firstLine = 1,
): AsyncGenerator<CsvBatch> {
  const parser = new Papa.Parser({ delimiter, newline: '\n', quoteChar: '"' });
  let partial = '';
  let baseIndex = 0;
  /** A chunk had quotes our own loop does not read: papaparse reads the rest (see quotedRecords). */
  let papaparseOnly = false;
  let line = firstLine;
  let skipping: { end: RecordEnd; line: number; chars: number } | undefined;
  /** Follows the quotes of a large unfinished record in `partial`, to know when it ends. */
  let scan: RecordEnd | undefined;

  /** Numbers the records of `consumed` characters of `input`: a cell may hold line breaks of its own. */
  function number(records: string[][], input: string, consumed: number, errors: Papa.ParseError[]): CsvBatch {
    const lines = new Int32Array(records.length);
    // As many breaks as records: no cell holds one, so the lines simply follow each other.
    const plain = countBreaks(input, consumed) === records.length;
    for (let i = 0; i < records.length; i++) {
      lines[i] = line;
      line += plain ? 1 : 1 + countNewlines(records[i]!);
    }
    const malformed = plain ? undefined : malformedRecords(records, errors);
    return malformed ? { records, lines, malformed } : { records, lines };
  }

  /** Records our own loop read from text with quotes: each record's breaks were counted as it was read. */
  function numberQuoted({ records, breaks, escapedQuotes }: QuotedRecords): CsvBatch {
    const lines = new Int32Array(records.length);
    for (let i = 0; i < records.length; i++) {
      lines[i] = line;
      line += 1 + breaks[i]!;
    }
    return escapedQuotes ? { records, lines, escapedQuotes } : { records, lines };
  }

  /** Records of text without quotes: a record is a line. */
  function numberPlain(records: string[][]): CsvBatch {
    const lines = new Int32Array(records.length);
    for (let i = 0; i < records.length; i++) lines[i] = line++;
    return { records, lines };
  }

  for await (let chunk of normalizeNewlines(text)) {
    if (skipping) {
      const end = skipping.end.find(chunk);
      const skipped = end === -1 ? chunk.length : end;
      line += countBreaks(chunk, skipped);
      skipping.chars += skipped;
      if (end === -1) continue;
      yield {
        records: [],
        lines: new Int32Array(0),
        tooLarge: { line: skipping.line, chars: skipping.chars },
      };
      skipping = undefined;
      chunk = chunk.substring(end);
    }
    if (scan) {
      // A large unfinished record: parsed again only once the chunk that ends it has come.
      const end = scan.find(chunk);
      if (end === -1) {
        if (partial.length + chunk.length > maxRecordChars) {
          skipping = { end: scan, line, chars: partial.length + chunk.length };
          line += countBreaks(partial, partial.length) + countBreaks(chunk, chunk.length);
          partial = '';
          scan = undefined;
          continue;
        }
        partial += chunk;
        continue;
      }
      scan = undefined;
    } else if (!chunk.includes('\n') && partial.length + chunk.length <= maxRecordChars) {
      // No line break, no record can end here: wait for more text instead of parsing again.
      partial += chunk;
      continue;
    }
    let input: string;
    let consumed: number;
    const lineEnd = partial.length > 0 && !papaparseOnly ? chunk.indexOf('\n') : -1;
    if (lineEnd !== -1 && !partial.includes('"') && !chunk.includes('"')) {
      // The record the last chunk left unfinished, from the two texts; the rest read in the chunk itself.
      // `partial + chunk` was flattened into a copy of the whole chunk: a tenth of what reading allocated.
      const head = plainRecords(partial + chunk.slice(0, lineEnd + 1), delimiter, true);
      const plain = plainRecords(chunk, delimiter, true, lineEnd + 1, head.records);
      yield numberPlain(plain.records);
      baseIndex += partial.length;
      input = chunk;
      consumed = plain.consumed;
    } else {
      input = partial + chunk;
      const quoted = input.includes('"');
      const plain = quoted ? undefined : plainRecords(input, delimiter, true);
      const own = quoted && !papaparseOnly ? quotedRecords(input, delimiter, true) : undefined;
      if (plain) {
        consumed = plain.consumed;
        if (plain.records.length > 0) yield numberPlain(plain.records);
      } else if (own) {
        consumed = own.consumed;
        if (own.records.length > 0) yield numberQuoted(own);
      } else {
        // Quotes our loop leaves to papaparse (see quotedRecords), for the rest of the file.
        papaparseOnly = true;
        const result = parser.parse(input, baseIndex, true);
        consumed = result.meta.cursor - baseIndex;
        const data = result.data as string[][];
        if (data.length > 0) yield number(data, input, consumed, result.errors as Papa.ParseError[]);
      }
    }
    partial = input.substring(consumed);
    baseIndex += consumed;
    if (partial.length > maxRecordChars) {
      // `partial` is one unfinished record from its start: find where its quotes stand, then skip on.
      const end = new RecordEnd(delimiter);
      end.find(partial);
      skipping = { end, line, chars: partial.length };
      line += countBreaks(partial, partial.length);
      partial = '';
    } else if (partial.length > LARGE_RECORD) {
      // Parsing a long quoted cell again at every line break in it would cost its length squared.
      scan = new RecordEnd(delimiter);
      if (scan.find(partial) !== -1) scan = undefined;
    }
  }
  if (skipping) {
    if (skipping.end.unclosed) throw quoteNotClosed(skipping.line);
    yield { records: [], lines: new Int32Array(0), tooLarge: { line: skipping.line, chars: skipping.chars } };
    return;
  }
  if (partial.length === 0) return;
  if (!partial.includes('"')) {
    yield numberPlain(plainRecords(partial, delimiter, false).records);
    return;
  }
  const own = papaparseOnly ? undefined : quotedRecords(partial, delimiter, false);
  if (own) {
    if (own.records.length > 0) yield numberQuoted(own);
    return;
  }
  const result = parser.parse(partial, baseIndex, false);
  const unclosed = (result.errors as Papa.ParseError[]).find((error) => error.code === 'MissingQuotes');
  if (unclosed) throw quoteNotClosed(line);
  const data = result.data as string[][];
  // The last record has no break after it: count them all.
  if (data.length > 0) yield number(data, partial, -1, result.errors as Papa.ParseError[]);
}

/**
 * The records of text that holds no quote, exactly as papaparse's parser gives them (its "fast mode":
 * the text split at line breaks, each line at the delimiter), without the line's own string and the
 * parser's bookkeeping: a third of the cost, on the shape most feeds have. `ignoreLastRow`: the text
 * after the last line break is left for the next chunk; `consumed` is where the records end. From
 * `start` on (a record before it read apart), after the records already in `records`.
 */
export function plainRecords(
  input: string,
  delimiter: string,
  ignoreLastRow: boolean,
  start = 0,
  records: string[][] = [],
): { records: string[][]; consumed: number } {
  const width = delimiter.length;
  let at = start;
  // The next delimiter, kept across lines: a line without one does not search the rest of the text.
  let next = input.indexOf(delimiter, start);
  // Cells a record had: the next one's array is made that long (pushed one by one, an array of four
  // cells was given room for seventeen, a third of the bytes this loop allocated).
  let count = 1;
  for (;;) {
    let end = input.indexOf('\n', at);
    const last = end === -1;
    if (last) {
      // As papaparse: the text after the last break is a record too (empty after a final break).
      if (ignoreLastRow || input.length === start) break;
      end = input.length;
    }
    const cells = new Array<string>(count);
    let n = 0;
    let from = at;
    while (next !== -1 && next + width <= end) {
      cells[n++] = input.slice(from, next);
      from = next + width;
      next = input.indexOf(delimiter, from);
    }
    cells[n++] = input.slice(from, end);
    if (n < count) cells.length = n;
    count = n;
    records.push(cells);
    if (last) {
      at = input.length;
      break;
    }
    at = end + 1;
  }
  return { records, consumed: at };
}

/**
 * The records of text with quotes, as papaparse's parser gives them, for the quoting most files have: a
 * quoted cell (`"a, ""b"""`, line breaks allowed) closed right before a delimiter or a line break. A
 * quote anywhere else in a cell is text, as for papaparse. undefined when a closing quote is followed by
 * anything else (spaces, text) or a quote is still open at the end of the text (`ignoreLastRow` false):
 * papaparse then reads the text, with its errors. A record unfinished at the end of the text (a quote still
 * open, or no line break after it) is left for the next chunk when `ignoreLastRow`. `escapedQuotes`:
 * the records with a quoted cell holding `""`, and those cells' texts (see CsvBatch); `breaks`: each
 * record's line breaks inside its quoted cells, counted as they are passed (no search of every cell after).
 */
export function quotedRecords(
  input: string,
  delimiter: string,
  ignoreLastRow: boolean,
): QuotedRecords | undefined {
  const records: string[][] = [];
  const breaks: number[] = [];
  /** Line breaks inside the quoted cells of the record being read. */
  let inside = 0;
  let escapedQuotes: Map<number, string[]> | undefined;
  /** The cells of the record being read that held `""` (committed with the record). */
  let escaped: string[] | undefined;
  const done = (consumed: number): QuotedRecords =>
    escapedQuotes ? { records, consumed, breaks, escapedQuotes } : { records, consumed, breaks };
  /**
   * A quoted cell, `from` and `close` its quotes; `doubled`: the scan for its close passed a `""`. Such a
   * cell is noted (see CsvBatch's escapedQuotes).
   */
  const quotedCell = (from: number, close: number, doubled: boolean): string => {
    if (!doubled) return input.slice(from + 1, close);
    const cell = input.slice(from + 1, close).replaceAll('""', '"');
    escaped ??= [];
    escaped.push(cell);
    return cell;
  };
  /** Before a record is pushed: its line breaks and its cells that held `""`. */
  const commit = () => {
    breaks.push(inside);
    inside = 0;
    if (!escaped) return;
    escapedQuotes ??= new Map();
    escapedQuotes.set(records.length, escaped);
    escaped = undefined;
  };
  const width = delimiter.length;
  const length = input.length;
  if (length === 0) return { records, consumed: 0, breaks };
  let consumed = 0;
  let at = 0;
  // As in plainRecords: a record's cells go into an array as long as the record before had.
  let count = 1;
  let cells = new Array<string>(count);
  let n = 0;
  let nextDelimiter = input.indexOf(delimiter);
  let nextBreak = input.indexOf('\n');
  for (;;) {
    if (input.charCodeAt(at) === QUOTE) {
      let close = at;
      let doubled = false;
      /** The cell closes at the end of the text. */
      let endsText = false;
      for (;;) {
        close = input.indexOf('"', close + 1);
        if (close === -1) {
          if (!ignoreLastRow) return undefined;
          return done(consumed);
        }
        if (close === length - 1) {
          // Closed at the end of the text: a record only when the text is all there is.
          if (ignoreLastRow) return done(consumed);
          endsText = true;
          break;
        }
        const next = input.charCodeAt(close + 1);
        if (next === QUOTE) {
          close++;
          doubled = true;
          continue;
        }
        break;
      }
      // The breaks the cell holds (the next break is never before the cell's start).
      while (nextBreak !== -1 && nextBreak < close) {
        inside++;
        nextBreak = input.indexOf('\n', nextBreak + 1);
      }
      const cell = quotedCell(at, close, doubled);
      cells[n++] = cell;
      if (endsText) {
        if (n < cells.length) cells.length = n;
        commit();
        records.push(cells);
        return done(length);
      }
      if (input.startsWith(delimiter, close + 1)) {
        at = close + 1 + width;
      } else if (input.charCodeAt(close + 1) === NEWLINE) {
        if (n < cells.length) cells.length = n;
        commit();
        records.push(cells);
        count = n;
        cells = new Array<string>(count);
        n = 0;
        at = close + 2;
        consumed = at;
      } else return undefined;
      if (nextDelimiter !== -1 && nextDelimiter < at) nextDelimiter = input.indexOf(delimiter, at);
      if (nextBreak !== -1 && nextBreak < at) nextBreak = input.indexOf('\n', at);
      continue;
    }
    if (nextDelimiter !== -1 && (nextDelimiter < nextBreak || nextBreak === -1)) {
      cells[n++] = input.slice(at, nextDelimiter);
      at = nextDelimiter + width;
      nextDelimiter = input.indexOf(delimiter, at);
      continue;
    }
    if (nextBreak !== -1) {
      cells[n++] = input.slice(at, nextBreak);
      if (n < cells.length) cells.length = n;
      commit();
      records.push(cells);
      count = n;
      cells = new Array<string>(count);
      n = 0;
      at = nextBreak + 1;
      consumed = at;
      nextBreak = input.indexOf('\n', at);
      continue;
    }
    // The text after the last break: a record only when the text is all there is.
    if (ignoreLastRow) return done(consumed);
    cells[n++] = input.slice(at);
    if (n < cells.length) cells.length = n;
    commit();
    records.push(cells);
    return done(length);
  }
}

/** What `quotedRecords` read: see there. */
export interface QuotedRecords {
  records: string[][];
  consumed: number;
  breaks: number[];
  escapedQuotes?: Map<number, string[]>;
}

/** The records papaparse found malformed quotes in (`InvalidQuotes`) that hold a line break. */
function malformedRecords(records: string[][], errors: Papa.ParseError[]): number[] | undefined {
  let out: number[] | undefined;
  for (const error of errors) {
    const at = error.row;
    if (error.code !== 'InvalidQuotes' || at === undefined || at >= records.length) continue;
    if (countNewlines(records[at]!) === 0 || out?.includes(at)) continue;
    out ??= [];
    out.push(at);
  }
  return out;
}

function quoteNotClosed(line: number): CatalogIoError {
  return new CatalogIoError(
    'CSV_QUOTE_NOT_CLOSED',
    'Quote not closed: a quoted cell starts but the file ends before its closing quote',
    { location: `line ${line}` },
  );
}

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const SPACE = 0x20;
/** An unfinished record past this length is followed by a RecordEnd rather than parsed again per chunk. */
const LARGE_RECORD = 64 * 1024;

/**
 * Finds where a record ends (a line break outside quotes) across chunks, holding nothing but its quote
 * state, by papaparse's rules: a quote opens only at the start of a cell; inside quotes `""` is a quote,
 * and a quote closes them only when a delimiter or a line break follows (after spaces, if any).
 */
class RecordEnd {
  private inQuotes = false;
  private cellStart = true;
  /** Inside quotes, a quote was seen: 1 just now, 2 followed by spaces; what comes next decides. */
  private pendingQuote: 0 | 1 | 2 = 0;
  private readonly delimiterCode: number;

  constructor(delimiter: string) {
    this.delimiterCode = delimiter.charCodeAt(0);
  }

  /** At the end of the text: a quote is still open (a quote right before the end closes it). */
  get unclosed(): boolean {
    return this.inQuotes && this.pendingQuote === 0;
  }

  /** The index just past the line break that ends the record in `text`, or -1 when it goes on. */
  find(text: string): number {
    let i = 0;
    while (i < text.length) {
      // By code, not by character: a skipped record may be hundreds of MB.
      const code = text.charCodeAt(i);
      if (this.pendingQuote !== 0) {
        const pending = this.pendingQuote;
        this.pendingQuote = 0;
        if (pending === 1 && code === QUOTE) {
          i++;
          continue;
        }
        if (code === SPACE) {
          this.pendingQuote = 2;
          i++;
          continue;
        }
        if (code === NEWLINE || code === this.delimiterCode) this.inQuotes = false;
        // else: the quote was text; this character is read as usual below
      }
      if (this.inQuotes) {
        const quote = text.indexOf('"', i);
        if (quote === -1) return -1;
        this.pendingQuote = 1;
        i = quote + 1;
        continue;
      }
      if (code === NEWLINE) return i + 1;
      if (code === this.delimiterCode) this.cellStart = true;
      else if (code === QUOTE && this.cellStart) {
        this.inQuotes = true;
        this.cellStart = false;
      } else this.cellStart = false;
      i++;
    }
    return -1;
  }
}

const CANDIDATES = [',', ';', '\t', '|'] as const;
/** Records after the header that the guess looks at. */
const GUESS_RECORDS = 10;

/**
 * Guesses the delimiter among `, ; TAB |` (in that order of preference) from the header line and the
 * first records of `sample`. A delimiter must appear in the header and give the records the header's
 * field count; papaparse's own guesser, which averages field counts, picks `|` when the only data
 * row holds a multi-value (`a0|00|aa|01`). `complete` says the sample is the whole text, so its last
 * line counts even without a final newline.
 */
export function guessDelimiter(sample: string, complete = false): string {
  let best: { delimiter: string; matching: number; consistent: boolean } | undefined;
  for (const delimiter of CANDIDATES) {
    const lines = fieldCounts(sample, delimiter, complete);
    const header = lines[0]?.fields;
    if (header === undefined || header === 1) continue;
    let matching = 0;
    for (let i = 1; i < lines.length; i++) {
      const { fields, trailing } = lines[i]!;
      // One field more from a line ending in the delimiter is tolerated by the reader too.
      if (fields === header || (trailing && fields === header + 1)) matching++;
    }
    const consistent = matching === lines.length - 1;
    // Ties keep the earlier candidate: `,` then `;` then TAB then `|`.
    if (
      !best ||
      (consistent && !best.consistent) ||
      (consistent === best.consistent && matching > best.matching)
    ) {
      best = { delimiter, matching, consistent };
    }
  }
  return best?.delimiter ?? ',';
}

interface LineFields {
  fields: number;
  /** The line ends in the delimiter (PrestaShop ends every data line with one). */
  trailing: boolean;
}

/**
 * Field counts of the first non-blank records of `sample` split at `delimiter` outside quotes (a
 * quote opens only at the start of a field, as in the parser). Runs once per file over a few lines.
 */
function fieldCounts(sample: string, delimiter: string, complete: boolean): LineFields[] {
  const counts: LineFields[] = [];
  let fields = 1;
  let fieldStart = true;
  let inQuotes = false;
  let blank = true;
  let lastWasDelimiter = false;
  for (let i = 0; i < sample.length && counts.length <= GUESS_RECORDS; i++) {
    const char = sample[i]!;
    if (inQuotes) {
      if (char === '"') {
        if (sample[i + 1] === '"') i++;
        else inQuotes = false;
      }
      continue;
    }
    if (char === '\n' || char === '\r') {
      if (!blank) counts.push({ fields, trailing: lastWasDelimiter });
      if (char === '\r' && sample[i + 1] === '\n') i++;
      fields = 1;
      fieldStart = true;
      blank = true;
      lastWasDelimiter = false;
      continue;
    }
    if (char !== ' ' && char !== '\t') blank = false;
    if (char === delimiter) {
      fields++;
      fieldStart = true;
      blank = false;
      lastWasDelimiter = true;
      continue;
    }
    lastWasDelimiter = false;
    if (char === '"' && fieldStart) inQuotes = true;
    if (char !== ' ') fieldStart = false;
  }
  // The last line counts only when it is known to be whole.
  if (complete && !inQuotes && !blank && counts.length <= GUESS_RECORDS) {
    counts.push({ fields, trailing: lastWasDelimiter });
  }
  return counts;
}
