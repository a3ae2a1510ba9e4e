// Where every finished row goes: the run's journal (the source of truth, on disk) and the report
// appended from it. A resumed run first copies the earlier attempt's finished rows into a fresh
// journal and report, and learns which rows it may skip and what was in flight when it stopped.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import type { ReaderOptions } from '../../readers/options.js';
import { replaceFileSync } from '../../replace-file.js';
import {
  CarriedLines,
  inReportOrder,
  type JournalRecord,
  JournalWriter,
  journalReportLines,
  journalSegment,
  OrdinalSet,
  readJournal,
  reportKey,
  type WriteIntent,
} from '../../runs/journal.js';
import { pauseAt } from '../../runs/pause.js';
import { type RunMeta, RunRegistry } from '../../runs/registry.js';
import { SourceDigest, type SourceIdentity } from '../../runs/source-identity.js';
import { copySummary, writeRunSummary } from '../../runs/summary.js';
import { redactFields, redactText } from '../../secrets.js';
import {
  type ImportReportLine,
  openRunReport,
  type RunReportWriter,
  runSummaryRows,
  writeImportReport,
} from '../../writers/import-report.js';
import type { RunSummary } from '../summary-types.js';
import type { AssetLog, AssetOutcome, AssetStatus, EarlierAsset } from './assets.js';
import type { WriteLog } from './outcome.js';
import { leftOutAssets } from './report-line.js';
import { chooseRun, type JournalScan, resumingLine, type Spool } from './resume.js';

export interface RecorderSetup {
  /** The `.catalog-io` folder; none: a temporary folder, removed when the run ends. */
  stateDir?: string;
  resume?: boolean | string;
  identity: SourceIdentity;
  source: string;
  profileHash: string;
  entity: string;
  tenant: string;
  reportFile?: string;
  rejectsFile?: string;
  profileFile?: string;
  plan?: boolean;
  keepRuns?: number;
  /** The queued job this run is for (RunMeta.job); a resume by another job's run takes the new one. */
  job?: string;
  /** The source as given, and how it is read: a resume reads a stream source again to check it. */
  spec: string;
  readerOptions?: ReaderOptions;
  /** One line for people: what `--resume` did (resumed a run, or why it started a new one). */
  onNote?: (line: string) => void;
}

/** What `open` decided, acted on by `start` once the run's lock is held. */
interface Decided {
  scan?: JournalScan;
  spool?: Spool;
  abandon?: RunMeta;
  note?: string;
}

/** What `progress.json` in the run folder holds while an import runs (the console shows it live). */
export interface LiveProgress {
  /** Rows finished (journaled) and rows read from the source. */
  rows: number;
  rowsRead: number;
  bytesRead: number;
  totalBytes?: number;
  /** Rows the reader made from the bytes read (handed out or not), when it knows. */
  rowsMade?: number;
  requests?: number;
  rateLimited?: number;
  /** Requests per second the tenant's limit lets start, when there is one (the ETA counts them). */
  requestRate?: number;
  /** When this was written (ms since the epoch). */
  at: number;
}

/** progress.json is rewritten at most this often. */
const LIVE_PROGRESS_MS = 1_000;

/** What a resumed run takes over from the attempts before it. */
export interface Carried {
  finished: OrdinalSet;
  /** Report lines of finished rows, by outcome. */
  outcomes: Record<string, number>;
  rows: number;
  /** Rows failed or invalid (they count towards --max-errors). */
  errors: number;
  /** Rows written with a warning (an image or file left out). */
  warned: number;
}

/** What the run says of itself at its end; the recorder adds the run id, command and tenant. */
export type RunEnd = Omit<RunSummary, 'runId' | 'tenant' | 'command'>;

export class RunRecorder implements WriteLog {
  private journal!: JournalWriter;
  private report: RunReportWriter | undefined;
  private readonly prior_ = new Map<string, WriteIntent>();
  readonly carried: Carried = { finished: new OrdinalSet(), outcomes: {}, rows: 0, errors: 0, warned: 0 };
  /** A source read once: hashed as read, for the journal's checkpoints. */
  private readonly digest: SourceDigest | undefined;
  /** Row and `na` lines in the journal: its `end` line says how many. */
  private lines = 0;
  /** Image and file URLs an earlier attempt of this run registered (by URL hash). */
  private readonly earlierAssets = new Map<string, EarlierAsset>();
  /**
   * A resume: the report lines carried over (the journal's first bytes), not yet in the report. Each
   * goes in just before this attempt's first line that comes after it in the source, so the report is
   * in the source's order, as one uninterrupted run writes it.
   */
  private carriedLines: CarriedLines | undefined;

