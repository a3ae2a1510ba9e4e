// The messages between the reading thread and the thread that consumes the rows. Copying many small
// values between threads costs more than reading them, so a batch of rows travels as one string holding
// every text (location texts, keys and text cells, back to back) and typed arrays that say where each
// text ends and what each cell is; the typed arrays are moved, not copied. Header lists are sent once
// and referred to by number, so every row of a sheet shares one list.
import type { Format } from '../format.js';
import type { Cell } from '../types.js';

/**
 * What a cell is: text (its end in `ends`), null, a number (in `numbers`), a boolean, or another value
 * (an array cell from JSON, cloned in `others`).
 */
export const KIND = { text: 0, null: 1, number: 2, true: 3, false: 4, other: 5 } as const;

/** Per row, three numbers in `rows`: line, index, and the tag (see RowsMessage). */
export const ROW_NUMBERS = 3;

export interface RowsMessage {
  type: 'rows';
  /**
   * Per row: line, index, tag. Tag >= 0: a table row, the number of its header list, one cell per header.
   * Tag < 0: a keyed row (JSON) of `-tag - 1` cells, each a key (a text) then its cell.
   */
  rows: Int32Array;
  /** Every text of the batch, back to back: each row's location text first, then its keys and cells. */
  text: string;
  /** End of each text in `text` (its start is the previous end). */
  ends: Int32Array;
  /** Kind of each cell (location texts and keys are not cells). */
  kinds: Uint8Array;
  numbers: Float64Array;
  others: Cell[];
  /** The sheet of every row of this batch (a batch never spans two sheets). */
  sheet?: string;
  /** Rare per-row parts: the row's place in the batch, and what it has. */
  extras: Array<[number, RowExtra]>;
  /** Header lists first used in this batch, numbered after the ones sent before. */
  newHeaderLists: string[][];
  bytesRead: number;
  /** The source's header when it grew (JSON sources learn keys as they go). */
  headers?: string[];
}

export interface RowExtra {
  /** The location's source, when it is not the opened source's. */
  source?: string;
  error?: { code: string; message: string };
  escapedQuotes?: readonly string[];
}

export interface OpenedMessage {
  type: 'opened';
  format: Format;
  encoding: string | undefined;
  delimiter: string | undefined;
  headers: string[];
  notes: string[];
  source: string;
  totalBytes: number | undefined;
}

export interface EndMessage {
  type: 'end';
  bytesRead: number;
  notes: string[];
}

export interface ErrorMessage {
  type: 'error';
  /** A CatalogIoError's code and details, when it was one. */
  code?: string;
  message: string;
  location?: string;
  details?: Record<string, unknown>;
  /** The source's notes when the failure came after the opening (some are found while reading). */
  notes?: string[];
}

export type ReaderMessage = OpenedMessage | RowsMessage | EndMessage | ErrorMessage;

/** From the consuming thread: a batch was taken (the reader may send one more), or stop. */
export type ControlMessage = { type: 'ack' } | { type: 'close' };

export interface ThreadInput {
  spec: string;
  /** Reader options without `stdin` (a stream cannot cross threads). */
  options: Record<string, unknown>;
  batchRows: number;
  /** Batches sent but not yet taken: what bounds the memory between the threads. */
  maxInFlight: number;
}
