// CSV records from text chunks with papaparse's chunk parser, each with the physical line it
// starts on. Line endings are normalized to LF first, so a file mixing CRLF and LF parses the same.
import Papa from 'papaparse';
import { CatalogIoError } from '../../errors.js';

export interface CsvRecord {
  cells: string[];
  /** 1-based physical line where the record starts. */
  line: number;
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

function countNewlines(cells: string[]): number {
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

/**
 * Parses chunk by chunk the way papaparse's own streamers do: the unfinished last record is kept
 * and parsed again with the next chunk. `maxRecordChars` bounds that carry, so an unclosed quote
 * or a giant cell is an error rather than unbounded memory.
 */
export async function* csvRecords(
  text: AsyncIterable<string>,
  delimiter: string,
  maxRecordChars: number,
): AsyncGenerator<CsvRecord> {
  const parser = new Papa.Parser({ delimiter, newline: '\n', quoteChar: '"' });
  let partial = '';
  let baseIndex = 0;
  let line = 1;

  function* emit(data: string[][]): Generator<CsvRecord> {
    for (const cells of data) {
      yield { cells, line };
      line += 1 + countNewlines(cells);
    }
  }

  for await (const chunk of normalizeNewlines(text)) {
    // No line break, no record can end here: wait for more text instead of parsing again.
    if (!chunk.includes('\n') && partial.length + chunk.length <= maxRecordChars) {
      partial += chunk;
      continue;
    }
    const input = partial + chunk;
    const result = parser.parse(input, baseIndex, true);
    const cursor: number = result.meta.cursor;
    partial = input.substring(cursor - baseIndex);
    baseIndex = cursor;
    yield* emit(result.data as string[][]);
    if (partial.length > maxRecordChars) {
      throw new CatalogIoError(
        'CELL_TOO_LARGE',
        `Record too large: more than ${maxRecordChars} characters without the record ending (an unclosed quote, or a cell above the limit; raise maxCellBytes if the data is genuine)`,
        { location: `line ${line}` },
      );
    }
  }
  if (partial.length === 0) return;
  const result = parser.parse(partial, baseIndex, false);
  const unclosed = (result.errors as Papa.ParseError[]).find((error) => error.code === 'MissingQuotes');
  if (unclosed) {
    const startLine = line;
    throw new CatalogIoError(
      'CSV_QUOTE_NOT_CLOSED',
      'Quote not closed: a quoted cell starts but the file ends before its closing quote',
      { location: `line ${startLine}` },
    );
  }
  yield* emit(result.data as string[][]);
}

/** Guesses the delimiter among `, ; TAB |` from a sample of whole lines (papaparse's guesser). */
export function guessDelimiter(sample: string): string {
  const lastBreak = sample.lastIndexOf('\n');
  const whole = lastBreak > 0 ? sample.slice(0, lastBreak) : sample;
  const result = Papa.parse<string[]>(whole, { delimitersToGuess: [',', ';', '\t', '|'], preview: 20 });
  return result.meta.delimiter || ',';
}
