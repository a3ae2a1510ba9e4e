// The run journal (`rows.jsonl` in the run folder): one appended line per finished source row, and a
// marker of the drafts about to be written before each batch's writes. Lines are buffered and written
// with a plain `write` at least once a second and at every batch boundary, so a `kill -9` loses at
// most the rows in flight (the operating system keeps what was written; no fsync is needed for that).
import { closeSync, createReadStream, futimesSync, openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ImportReportLine } from '../writers/import-report.js';

/** What a batch was about to do to one record; read back by a resume to reconcile rows in flight. */
export interface WriteIntent {
  entity: string;
  ref: string;
  action: 'create' | 'update' | 'delete';
  /** Changed field names (`prod_title_fr`), for an update. */
  changed?: string;
}

export type JournalRecord =
  /**
   * A source row (1-based ordinal `n` in reading order) with its report line and, when it carried
   * several drafts, their refs (one draft's ref is the line's); `retry`: it failed because the service
   * did, so a resume tries it again.
   */
  | { t: 'row'; n: number; line: ImportReportLine; refs?: string[]; retry?: true }
  /** A source row not attempted (the run stopped first): reported, but a resume tries it. */
  | { t: 'na'; n: number; line: ImportReportLine }
  /** A report line that is no source row: a record deleted by a full sync, an image that failed. */
  | { t: 'extra'; line: ImportReportLine }
  | { t: 'inflight'; b: number; intents: WriteIntent[] }
  | { t: 'done'; b: number };

const FLUSH_EVERY_MS = 500;
/**
 * A live run touches its journal this often, even with nothing to write (a long wait on the service):
 * a worker on another host tells a dead run from a live one by it (SILENT_RUN_MS in registry.ts).
 */
export const HEARTBEAT_MS = 5_000;

export class JournalWriter {
  private readonly fd: number;
  private buffer = '';
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private touchedAt = Date.now();

  constructor(readonly file: string) {
    this.fd = openSync(file, 'a');
    this.timer = setInterval(() => {
      this.flush();
      this.heartbeat();
    }, FLUSH_EVERY_MS);
    this.timer.unref();
  }

  private heartbeat(): void {
    const now = Date.now();
    if (this.closed || now - this.touchedAt < HEARTBEAT_MS) return;
    this.touchedAt = now;
    futimesSync(this.fd, now / 1000, now / 1000);
  }

  append(record: JournalRecord): void {
    this.appendText(`${JSON.stringify(record)}\n`);
  }

  /** A line already written out (with its line end): bucket files of a full sync use the same writer. */
  appendText(text: string): void {
    this.buffer += text;
    if (this.buffer.length >= 256 * 1024) this.flush();
  }

  /** Appends and writes at once: the in-flight marker must be on disk before the writes go out. */
  appendNow(record: JournalRecord): void {
    this.append(record);
    this.flush();
  }

  flush(): void {
    if (this.closed || this.buffer === '') return;
    const chunk = this.buffer;
    this.buffer = '';
    writeSync(this.fd, chunk);
    this.touchedAt = Date.now();
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    clearInterval(this.timer);
    this.closed = true;
    closeSync(this.fd);
  }
}

/** The journal's records in order; a last line cut short by a crash is skipped. */
export async function* readJournal(file: string): AsyncGenerator<JournalRecord> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of lines) {
    if (text === '') continue;
    try {
      yield JSON.parse(text) as JournalRecord;
    } catch {
      // The line a kill cut in half: its row was not finished as far as the journal knows.
    }
  }
}

/** Whether `n` was finished: rows finish almost in order, so ranges stay few for millions of rows. */
export class OrdinalSet {
  /** Sorted, disjoint, non-adjacent [from, to] ranges. */
  private ranges: Array<[number, number]> = [];

  add(n: number): void {
    const r = this.ranges;
    const last = r[r.length - 1];
    if (last && n === last[1] + 1) {
      last[1] = n;
      return;
    }
    if (!last || n > last[1] + 1) {
      r.push([n, n]);
      return;
    }
    if (this.has(n)) return;
    // Out of order (a row that waited for a later batch): insert and merge neighbours.
    let i = r.findIndex(([from]) => from > n);
    if (i === -1) i = r.length;
    r.splice(i, 0, [n, n]);
    const merged: Array<[number, number]> = [];
    for (const range of r) {
      const prev = merged[merged.length - 1];
      if (prev && range[0] <= prev[1] + 1) prev[1] = Math.max(prev[1], range[1]);
      else merged.push([range[0], range[1]]);
    }
    this.ranges = merged;
  }

  has(n: number): boolean {
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [from, to] = this.ranges[mid]!;
      if (n < from) hi = mid - 1;
      else if (n > to) lo = mid + 1;
      else return true;
    }
    return false;
  }
}

/** The report lines of a journal, in the order they were written: what `runs report` and XLSX write. */
export async function* journalReportLines(file: string): AsyncGenerator<ImportReportLine> {
  for await (const record of readJournal(file)) {
    if (record.t === 'row' || record.t === 'na' || record.t === 'extra') yield record.line;
  }
}
