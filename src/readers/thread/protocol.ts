// The messages between the reading thread and the thread that consumes the rows. Rows travel in
// batches as one flat array (copying a flat array of cells between threads is cheap; copying records
// is not). Header lists are sent once and referred to by number, so every row of a sheet shares one.
import type { Format } from '../format.js';

/**
 * One row in a batch's `data`: location text, line, index, extra (null, or the rarer parts below), then a
 * tag. Tag >= 0: a table row; the tag is its header list's number, and one cell per header follows.
 * Tag < 0: a keyed row (JSON) of `-tag - 1` cells, each a (key number, cell) pair.
 */
export interface RowExtra {
  sheet?: string;
  /** The location's source, when it is not the opened source's. */
  source?: string;
  error?: { code: string; message: string };
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

export interface RowsMessage {
  type: 'rows';
  /** Header lists first used in this batch, numbered after the ones sent before. */
  newHeaderLists: string[][];
  /** Keys first used by keyed rows in this batch, numbered after the ones sent before. */
  newKeys: string[];
  data: unknown[];
  bytesRead: number;
  /** The source's header when it grew (JSON sources learn keys as they go). */
  headers?: string[];
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