  private constructor(
    readonly registry: RunRegistry,
    readonly meta: RunMeta,
    private readonly setup: RecorderSetup,
    private readonly temporary: string | undefined,
    private readonly decided: Decided,
  ) {
    if (setup.identity.stream && !decided.spool) this.digest = new SourceDigest();
  }

  /** Where the rows are read: a resume's spool of a stream source, else the source itself. */
  get readFrom(): string | undefined {
    return this.decided.spool?.file;
  }

  /** Sees the source's bytes as the reader takes them (a stream source read for the first time). */
  get tap(): ((chunk: Buffer) => void) | undefined {
    return this.digest?.tap;
  }

  get runId(): string {
    return this.meta.runId;
  }

  get journalFile(): string {
    return this.registry.journalFile(this.meta.runId);
  }

  get dir(): string {
    return this.registry.dir(this.meta.runId);
  }

  /** Finds or creates the run folder; refuses a resume whose source or profile changed. */
  static async open(setup: RecorderSetup): Promise<RunRecorder> {
    const temporary = setup.stateDir ? undefined : mkdtempSync(path.join(tmpdir(), 'catalog-io-run-'));
    const registry = new RunRegistry(setup.stateDir ?? temporary!);
    let meta: RunMeta | undefined;
    const decided: Decided = {};
    if (setup.resume) {
      const choice = await chooseRun({
        registry,
        resume: setup.resume,
        identity: setup.identity,
        profileHash: setup.profileHash,
        tenant: setup.tenant,
        source: setup.spec,
        ...(setup.readerOptions && { readerOptions: setup.readerOptions }),
      });
      if (choice.spool) decided.spool = choice.spool;
      if (choice.kind === 'resume') {
        decided.scan = choice.scan;
        decided.note = resumingLine(choice.meta, choice.scan);
        meta = {
          ...choice.meta,
          state: 'running',
          pid: process.pid,
          host: hostname(),
          resumes: choice.meta.resumes + 1,
          ...(setup.reportFile && { reportFile: setup.reportFile }),
          ...(setup.job && { job: setup.job }),
        };
        // Saved by start(), once the lock is held: a resume refused for the lock changes nothing.
      } else {
        if (choice.note) decided.note = choice.note;
        if (choice.abandon) decided.abandon = choice.abandon;
      }
    }
    if (!meta) {
      if (setup.stateDir) await registry.prune(setup.keepRuns);
      meta = await registry.create({
        command: 'import',
        source: setup.source,
        identity: setup.identity,
        profileHash: setup.profileHash,
        entity: setup.entity,
        tenant: setup.tenant,
        startedAt: new Date().toISOString(),
        ...(setup.reportFile && { reportFile: setup.reportFile }),
        ...(setup.rejectsFile && { rejectsFile: setup.rejectsFile }),
        ...(setup.profileFile && { profileFile: setup.profileFile }),
        ...(setup.plan && { plan: true }),
        ...(setup.job && { job: setup.job }),
      });
    }
    return new RunRecorder(registry, meta, setup, temporary, decided);
  }

  /** The checkpoint each flush of the journal ends with, for a source read once. */
  private readonly seal = (): JournalRecord | undefined => {
    const spool = this.decided.spool;
    if (spool) return { t: 'src', bytes: spool.bytes, hash: spool.hash };
    return this.digest ? { t: 'src', ...this.digest.checkpoint() } : undefined;
  };

