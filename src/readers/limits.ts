// The row errors of the readers' size and depth limits, worded once: a row over a limit is reported
// with its location and the reading goes on with the next row.

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
