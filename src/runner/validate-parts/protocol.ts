// What validate's part threads are given and send back (see parts.ts).
import type { Profile } from '../../mappers/profile-types.js';
import type { ShortRows } from '../../readers/csv/csv.js';
import type { ModelData } from '../../schema/build.js';
import type { Outcome } from '../../writers/report.js';
import type { KindCount } from '../check.js';

/** Given once, when the thread starts: the file's header and everything a row is checked against. */
export interface PartThreadInput {
  model: ModelData;
  profile: Profile;
  strict: boolean;
  unguardFormulas: boolean;
  onAssetError?: 'warn' | 'fail';
  damHosts?: readonly string[];
  source: string;
  headers: string[];
  delimiter: string;
  trim: boolean;
  maxCellBytes: number;
  /** The report's line format, when there is a report. */
  report?: 'csv' | 'jsonl';
  /** The rejects file's dialect, when there is one (CSV). */
  rejects?: { delimiter: string; guard: boolean };
  /** Values masked wherever they turn up (the API key): the thread's own registry starts empty. */
  secrets: string[];
  /** The buffers parts are read into (see SlotPool), shared with the main thread. */
  slots: SharedArrayBuffer[];
}

export interface PartMessage {
  seq: number;
  /** The shared buffer the part is in, or -1: the part is in `bytes` (moved with the message). */
  slot: number;
  bytes?: ArrayBuffer;
  length: number;
  firstLine: number;
  /** A report buffer whose lines the main thread wrote: the part's lines may go into it (moved). */
  spare?: ArrayBuffer;
}

/** The refs of a part's rows in the order the duplicate check was asked (RefTracker.checkPart). */
export interface PartRefs {
  /** Each ref's two hashes side by side (RefHasher). */
  hashes: Int32Array;
  lines: Int32Array;
  /** Set when the refs rose one after the other within one entity: the first and the last. */
  run?: { entity: string; first: string; last: string };
}

export interface PartResult {
  seq: number;
  /** The part's buffer, as given: a part that needs checking on the main thread again is read from it. */
  slot: number;
  bytes?: ArrayBuffer;
  length: number;
  rows: number;
  outcomes: Record<Outcome, number>;
  warned: number;
  /** The report's lines as UTF-8 bytes: `reportLength` bytes of this buffer (moved, not copied). */
  report?: ArrayBuffer;
  reportLength: number;
  rejects: string;
  rejected: number;
  kinds: KindCount[];
  refs: PartRefs;
  short: ShortRows;
  warnings: string[];
  /** A row named an image or file: the asset check follows the whole file, so the main thread takes over. */
  assets: boolean;
  /** The part ended in an error (after the rows before it, whose lines are above). */
  error?: { code?: string; message: string; location?: string; details?: Record<string, unknown> };
}
