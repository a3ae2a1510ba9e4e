// The run journal (`rows.jsonl` in the run folder): one appended line per finished source row, and a
// marker of the drafts about to be written before each batch's writes. Lines are buffered and written
// with a plain `write` at least once a second and at every batch boundary, so a `kill -9` loses at
// most the rows in flight (the operating system keeps what was written; no fsync is needed for that).
// A journal starts with a `start` line (written when the run folder is made) and a run that ended
// writes an `end` line: a resume tells a journal cut short or damaged from one a kill left (checked
// by `checkRecord`, every line, before a resume changes anything).
import {
  closeSync,
  createReadStream,
  fstatSync,
  ftruncateSync,
  futimesSync,
  openSync,
  readSync,
} from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { CatalogIoError } from '../errors.js';
import { writeFailed, writeFully } from '../files.js';
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
  | { t: 'done'; b: number }
  /** The first line of every journal. */
  | { t: 'start'; run: string }
  /**
   * Written by a resume after the lines it carried over from the attempts before (their finished rows
   * in report order): the row lines before it and those after it (this attempt's) are merged by row
   * number into one report in the source's order (`inReportOrder`).
   */
  | { t: 'carried' }
  /** The last line of an attempt that ended (not killed): how many row and `na` lines it holds. */
  | { t: 'end'; rows: number }
  /**
   * A source read once (stdin, a URL): its first `bytes` bytes hash to `hash` (sha256). Written at
   * every flush, after the rows: every row before it was read from those bytes.
   */
  | { t: 'src'; bytes: number; hash: string }
  /**
   * An image or file URL of this run (`u`: a hash of the URL, which may carry a token): `pending`
   * before its registration is sent, then its outcome. A resume reports what this run registered as
   * `registered`, as the run would have without the kill. A URL that could not be registered is
   * `failed`, with the DAM's words (`m`): the resume counts it and gives its later rows the same outcome.
   */
  | {
      t: 'asset';
      kind: 'image' | 'file';
      u: string;
      ref: string;
      s: 'pending' | 'registered' | 'reused' | 'cached' | 'failed';
      m?: string;
      /** A `failed` one the DAM failed (not the URL): a resume tries it again. */
      r?: 1;
    };

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
  /** The write that failed (a full disk): every later append and flush throws it. */
  private failure: CatalogIoError | undefined;
  /** Bytes of whole lines in the file: a write that fails is cut back to them. */
  private size: number;

  /** `seal`: a record appended at every flush that writes something (a stream source's checkpoint). */
  constructor(
    readonly file: string,
    private readonly seal?: () => JournalRecord | undefined,
  ) {
    this.fd = openSync(file, 'a');
    this.size = fstatSync(this.fd).size;
    this.timer = setInterval(() => {
      // A failed write is kept for the run's next append or flush to throw: not thrown in a timer.
      try {
        this.flush();
        this.heartbeat();
      } catch {}
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
    if (this.failure) throw this.failure;
    this.buffer += text;
    if (this.buffer.length >= 256 * 1024) this.flush();
  }

  /** Appends and writes at once: the in-flight marker must be on disk before the writes go out. */
  appendNow(record: JournalRecord): void {
    this.append(record);
    this.flush();
  }

  flush(): void {
    if (this.failure) throw this.failure;
    if (this.closed || this.buffer === '') return;
    const sealed = this.seal?.();
    if (sealed) this.buffer += `${JSON.stringify(sealed)}\n`;
    const chunk = this.buffer;
    this.buffer = '';
    try {
      this.size += writeFully(this.fd, chunk);
    } catch (cause) {
      // The part of the chunk the disk took ends in a cut line: the journal keeps its whole lines only,
      // so a --resume reads it (the rows of the lost lines are looked up again, as after a kill).
      try {
        ftruncateSync(this.fd, this.size);
      } catch {}
      this.failure = writeFailed(this.file, cause, "the run's journal ");
      throw this.failure;
    }
    this.touchedAt = Date.now();
  }

  close(): void {
    if (this.closed) return;
    clearInterval(this.timer);
    try {
      this.flush();
    } finally {
      this.closed = true;
      closeSync(this.fd);
    }
  }
}

export interface ReadJournalOptions {
  /** Called when the journal ends in a line without its line end (cut by a crash or a full disk). */
  onCut?: (line: number) => void;
}

/**
 * The journal's records in order. A complete line that is not a record of the right shape is
 * `JOURNAL_INVALID` (naming the line); a last line cut short is skipped and told to `onCut`.
 */
export async function* readJournal(
  file: string,
  options: ReadJournalOptions = {},
): AsyncGenerator<JournalRecord> {
  let carry = '';
  let line = 0;
  const parse = (text: string): JournalRecord => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw journalInvalid(file, `line ${line} is not JSON`);
    }
    const problem = checkRecord(value);
    if (problem) throw journalInvalid(file, `line ${line} ${problem}`);
    return value as JournalRecord;
  };
  let stream: AsyncIterable<string>;
  try {
    stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1024 * 1024 });
    for await (const chunk of stream) {
      const lines = (carry + chunk).split('\n');
      carry = lines.pop()!;
      for (const text of lines) {
        line += 1;
        if (text !== '') yield parse(text);
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw journalInvalid(file, 'is missing');
    throw err;
  }
  if (carry !== '') options.onCut?.(line + 1);
}

