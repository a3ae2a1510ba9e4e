// The range reader: a run's report lines read in ranges, never all at once. A report of a million rows
// is a journal of hundreds of megabytes; the console keeps, on disk, one 16-byte entry per report line
// (its byte offset and length in the journal, and its outcome), built in one pass and extended as a
// running import appends. A page of rows is then a few positioned reads, at any depth of the file.
import { createReadStream, type Stats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import type { ImportReportLine } from '../writers/import-report.js';

/** A report line as the grid shows it: the import's columns (validate's report has a subset). */
export type ReportRow = Partial<ImportReportLine> & { location: string; outcome: string };

/**
 * `journal`: a run's `rows.jsonl` (report lines inside `row`, `na` and `extra` records, among the
 * batch markers). `lines`: a JSON Lines report, one report line per line (what `validate` writes).
 */
export type LineFileKind = 'journal' | 'lines';

const ENTRY_BYTES = 16;
const READ_CHUNK = 1 << 20;
const OUTCOME_KEY = Buffer.from('"outcome":"');
const REPORT_RECORDS = ['{"t":"row"', '{"t":"na"', '{"t":"extra"'].map((p) => Buffer.from(p));

const UNREADABLE: ReportRow = { location: '', outcome: '', message: 'unreadable line in the file' };

export class ReportIndex {
  /** Report lines indexed so far. */
  count = 0;
  /** Lines per outcome, counted while indexing. */
  readonly outcomes: Record<string, number> = {};
  private readonly codes = new Map<string, number>();
  private readonly names: string[] = [];
  /** Bytes of the source file indexed: up to the end of its last whole line. */
  private scanned = 0;
  private sourceIno = -1;
  private index: FileHandle | undefined;
  private busy: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    readonly kind: LineFileKind,
    /** Where the index lives (a file of this server's temporary folder). */
    private readonly indexFile: string,
  ) {}

  /** Extends the index to the end of the file (a resumed run's new journal is indexed anew). */
  refresh(): Promise<void> {
    const next = this.busy.then(() => this.extend());
    this.busy = next.catch(() => {});
    return next;
  }

  outcomeName(code: number): string {
    return this.names[code] ?? '';
  }

  private async extend(): Promise<void> {
    let info: Stats;
    try {
      info = await stat(this.file);
    } catch {
      return; // no journal yet: the run has not finished a row
    }
    if (info.ino !== this.sourceIno || info.size < this.scanned) await this.reset(info.ino);
    if (info.size === this.scanned) return;
    const index = this.index!;
    let offset = this.scanned;
    let carry: Buffer | undefined;
    const entries = Buffer.alloc(ENTRY_BYTES * 4096);
    let pending = 0;
    const flush = async () => {
      if (pending === 0) return;
      await index.write(entries, 0, pending * ENTRY_BYTES, (this.count - pending) * ENTRY_BYTES);
      pending = 0;
    };
    const stream = createReadStream(this.file, {
      start: this.scanned,
      end: info.size - 1,
      highWaterMark: READ_CHUNK,
    });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const data = carry ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        const line = data.subarray(start, nl);
        const outcome = this.reportOutcome(line);
        if (outcome !== undefined) {
          const at = pending * ENTRY_BYTES;
          entries.writeDoubleLE(offset, at);
          entries.writeUInt32LE(line.length, at + 8);
          entries.writeUInt8(this.codeOf(outcome), at + 12);
          pending += 1;
          this.count += 1;
          this.outcomes[outcome] = (this.outcomes[outcome] ?? 0) + 1;
          if (pending * ENTRY_BYTES === entries.length) await flush();
        }
        offset += nl - start + 1;
        start = nl + 1;
      }
      // A line not yet ended (a running import writes it now) waits for the next refresh.
      carry = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
    }
    await flush();
    this.scanned = offset;
  }

  private async reset(ino: number): Promise<void> {
    await this.index?.close();
    this.index = await open(this.indexFile, 'w+');
    this.sourceIno = ino;
    this.scanned = 0;
    this.count = 0;
    for (const key of Object.keys(this.outcomes)) delete this.outcomes[key];
  }

  /** The outcome of a report line, or undefined for a line that is none (a journal's batch markers). */
  private reportOutcome(line: Buffer): string | undefined {
    if (
      this.kind === 'journal' &&
      !REPORT_RECORDS.some((prefix) => line.subarray(0, prefix.length).equals(prefix))
    )
      return undefined;
    // The first `"outcome":"` is the key: values before it (location, entity, ref) escape their quotes.
    const at = line.indexOf(OUTCOME_KEY);
    if (at === -1) return this.kind === 'lines' && line.length > 0 ? '' : undefined;
    const from = at + OUTCOME_KEY.length;
    const to = line.indexOf(34, from);
    return to === -1 ? undefined : line.toString('utf8', from, to);
  }

  private codeOf(outcome: string): number {
    let code = this.codes.get(outcome);
    if (code === undefined) {
      code = Math.min(this.names.length, 255);
      if (code < 255) {
        this.codes.set(outcome, code);
        this.names.push(outcome);
      }
    }
    return code;
  }

  /** The report lines at these ordinals (0-based, in file order), read by their offsets. */
  async read(ordinals: ArrayLike<number>): Promise<Array<ReportRow & { n: number }>> {
    await this.busy;
    if (!this.index || ordinals.length === 0) return [];
    const source = await open(this.file, 'r');
    try {
      const rows: Array<ReportRow & { n: number }> = [];
      const entry = Buffer.alloc(ENTRY_BYTES);
      for (let i = 0; i < ordinals.length; i++) {
        const n = ordinals[i]!;
        if (n < 0 || n >= this.count) continue;
        await this.index.read(entry, 0, ENTRY_BYTES, n * ENTRY_BYTES);
        const length = entry.readUInt32LE(8);
        const text = Buffer.alloc(length);
        await source.read(text, 0, length, entry.readDoubleLE(0));
        rows.push({ ...this.parse(text.toString('utf8')), n });
      }
      return rows;
    } finally {
      await source.close();
    }
  }

  parse(text: string): ReportRow {
    try {
      const record = JSON.parse(text) as { line?: ReportRow } & ReportRow;
      return (this.kind === 'journal' ? record.line : record) ?? UNREADABLE;
    } catch {
      return UNREADABLE; // a line a kill cut short, later followed by more
    }
  }

  /** The ordinals whose outcome is one of these, read from the index alone. */
  async withOutcomes(outcomes: readonly string[]): Promise<Uint32Array> {
    await this.busy;
    const wanted = new Set(outcomes.map((o) => this.codes.get(o)).filter((c) => c !== undefined));
    const found = new Growing();
    if (!this.index || wanted.size === 0) return found.done();
    const chunk = Buffer.alloc(ENTRY_BYTES * 65_536);
    for (let first = 0; first < this.count; first += 65_536) {
      const entries = Math.min(65_536, this.count - first);
      await this.index.read(chunk, 0, entries * ENTRY_BYTES, first * ENTRY_BYTES);
      for (let i = 0; i < entries; i++) if (wanted.has(chunk[i * ENTRY_BYTES + 12]!)) found.push(first + i);
    }
    return found.done();
  }

  /**
   * Every report line with its ordinal, streamed from the file (a search, the problems): the lines
   * are given as their text (`parse` makes a row of one); `want` can pass over a line on its text.
   */
  async *scan(want?: (text: string) => boolean): AsyncGenerator<[number, string]> {
    await this.busy;
    if (!this.index || this.scanned === 0) return;
    const end = this.scanned;
    let ordinal = 0;
    let carry = '';
    const stream = createReadStream(this.file, {
      start: 0,
      end: end - 1,
      encoding: 'utf8',
      highWaterMark: READ_CHUNK,
    });
    const isReport =
      this.kind === 'journal'
        ? (text: string) =>
            (text.startsWith('{"t":"row"') ||
              text.startsWith('{"t":"na"') ||
              text.startsWith('{"t":"extra"')) &&
            text.includes('"outcome":"')
        : (text: string) => text.length > 0;
    for await (const chunk of stream as AsyncIterable<string>) {
      const data = carry + chunk;
      let start = 0;
      for (let nl = data.indexOf('\n', start); nl !== -1; nl = data.indexOf('\n', start)) {
        const text = data.slice(start, nl);
        start = nl + 1;
        if (!isReport(text)) continue;
        const n = ordinal++;
        if (n >= this.count) return;
        if (want && !want(text)) continue;
        yield [n, text];
      }
      carry = data.slice(start);
    }
  }

  async close(): Promise<void> {
    await this.busy;
    await this.index?.close();
    this.index = undefined;
  }
}

/** A Uint32Array that grows by doubling (ordinals of a filter: 4 bytes a match, not an object). */
export class Growing {
  private data = new Uint32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Uint32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  done(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * One text field of a report line read from its JSON text without parsing the line: the first
 * `"field":"` is the key (values escape their quotes), and only that value is parsed.
 */
export function rawField(text: string, field: string): string {
  const key = `"${field}":"`;
  const at = text.indexOf(key);
  if (at === -1) return '';
  let end = at + key.length;
  while (end < text.length && text.charCodeAt(end) !== 34) end += text.charCodeAt(end) === 92 ? 2 : 1;
  const value = text.slice(at + key.length - 1, end + 1);
  return value.includes('\\') ? (JSON.parse(value) as string) : value.slice(1, -1);
}