  /** Opens the report and the journal; a resume carries the finished rows of the attempts before. */
  async start(): Promise<void> {
    await pauseAt('start');
    const { abandon, note } = this.decided;
    if (abandon) await this.registry.save({ ...abandon, state: 'abandoned' });
    if (note) this.setup.onNote?.(note);
    if (this.meta.resumes > 0) {
      // The attempt before ended with a summary (its message, requests, end and exit code): it is not
      // this attempt's, which writes its own when it ends. A resume that crashes has none until then.
      await rm(this.registry.summaryFile(this.meta.runId), { force: true });
      await this.registry.save(this.meta);
    }
    const reportFile = this.setup.reportFile;
    if (this.meta.resumes > 0) {
      // The carried lines go to a new report that replaces the old one once it holds every carried row
      // before the first row this attempt does; the others go in as this attempt's rows come.
      const building = reportFile && `${reportFile}.resume-${process.pid}${path.extname(reportFile)}`;
      if (building) this.report = openRunReport(building);
      const carriedEnd = await this.carryOver();
      if (building && reportFile && this.report?.format !== 'xlsx') {
        this.carriedLines = new CarriedLines(this.journalFile, carriedEnd);
        this.toReport(this.carried.finished.firstMissing() - 1);
        this.report?.flush();
        await rename(building, reportFile);
      }
    } else if (reportFile) this.report = openRunReport(reportFile);
    this.journal = new JournalWriter(this.journalFile, this.seal);
  }

  /**
   * Writes to the report the carried lines whose place is not after `key` (a row number; Infinity: all
   * of them), then `line`, if any.
   */
  private toReport(key: number, line?: ImportReportLine): void {
    const carried = this.carriedLines;
    if (carried) {
      for (let record = carried.takeUpTo(key); record; record = carried.takeUpTo(key))
        this.report?.write(record.line);
      if (key === Number.POSITIVE_INFINITY) {
        carried.close();
        this.carriedLines = undefined;
      }
    }
    if (line) this.report?.write(line);
  }

  /**
   * Copies what the attempts before finished into a fresh journal: their image and file outcomes, then
   * their finished rows in the report's order (the rows carried by an earlier resume and those its
   * attempt did, merged by row number), then a `carried` line. Learns the rows it may skip and the
   * writes in flight. Returns the size of the carried part (the report takes its lines as rows come).
   */
  private async carryOver(): Promise<number> {
    const fresh = `${this.journalFile}.resume`;
    await rm(fresh, { force: true });
    const writer = new JournalWriter(fresh, this.seal);
    writer.append({ t: 'start', run: this.meta.runId });
    const inflight = new Map<number, WriteIntent[]>();
    // A source read once: only the rows its last checkpoint covers were read from bytes it can check.
    const upTo = this.setup.identity.stream ? (this.decided.scan?.checkpoint?.records ?? 0) : Infinity;
    let records = 0;
    try {
      for await (const record of readJournal(this.journalFile)) {
        records += 1;
        if (records > upTo) break;
        if (!kept(record)) continue;
        if (record.t === 'row') {
          this.carried.finished.add(record.n);
          this.carried.rows += 1;
          this.lines += 1;
          if (record.line.outcome === 'failed' || record.line.outcome === 'invalid') this.carried.errors += 1;
          if (leftOutAssets(record.line)) this.carried.warned += 1;
          this.carried.outcomes[record.line.outcome] = (this.carried.outcomes[record.line.outcome] ?? 0) + 1;
        } else if (record.t === 'extra') {
          this.carried.outcomes[record.line.outcome] = (this.carried.outcomes[record.line.outcome] ?? 0) + 1;
        } else if (record.t === 'inflight') {
          inflight.set(record.b, record.intents);
        } else if (record.t === 'done') {
          inflight.delete(record.b);
        } else if (record.t === 'asset') {
          const earlier: EarlierAsset = {
            kind: record.kind,
            reference: record.ref,
            status: record.s,
            ...(record.m !== undefined && { message: record.m }),
            ...(record.r === 1 && { retry: true as const }),
          };
          if (record.s === 'pending' || !this.earlierAssets.has(record.u))
            this.earlierAssets.set(record.u, earlier);
          else if (this.earlierAssets.get(record.u)!.status === 'pending')
            this.earlierAssets.set(record.u, earlier);
          writer.append(record);
        }
      }
      // The finished rows: those carried before the last attempt, merged with the ones it did.
      const lines = async function* (file: string, segment: 'carried' | 'fresh') {
        for await (const record of journalSegment(file, segment, upTo))
          if ((record.t === 'row' || record.t === 'extra') && kept(record)) yield record;
      };
      for await (const record of inReportOrder(
        lines(this.journalFile, 'carried'),
        lines(this.journalFile, 'fresh'),
        reportKey,
      ))
        writer.append(record);
      writer.append({ t: 'carried' });
    } finally {
      writer.close();
    }
    const size = (await stat(fresh)).size;
    for (const intents of inflight.values())
      for (const intent of intents) this.prior_.set(`${intent.entity}\u0000${intent.ref}`, intent);
    await rename(fresh, this.journalFile);
    return size;
  }

