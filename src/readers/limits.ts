// The row errors of the readers' size and depth limits (and of invalid UTF-8), worded once: such a
// row is reported with its location and the reading goes on with the next row.
import type { Cell } from './types.js';

export interface RowError {
  code: string;
  message: string;
}

/** A cell above `maxCellBytes` (the cell itself is left out of the row). */
export function cellTooLarge(bytes: number, limit: number, location: string): RowError {
  return {
    code: 'CELL_TOO_LARGE',
    message: `Cell too large: ${bytes} bytes, the limit is ${limit} (raise --max-cell if the data is genuine) (${location})`,
  };
}

/** A line or record so long that it was skipped to its end without being held. */
export function recordTooLarge(chars: number, maxCellBytes: number, location: string): RowError {
  return {
    code: 'CELL_TOO_LARGE',
    message: `Record too large: ${chars} characters, more than a record with cells of at most ${maxCellBytes} bytes may hold; the row is skipped (raise --max-cell if the data is genuine) (${location})`,
  };
}

/**
 * A row whose cells together exceed the row limit once expanded (an XLSX shared string used by many
 * cells, a JSON record of very many keys). `from`: the first column left out.
 */
export function rowTooLarge(
  bytes: number | undefined,
  limit: number,
  location: string,
  from?: string,
): RowError {
  return {
    code: 'ROW_TOO_LARGE',
    message: `Row too large: its cells hold ${bytes ?? `more than ${limit}`} bytes once expanded, the limit is ${limit} (4 × --max-cell)${from === undefined ? '; the row is skipped' : `; the cells from column ${JSON.stringify(from)} on are left out`} (raise --max-cell if the data is genuine) (${location})`,
  };
}

/** A JSON record nested deeper than `maxJsonDepth`. */
export function jsonTooDeep(limit: number, location: string): RowError {
  return {
    code: 'JSON_TOO_DEEP',
    message: `Record nested too deep: more than ${limit} levels of arrays and objects; the row is skipped (raise --max-json-depth if the data is genuine) (${location})`,
  };
}

/** Thrown inside a reader core for a row over a limit; the core turns it into that row's error. */
export class RowProblem extends Error {
  constructor(readonly error: RowError) {
    super(error.message);
  }
}

/** A row holding bytes that are not UTF-8 in a UTF-8 source (decoded as U+FFFD, see DecodeStatus). */
export function invalidUtf8(location: string): RowError {
  return {
    code: 'ENCODING_INVALID',
    message: `Invalid UTF-8: bytes here are not UTF-8, shown as \uFFFD; fix them, or name the file's encoding with --encoding (e.g. windows-1252) (${location})`,
  };
}

/** The position of the first text cell holding U+FFFD (an invalid byte sequence), or -1. */
export function replacedAt(values: readonly Cell[]): number {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === 'string' ? value.includes('\uFFFD') : Array.isArray(value) && replacedAt(value) >= 0)
      return i;
  }
  return -1;
}
