// The NDJSON / JSON Lines reader core: one JSON document per line, split by hand and parsed with
// JSON.parse. A broken line is a row error (the others are independent), located by line and column.
import { randomBytes } from 'node:crypto';
import { CatalogIoError } from '../../errors.js';
import { emptyCells } from '../headers.js';
import type { BufferedRows, Cell, SourceRow } from '../types.js';
import { flattenRecord, HeaderUnion } from './flatten.js';
import type { OpenedRecords } from './json.js';
import { syntaxDetail } from './locate.js';
import { createTokenizer } from './tokenizer.js';

export interface NdjsonSettings {
  source: string;
  maxCellBytes: number;
}

export function readNdjson(text: AsyncIterable<string>, settings: NdjsonSettings): OpenedRecords {
  const headers = new HeaderUnion();
  return { headers: headers.names, rows: new NdjsonRows(text, settings, headers) };
}

const OPEN_BRACE = 0x7b;
const CARRIAGE_RETURN = 0x0d;

/**
 * The rows of one text chunk (64 KiB, a few hundred lines) are parsed together into a batch and
 * handed out one by one as already-settled results: a generator resuming per row cost more than
 * the row itself. Memory holds at most one chunk's rows.
 */
class NdjsonRows implements AsyncIterableIterator<SourceRow>, BufferedRows {
  private readonly chunks: AsyncIterator<string>;
  private readonly maxLineChars: number;
  private batch: SourceRow[] = [];
  private taken = 0;
  /** A problem met while filling the batch: thrown once the rows before it have been handed out. */
  private failure: { error: unknown } | undefined;
  private filling: Promise<IteratorResult<SourceRow>> | undefined;
  private finished = false;
  /** The text after the last line break seen: the start of a line that continues in the next chunk. */
  private partial = '';
  private line = 0;
  private index = 0;

  constructor(
    text: AsyncIterable<string>,
    private readonly settings: NdjsonSettings,
    private readonly headers: HeaderUnion,
  ) {
    this.chunks = text[Symbol.asyncIterator]();
    this.maxLineChars = Math.max(settings.maxCellBytes * 4, 1 << 20);
  }

  private readonly nextAfter = () => this.next();

  [Symbol.asyncIterator](): this {
    return this;
  }

  takeBuffered(): SourceRow | undefined {
    if (this.filling || this.taken >= this.batch.length) return undefined;
    return this.batch[this.taken++];
  }

  next(): Promise<IteratorResult<SourceRow>> {
    // Calls made before the previous one settled wait for it, as a generator's would.
    if (this.filling) return this.filling.then(this.nextAfter, this.nextAfter);
    if (this.taken < this.batch.length) {
      return Promise.resolve({ done: false, value: this.batch[this.taken++]! });
    }
    this.filling = this.fill().finally(() => {
      this.filling = undefined;
    });
    return this.filling;
  }

  async return(): Promise<IteratorResult<SourceRow>> {
    this.stop();
    await this.chunks.return?.();
    return { done: true, value: undefined };
  }

  /** Reads chunks until one yields rows (or the text ends), then hands out the first of them. */
  private async fill(): Promise<IteratorResult<SourceRow>> {
    for (;;) {
      if (this.failure) {
        const { error } = this.failure;
        this.stop();
        throw error;
      }
      if (this.finished) return { done: true, value: undefined };
      this.batch = [];
      this.taken = 0;
      let next: IteratorResult<string>;
      try {
        next = await this.chunks.next();
      } catch (err) {
        this.stop();
        throw err;
      }
      if (this.finished) return { done: true, value: undefined }; // return() was called meanwhile
      try {
        if (next.done) {
          this.finished = true;
          if (this.partial !== '') this.takeLines([this.partial]);
          this.partial = '';
        } else {
          this.split(next.value);
        }
      } catch (err) {
        this.failure = { error: err };
      }
      if (this.batch.length > 0) return { done: false, value: this.batch[this.taken++]! };
    }
  }

  private stop(): void {
    this.finished = true;
    this.failure = undefined;
    this.batch = [];
    this.taken = 0;
  }

  /** Cuts a chunk into lines and turns the complete ones into rows; the rest waits for the next chunk. */
  private split(chunk: string): void {
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
      throw new CatalogIoError(
        'CELL_TOO_LARGE',
        `Line too long: more than ${this.maxLineChars} characters without a line break (raise maxCellBytes if the data is genuine)`,
        { location: `line ${this.line + 1}` },
      );
    }
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
    const values = parseEach(contents);
    for (let i = 0; i < contents.length; i++) {
      this.take(contents[i]!, numbers[i]!, values ? values[2 * i] : UNPARSED);
    }
  }

  /** One non-blank line to a row; `value` is its parsed value when the batch parse gave it. */
  private take(content: string, line: number, parsed: unknown): void {
    const index = ++this.index;
    const where = `line ${line}`;
    const location = { text: where, source: this.settings.source, line };
    let value = parsed;
    if (value === UNPARSED) {
      try {
        value = JSON.parse(content);
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
    const cells = flattenRecord(value, this.headers, this.settings.maxCellBytes, where);
    this.batch.push({ location, cells, index });
  }
}

const UNPARSED = Symbol('unparsed');

/**
 * A string no line holds (random per process), put between the lines when they are parsed together.
 * It lets the result prove its own alignment: only when every separator is an array element of its own,
 * at every second place, was each line exactly one JSON value.
 */
const SEPARATOR = randomBytes(8).toString('hex'); // short: it is parsed once per line
const SEPARATOR_JSON = `,${JSON.stringify(SEPARATOR)},`;

/**
 * Parses the lines with one JSON.parse (a third cheaper than one call per line) and returns
 * `[line 1, separator, line 2, ...]`, so line i is at 2i; undefined when any line is not exactly one
 * JSON value, which the caller then parses line by line for its own error.
 */
function parseEach(lines: string[]): unknown[] | undefined {
  if (lines.length === 0) return undefined;
  let values: unknown;
  try {
    values = JSON.parse(`[${lines.join(SEPARATOR_JSON)}]`);
  } catch {
    return undefined;
  }
  if (!Array.isArray(values) || values.length !== 2 * lines.length - 1) return undefined;
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