export function journalInvalid(file: string, problem: string): CatalogIoError {
  return new CatalogIoError('JOURNAL_INVALID', `The run journal ${file} ${problem}`, { file });
}

const OUTCOME_TEXT = /^[a-z-]*$/;
const LINE_KEYS: ReadonlyArray<keyof ImportReportLine> = [
  'location',
  'entity',
  'ref',
  'outcome',
  'id',
  'status',
  'changed',
  'field',
  'column',
  'value',
  'message',
  'assets',
];

/** Why `value` is not a journal record (a well-formed line of another shape), or undefined. */
export function checkRecord(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'is not a record';
  const r = value as Record<string, unknown>;
  const ordinal = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 1;
  const count = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  const text = (v: unknown) => typeof v === 'string';
  const reportLine = (v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    const l = v as Record<string, unknown>;
    return LINE_KEYS.every((k) => text(l[k])) && OUTCOME_TEXT.test(l.outcome as string);
  };
  switch (r.t) {
    case 'row':
      if (!ordinal(r.n)) return 'has a row without its number (n)';
      if (!reportLine(r.line)) return 'has a row without a whole report line';
      if (r.refs !== undefined && !(Array.isArray(r.refs) && r.refs.every(text)))
        return 'has refs that are not a list of texts';
      if (r.retry !== undefined && r.retry !== true) return 'has a retry mark that is not true';
      return undefined;
    case 'na':
      if (!ordinal(r.n)) return 'has a row without its number (n)';
      return reportLine(r.line) ? undefined : 'has a row without a whole report line';
    case 'extra':
      return reportLine(r.line) ? undefined : 'has a line without a whole report line';
    case 'inflight':
      if (!count(r.b)) return 'has a batch without its number (b)';
      if (
        !Array.isArray(r.intents) ||
        !r.intents.every(
          (i: unknown) =>
            i !== null &&
            typeof i === 'object' &&
            text((i as WriteIntent).entity) &&
            text((i as WriteIntent).ref) &&
            ['create', 'update', 'delete'].includes((i as WriteIntent).action) &&
            ((i as WriteIntent).changed === undefined || text((i as WriteIntent).changed)),
        )
      )
        return 'has writes in flight of the wrong shape';
      return undefined;
    case 'done':
      return count(r.b) ? undefined : 'has a batch without its number (b)';
    case 'start':
      return text(r.run) ? undefined : 'has a start without the run id';
    case 'carried':
      return undefined;
    case 'end':
      return count(r.rows) ? undefined : 'has an end without its row count';
    case 'src':
      return count(r.bytes) && typeof r.hash === 'string' && /^[0-9a-f]{64}$/.test(r.hash)
        ? undefined
        : 'has a source checkpoint of the wrong shape';
    case 'asset':
      return (r.kind === 'image' || r.kind === 'file') &&
        text(r.u) &&
        text(r.ref) &&
        (r.s === 'pending' ||
          r.s === 'registered' ||
          r.s === 'reused' ||
          r.s === 'cached' ||
          r.s === 'failed') &&
        (r.m === undefined || typeof r.m === 'string')
        ? undefined
        : 'has an asset of the wrong shape';
    default:
      return `is of no known kind (t: ${JSON.stringify(r.t)?.slice(0, 40)})`;
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

  /** The smallest ordinal not in the set (every row before it is finished). */
  firstMissing(): number {
    const first = this.ranges[0];
    return first && first[0] === 1 ? first[1] + 1 : 1;
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

/** A report line's place: a source row's number; a line that is no source row (`extra`) after them all. */
export function reportKey(record: { t: 'row' | 'na'; n: number } | { t: 'extra' }): number {
  return record.t === 'extra' ? Number.POSITIVE_INFINITY : record.n;
}

/**
 * Two runs of report lines as one: `carried` (the rows the attempts before a resume finished, in their
 * report order) and `fresh` (this attempt's, in its order). Before each fresh line come the carried
 * lines whose place is not after it, so the rows are in the source's order, as one uninterrupted run
 * writes them. Streams both: memory holds one line of each.
 */
export async function* inReportOrder<T>(
  carried: AsyncIterable<T>,
  fresh: AsyncIterable<T>,
  key: (item: T) => number,
): AsyncGenerator<T> {
  const earlier = carried[Symbol.asyncIterator]();
  let head = await earlier.next();
  try {
    for await (const item of fresh) {
      const at = key(item);
      while (!head.done && key(head.value) <= at) {
        yield head.value;
        head = await earlier.next();
      }
      yield item;
    }
    while (!head.done) {
      yield head.value;
      head = await earlier.next();
    }
  } finally {
    if (!head.done) await earlier.return?.();
  }
}

type ReportRecord = Extract<JournalRecord, { t: 'row' | 'na' | 'extra' }>;

/**
 * One segment of a journal: `carried` the records before its `carried` line (all of them in a journal
 * without one), `fresh` those after it. `upTo`: only the journal's first `upTo` records are read.
 */
export async function* journalSegment(
  file: string,
  segment: 'carried' | 'fresh',
  upTo = Number.POSITIVE_INFINITY,
): AsyncGenerator<JournalRecord> {
  let records = 0;
  let after = false;
  for await (const record of readJournal(file)) {
    records += 1;
    if (records > upTo) return;
    if (record.t === 'carried') {
      if (segment === 'carried') return;
      after = true;
      continue;
    }
    if (after === (segment === 'fresh')) yield record;
  }
}

async function* reportRecords(records: AsyncIterable<JournalRecord>): AsyncGenerator<ReportRecord> {
  for await (const record of records)
    if (record.t === 'row' || record.t === 'na' || record.t === 'extra') yield record;
}

/**
 * The report lines of a journal in the report's order: what `runs report` and XLSX write. A resumed
 * run's journal holds the rows carried over first, then its own: merged by row number, in the
 * source's order, as one uninterrupted run writes them.
 */
export async function* journalReportLines(file: string): AsyncGenerator<ImportReportLine> {
  for await (const record of inReportOrder(
    reportRecords(journalSegment(file, 'carried')),
    reportRecords(journalSegment(file, 'fresh')),
    reportKey,
  ))
    yield record.line;
}

/**
 * The report records of a journal's first `end` bytes (the lines a resume carried over), read on
 * demand without waiting: a resumed run's report takes them as its own rows come, in row order.
 */
export class CarriedLines {
  private fd: number | undefined;
  private position = 0;
  /** The whole lines of the last chunk read, the next one to parse, and the part line after them. */
  private lines: string[] = [];
  private next = 0;
  private carry = '';
  private readonly decoder = new StringDecoder('utf8');
  private head: ReportRecord | undefined;

  constructor(
    file: string,
    private readonly end: number,
  ) {
    this.fd = openSync(file, 'r');
    this.head = this.read();
  }

  /** The next carried record if its place is not after `key`, taking it. */
  takeUpTo(key: number): ReportRecord | undefined {
    const head = this.head;
    if (!head || reportKey(head) > key) return undefined;
    this.head = this.read();
    return head;
  }

  private read(): ReportRecord | undefined {
    for (;;) {
      while (this.next < this.lines.length) {
        const line = this.lines[this.next]!;
        this.next += 1;
        if (line === '') continue;
        const record = JSON.parse(line) as JournalRecord;
        if (record.t === 'row' || record.t === 'na' || record.t === 'extra') return record;
      }
      if (this.fd === undefined || this.position >= this.end) {
        this.close();
        return undefined;
      }
      const chunk = Buffer.allocUnsafe(Math.min(256 * 1024, this.end - this.position));
      const got = readSync(this.fd, chunk, 0, chunk.length, this.position);
      if (got === 0) {
        this.close();
        return undefined;
      }
      this.position += got;
      this.lines = (this.carry + this.decoder.write(chunk.subarray(0, got))).split('\n');
      this.carry = this.lines.pop()!;
      this.next = 0;
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