  /** What earlier attempts of this run did with image and file URLs (registered, reused, cached). */
  get assetLog(): AssetLog {
    const key = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);
    return {
      earlier: (url) => this.earlierAssets.get(key(url)),
      earlierCounts: () => {
        const counts: Partial<Record<AssetStatus, number>> = {};
        for (const { status } of this.earlierAssets.values())
          if (status !== 'pending') counts[status] = (counts[status] ?? 0) + 1;
        return counts;
      },
      pending: (kind, url, reference) =>
        this.journal.appendNow({ t: 'asset', kind, u: key(url), ref: reference, s: 'pending' }),
      outcome: (o: AssetOutcome) => {
        if (o.status === 'registered' || o.status === 'reused' || o.status === 'cached')
          this.journal.append({ t: 'asset', kind: o.kind, u: key(o.url), ref: o.reference, s: o.status });
        // A URL that could not be registered counts as the run's failed asset after a resume too.
        else if (o.status === 'failed')
          this.journal.append({
            t: 'asset',
            kind: o.kind,
            u: key(o.url),
            ref: o.reference,
            s: 'failed',
            ...(o.message !== undefined && { m: redactText(o.message) }),
            ...(o.retry && { r: 1 as const }),
          });
      },
    };
  }

  row(n: number, line: ImportReportLine, refs: string[], retry: boolean): void {
    this.lines += 1;
    this.journal.append({
      t: 'row',
      n,
      line,
      ...(refs.length > 0 && { refs }),
      ...(retry && { retry: true as const }),
    });
    this.toReport(n, line);
  }

  notAttempted(n: number, line: ImportReportLine): void {
    this.lines += 1;
    this.journal.append({ t: 'na', n, line });
    this.toReport(n, line);
  }

  extra(whole: ImportReportLine): void {
    const line = redactFields(whole);
    this.journal.append({ t: 'extra', line });
    this.toReport(Number.POSITIVE_INFINITY, line);
  }

  beforeWrites(intents: WriteIntent[]): void {
    this.journal.appendNow({ t: 'inflight', b: this.batch, intents });
  }

  prior(entity: string, ref: string): WriteIntent | undefined {
    return this.prior_.get(`${entity}\u0000${ref}`);
  }

  checkpoint(point: string): Promise<void> | undefined {
    return pauseAt(point === 'write' ? `write:${this.batch}` : point);
  }

  private progressAt = 0;

  /**
   * Where the run is, for anyone watching the run folder (the console): written beside the journal
   * (copy and rename, so a reader never sees half a file) at most once a second; best effort.
   */
  progress(progress: Omit<LiveProgress, 'at'>): void {
    if (this.temporary) return;
    const at = Date.now();
    if (at - this.progressAt < LIVE_PROGRESS_MS) return;
    this.progressAt = at;
    const file = this.registry.progressFile(this.meta.runId);
    try {
      replaceFileSync(file, JSON.stringify({ ...progress, at } satisfies LiveProgress));
    } catch {
      // Only a view of the run: the journal is what counts.
    }
  }

  /** The batch being written (its in-flight markers carry this number). */
  batch = 0;

  batchDone(): void {
    this.journal.append({ t: 'done', b: this.batch });
    this.flush();
  }

  /** Journal first, then the report: a report line is never ahead of the journal. */
  flush(): void {
    this.journal.flush();
    this.report?.flush();
  }

  /** Closes journal and report (an XLSX report is written now, from the journal), and records the end. */
  async close(summary: RunEnd, summaryCopy?: string): Promise<RunSummary> {
    this.journal.append({ t: 'end', rows: this.lines });
    this.journal.close();
    await this.dropSpool();
    // The carried rows after the last row this attempt did.
    this.toReport(Number.POSITIVE_INFINITY);
    this.report?.close();
    const full = this.fullSummary(summary);
    if (this.setup.reportFile && this.report?.format === 'xlsx')
      await writeImportReport(
        this.setup.reportFile,
        journalReportLines(this.journalFile),
        runSummaryRows(full),
      );
    if (this.temporary) {
      if (summaryCopy) await writeRunSummary(path.join(this.temporary, 'summary.json'), full, summaryCopy);
      await rm(this.temporary, { recursive: true, force: true });
      return full;
    }
    await writeRunSummary(this.registry.summaryFile(this.meta.runId), full);
    await this.registry.save({ ...this.meta, state: summary.state });
    // The run is over and recorded; a copy that cannot be written is said after.
    if (summaryCopy) await copySummary(this.registry.summaryFile(this.meta.runId), summaryCopy);
    return full;
  }

  /** A run that never started (its lock was refused): a new run leaves no folder behind. */
  async discard(summary: RunEnd, summaryCopy?: string): Promise<void> {
    await this.dropSpool();
    try {
      this.journal?.close();
      this.report?.close();
    } catch {
      // going anyway
    }
    if (summaryCopy) await writeRunSummary(summaryCopy, this.fullSummary(summary));
    if (this.temporary) await rm(this.temporary, { recursive: true, force: true });
    else if (this.meta.resumes === 0) await rm(this.dir, { recursive: true, force: true });
  }

  /** A run that failed outright: the journal stays consistent and the run shows as crashed or interrupted. */
  async abandon(summary: RunEnd, summaryCopy?: string): Promise<void> {
    await this.dropSpool();
    // A journal that cannot take its end line (a full disk) keeps its whole lines: the run is then
    // resumed as a killed one is, and run.json says `running` (listed as crashed: its process is gone).
    let ended = true;
    try {
      // A journal never opened (the run failed before its start) is left as it was.
      if (this.journal) {
        this.journal.append({ t: 'end', rows: this.lines });
        this.journal.close();
      }
    } catch {
      ended = false;
      try {
        this.journal?.close();
      } catch {}
    }
    try {
      this.toReport(Number.POSITIVE_INFINITY);
      this.report?.close();
    } catch {
      // nothing more can be kept
    }
    // A new run that failed before its start wrote no report: one left by an earlier run under the same
    // name goes, so that nobody reads it as this run's (the summary says why there is none).
    if (!this.journal && this.meta.resumes === 0 && this.setup.reportFile)
      await rm(this.setup.reportFile, { force: true }).catch(() => {});
    if (this.temporary) {
      if (summaryCopy) await writeRunSummary(summaryCopy, this.fullSummary(summary));
      await rm(this.temporary, { recursive: true, force: true });
      return;
    }
    // The journal is consistent (a run that failed before its start has the start line alone, as one
    // killed then): its summary says what happened, and the run can be resumed.
    await writeRunSummary(this.registry.summaryFile(this.meta.runId), this.fullSummary(summary), summaryCopy);
    if (ended) await this.registry.save({ ...this.meta, state: summary.state });
  }

  private async dropSpool(): Promise<void> {
    if (this.decided.spool) await rm(this.decided.spool.dir, { recursive: true, force: true });
  }

  private fullSummary(summary: RunEnd): RunSummary {
    return {
      runId: this.meta.runId,
      command: 'import',
      tenant: this.meta.tenant,
      ...summary,
      source: redactText(summary.source),
      message: redactText(summary.message),
    };
  }
}

/**
 * Whether a resume keeps a record of the journal: not the rows to try again (not attempted, or failed
 * because the service did), nor a full sync's deletions not tried, nor the lines of an attempt's end.
 */
function kept(record: JournalRecord): boolean {
  if (record.t === 'na' || (record.t === 'row' && record.retry)) return false;
  if (record.t === 'extra' && record.line.outcome === 'not-attempted') return false;
  return record.t !== 'start' && record.t !== 'end' && record.t !== 'src' && record.t !== 'carried';
}
