// The messages between the read-ahead thread and the validate/import thread. Rows travel in batches as
// flat arrays (cheap to copy between threads); header names are sent once and referred to by number.

import type { Format } from '../readers/index.js';

/**
 * Fields of one row in a batch's `data` before its cell count: location text, line, index, sheet | null,
 * location source | null (null: the opened source), error code | null, error message | null. Then the
 * cell count, then that many pairs (header number, cell).
 */
export const ROW_FIELDS = 7;

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
  /** Header names first seen in this batch, numbered after the ones sent before. */
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
  /** A CatalogIoError's code, when it was one. */
  code?: string;
  message: string;
  location?: string;
}

export type AheadMessage = OpenedMessage | RowsMessage | EndMessage | ErrorMessage;

/** From the consuming thread: a batch was taken (the reader may send one more), or stop. */
export type ControlMessage = { type: 'ack' } | { type: 'close' };

export interface AheadInput {
  spec: string;
  /** Reader options without `stdin` (a stream cannot cross threads). */
  options: Record<string, unknown>;
  batchRows: number;
  /** Batches sent but not yet taken: what bounds the memory between the threads. */
  maxInFlight: number;
}
