// The NDJSON reader as it was before rows were read in batches (see ndjson.equivalence.test.ts):
// kept unchanged as the reference the current reader must agree with, row for row.
import { CatalogIoError } from '../../../src/errors.js';
import { emptyCells } from '../../../src/readers/headers.js';
import type { OpenedRecords } from '../../../src/readers/json/json.js';
import { syntaxDetail } from '../../../src/readers/json/locate.js';
import { createTokenizer } from '../../../src/readers/json/tokenizer.js';
import type { Cell, SourceRow } from '../../../src/readers/types.js';
import { flattenRecord, HeaderUnion } from './flatten.js';

export interface NdjsonSettings {
  source: string;
  maxCellBytes: number;
}

export function readNdjson(text: AsyncIterable<string>, settings: NdjsonSettings): OpenedRecords {
  const headers = new HeaderUnion();
  return { headers: headers.names, rows: ndjsonRows(text, settings, headers) };
}

async function* ndjsonRows(
  text: AsyncIterable<string>,
  settings: NdjsonSettings,
  headers: HeaderUnion,
): AsyncGenerator<SourceRow> {
  const maxLineChars = Math.max(settings.maxCellBytes * 4, 1 << 20);
  let partial = '';
  let line = 0;
  let index = 0;

  const parseLine = (raw: string): SourceRow | undefined => {
    line++;
    const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (content.trim() === '') return undefined;
    index++;
    const where = `line ${line}`;
    const location = { text: where, source: settings.source, line };
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      const { column, detail } = locateInLine(content);
      return {
        location,
        cells: emptyCells<Cell>(),
        index,
        error: { code: 'JSON_SYNTAX', message: `Invalid JSON: ${detail} (${where}, column ${column})` },
      };
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return {
        location,
        cells: emptyCells<Cell>(),
        index,
        error: {
          code: 'JSON_NOT_RECORDS',
          message: `Not a record: expected an object on each line (${where})`,
        },
      };
    }
    return { location, cells: flattenRecord(value, headers, settings.maxCellBytes, where), index };
  };

  for await (const chunk of text) {
    let start = 0;
    let newline = chunk.indexOf('\n');
    while (newline !== -1) {
      const raw = start === 0 ? partial + chunk.slice(0, newline) : chunk.slice(start, newline);
      if (start === 0) partial = '';
      const row = parseLine(raw);
      if (row) yield row;
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
    }
    partial = start === 0 ? partial + chunk : chunk.slice(start);
    if (partial.length > maxLineChars) {
      throw new CatalogIoError(
        'CELL_TOO_LARGE',
        `Line too long: more than ${maxLineChars} characters without a line break (raise maxCellBytes if the data is genuine)`,
        { location: `line ${line + 1}` },
      );
    }
  }
  if (partial !== '') {
    const row = parseLine(partial);
    if (row) yield row;
  }
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
