// The NDJSON / JSON Lines reader core: one JSON document per line, split by hand and parsed with
// JSON.parse. A broken line is a row error (the others are independent), located by line and column.
import { randomBytes } from 'node:crypto';
import { BatchedRows } from '../batched.js';
import type { DecodeStatus } from '../encoding.js';
import { emptyCells } from '../headers.js';
import { RowProblem, recordTooLarge } from '../limits.js';
import { maxRowBytes } from '../options.js';
import type { Cell, SourceRow } from '../types.js';
import { type FlattenLimits, flattenRecord, HeaderUnion, invalidIn } from './flatten.js';
import type { OpenedRecords } from './json.js';
import { syntaxDetail } from './locate.js';
import { MAY_HOLD_LONG_NUMBER, quoteLongNumbers } from './numbers.js';
import { createTokenizer } from './tokenizer.js';

export interface NdjsonSettings {
  source: string;
  maxCellBytes: number;
  maxJsonDepth: number;
  /** The decoder's count of invalid UTF-8: while it is 0, no row needs looking at for them. */
  decoded?: DecodeStatus;
}

export function readNdjson(text: AsyncIterable<string>, settings: NdjsonSettings): OpenedRecords {
  const headers = new HeaderUnion();
  return { headers: headers.names, rows: new BatchedRows(ndjsonBatches(text, settings, headers)) };
}

const OPEN_BRACE = 0x7b;
const CARRIAGE_RETURN = 0x0d;

/**
 * The rows of one text chunk (64 KiB, a few hundred lines) are parsed together into a batch: a generator
 * resuming per row cost more than the row itself. Memory holds at most one chunk's rows. A problem met
 * in a chunk comes after the rows before it.
 */
async function* ndjsonBatches(
  text: AsyncIterable<string>,
  settings: NdjsonSettings,
  headers: HeaderUnion,
): AsyncGenerator<SourceRow[]> {
  const lines = new NdjsonLines(settings, headers);
  const settle = function* (work: () => void): Generator<SourceRow[]> {
    try {
      work();
    } catch (err) {
      const rows = lines.takeBatch();
      if (rows.length > 0) yield rows;
      throw err;
    }
    const rows = lines.takeBatch();
    if (rows.length > 0) yield rows;
  };
  for await (const chunk of text) yield* settle(() => lines.split(chunk));
  yield* settle(() => lines.end());
}

/** Lines of text to rows, chunk by chunk; the rows made so far wait in a batch for `take()`. */
class NdjsonLines {
  private readonly maxLineChars: number;
  private readonly limits: FlattenLimits;
  private batch: SourceRow[] = [];
  /** The text after the last line break seen: the start of a line that continues in the next chunk. */
  private partial = '';
  private line = 0;
  private index = 0;
  /** A line too long to hold, being skipped to its end: its number and length so far. */
  private skipping: { line: number; chars: number } | undefined;

  constructor(
    private readonly settings: NdjsonSettings,
    private readonly headers: HeaderUnion,
  ) {
    this.maxLineChars = maxRowBytes(settings.maxCellBytes);
    this.limits = { maxCellBytes: settings.maxCellBytes, maxDepth: settings.maxJsonDepth };
  }

  /** The rows made since the last call. */
  takeBatch(): SourceRow[] {
    const rows = this.batch;
    this.batch = [];
    return rows;
  }

  /** The text has ended: its last line, if it had no line break. */
  end(): void {
    if (this.skipping) this.skipped();
    if (this.partial !== '') this.takeLines([this.partial]);
    this.partial = '';
  }

  /** Cuts a chunk into lines and turns the complete ones into rows; the rest waits for the next chunk. */
  split(text: string): void {
    let chunk = text;
    if (this.skipping) {
      const newline = chunk.indexOf('\n');
      if (newline === -1) {
        this.skipping.chars += chunk.length;
        return;
      }
      this.skipping.chars += newline;
      this.skipped();
      chunk = chunk.slice(newline + 1);
    }
    const lines: string[] = [];
    let start = 0;
    let newline = chunk.indexOf('\n');
    if (newline !== -1 && this.partial !== '') {
      lines.push(this.partial + chunk.slice(0, newline));
      this.partial = '';
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
    }
    while (newline !== -1) {
      lines.push(chunk.slice(start, newline));
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
    }
    this.partial = start === 0 ? this.partial + chunk : chunk.slice(start);
    this.takeLines(lines);
    if (this.partial.length > this.maxLineChars) {
      // Too long to hold: skipped to its line break, and reported as its row.
      this.skipping = { line: this.line + 1, chars: this.partial.length };
      this.partial = '';
    }
  }

  /** The row of the line skipped for its length; the line after it comes next. */
  private skipped(): void {
    const { line, chars } = this.skipping!;
    this.skipping = undefined;
    this.line = line;
    const where = `line ${line}`;
    this.batch.push({
      location: { text: where, source: this.settings.source, line },
      cells: emptyCells<Cell>(),
      index: ++this.index,
      error: recordTooLarge(chars, this.settings.maxCellBytes, where),
    });
  }

  /** Lines (without their `\n`) to rows in the batch; blank lines are counted but give no row. */
  private takeLines(lines: string[]): void {
    const contents: string[] = [];
    const numbers: number[] = [];
    for (const raw of lines) {
      const line = ++this.line;
      const content = raw.charCodeAt(raw.length - 1) === CARRIAGE_RETURN ? raw.slice(0, -1) : raw;
      // A record line starts with `{`: only other lines need the blank check.
      if (content.charCodeAt(0) !== OPEN_BRACE && content.trim() === '') continue;
      contents.push(content);
      numbers.push(line);
    }
    if (contents.length === 0) return;
    const joined = `[${contents.join(SEPARATOR_JSON)}]`;
    const values = parseEach(joined, contents.length);
    // A number a double would change is read from the line with it written as a string (numbers.ts);
    // only a chunk whose text has a long run of digits is looked at line by line.
    const long = MAY_HOLD_LONG_NUMBER.test(joined);
    for (let i = 0; i < contents.length; i++) {
      const content = contents[i]!;
      const exact = long && MAY_HOLD_LONG_NUMBER.test(content) ? quoteLongNumbers(content) : undefined;
      this.take(content, numbers[i]!, values && exact === undefined ? values[2 * i] : UNPARSED, exact);
    }
  }

  /** One non-blank line to a row; `value` is its parsed value when the batch parse gave it. */
  private take(content: string, line: number, parsed: unknown, exact?: string): void {
    const index = ++this.index;
    const where = `line ${line}`;
    const location = { text: where, source: this.settings.source, line };
    let value = parsed;
    if (value === UNPARSED) {
      try {
        // `exact`: the line with its long numbers quoted; a syntax error is still located in the line itself.
        value = JSON.parse(exact ?? content);
      } catch {
        const { column, detail } = locateInLine(content);
        this.batch.push({
          location,
          cells: emptyCells<Cell>(),
          index,
          error: { code: 'JSON_SYNTAX', message: `Invalid JSON: ${detail} (${where}, column ${column})` },
        });
        return;
      }
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.batch.push({
        location,
        cells: emptyCells<Cell>(),
        index,
        error: {
          code: 'JSON_NOT_RECORDS',
          message: `Not a record: expected an object on each line (${where})`,
        },
      });
      return;
    }
    let flat: ReturnType<typeof flattenRecord>;
    try {
      flat = flattenRecord(value, this.headers, this.limits, where);
    } catch (err) {
      if (!(err instanceof RowProblem)) throw err;
      this.batch.push({ location, cells: emptyCells<Cell>(), index, error: err.error });
      return;
    }
    const { cells } = flat;
    const decoded = this.settings.decoded;
    const error =
      flat.error ?? (decoded && decoded.invalidSequences > 0 ? invalidIn(cells, where) : undefined);
    this.batch.push(error ? { location, cells, index, error } : { location, cells, index });
  }
}

const UNPARSED = Symbol('unparsed');

/**
 * A string no line holds (random per process), put between the lines when they are parsed together.
 * It lets the result prove its own alignment: only when every separator is an array element of its own,
 * at every second place, was each line exactly one JSON value.
 */
// Letters g to z: no digit or `e`, so the separators give no false sign of a long number (numbers.ts).
const SEPARATOR = Array.from(randomBytes(14), (byte) => String.fromCharCode(103 + (byte % 20))).join(''); // short: it is parsed once per line
const SEPARATOR_JSON = `,${JSON.stringify(SEPARATOR)},`;

/**
 * Parses the lines, joined with SEPARATOR_JSON in `[...]`, with one JSON.parse (a third cheaper than one
 * call per line) and returns
 * `[line 1, separator, line 2, ...]`, so line i is at 2i; undefined when any line is not exactly one
 * JSON value, which the caller then parses line by line for its own error.
 */
function parseEach(joined: string, count: number): unknown[] | undefined {
  let values: unknown;
  try {
    values = JSON.parse(joined);
  } catch {
    return undefined;
  }
  if (!Array.isArray(values) || values.length !== 2 * count - 1) return undefined;
  for (let i = 1; i < values.length; i += 2) if (values[i] !== SEPARATOR) return undefined;
  return values;
}

/** Column of the first character JSON cannot accept, found by a character-by-character tokenizer. */
function locateInLine(content: string): { column: number; detail: string } {
  const tokenizer = createTokenizer();
  for (let i = 0; i < content.length; i++) {
    try {
      tokenizer.write(content[i]!);
    } catch (err) {
      return { column: i + 1, detail: syntaxDetail((err as Error).message) };
    }
  }
  try {
    tokenizer.end();
  } catch (err) {
    return { column: content.length + 1, detail: syntaxDetail((err as Error).message) };
  }
  return { column: 1, detail: 'not a single JSON value' };
}
