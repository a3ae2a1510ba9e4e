// Where every finished row goes: the run's journal (the source of truth, on disk) and the report
// appended from it. A resumed run first copies the earlier attempt's finished rows into a fresh
// journal and report, and learns which rows it may skip and what was in flight when it stopped.
import { mkdtempSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { CatalogIoError } from '../../errors.js';
import {
  JournalWriter,
  journalReportLines,
  OrdinalSet,
  readJournal,
  type WriteIntent,
} from '../../runs/journal.js';
import { pauseAt } from '../../runs/pause.js';
import { type RunMeta, RunRegistry } from '../../runs/registry.js';
import { identityChange, type SourceIdentity } from '../../runs/source-identity.js';
import { writeRunSummary } from '../../runs/summary.js';
import {
  type ImportReportLine,
  openRunReport,
  type RunReportWriter,
  runSummaryRows,
  writeImportReport,
} from '../../writers/import-report.js';
import type { RunSummary } from '../summary-types.js';
import type { WriteLog } from './outcome.js';

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
  keepRuns?: number;
}

/** What a resumed run takes over from the attempts before it. */
export interface Carried {
  finished: OrdinalSet;
  /** Report lines of finished rows, by outcome. */
  outcomes: Record<string, number>;
  rows: number;
  /** Rows failed or invalid (they count towards --max-errors). */
  errors: number;
}

/** What the run says of itself at its end; the recorder adds the run id, command and tenant. */
export type RunEnd = Omit<RunSummary, 'runId' | 'tenant' | 'command'>;

export class RunRecorder implements WriteLog {
  private journal!: JournalWriter;
  private report: RunReportWriter | undefined;
  private readonly prior_ = new Map<string, WriteIntent>();
  readonly carried: Carried = { finished: new OrdinalSet(), outcomes: {}, rows: 0, errors: 0 };

  private constructor(
    readonly registry: RunRegistry,
    readonly meta: RunMeta,
    private readonly setup: RecorderSetup,
    private readonly temporary: string | undefined,
  ) {}

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
    let meta: RunMeta;
    if (setup.resume) {
      meta = await registry.resumable(
        setup.identity.key,
        typeof setup.resume === 'string' ? setup.resume : undefined,
      );
      const changed =
        identityChange(meta.identity, setup.identity) ??
        (meta.profileHash !== setup.profileHash
          ? 'the profile (or --entity) changed since the run started'
          : undefined) ??
        (meta.tenant !== setup.tenant ? 'it ran against another tenant' : undefined);
      if (changed) {
        throw new CatalogIoError(
          'CONFIG_INVALID',
          `Cannot resume run ${meta.runId}: ${changed}. Run the import again without --resume`,
        );
      }
      meta = {
        ...meta,
        state: 'running',
        pid: process.pid,
        host: hostname(),
        resumes: meta.resumes + 1,
        ...(setup.reportFile && { reportFile: setup.reportFile }),
      };
      // Saved by start(), once the lock is held: a resume refused for the lock changes nothing.
    } else {
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
      });
    }
    return new RunRecorder(registry, meta, setup, temporary);
  }

  /** Opens the report and the journal; a resume carries the finished rows of the attempts before. */
  async start(): Promise<void> {
    if (this.meta.resumes > 0) await this.registry.save(this.meta);
    if (this.setup.reportFile) this.report = openRunReport(this.setup.reportFile);
    if (this.meta.resumes > 0) await this.carryOver();
    this.journal = new JournalWriter(this.journalFile);
  }

  private async carryOver(): Promise<void> {
    const fresh = `${this.journalFile}.resume`;
    const writer = new JournalWriter(fresh);
    const inflight = new Map<number, WriteIntent[]>();
    try {
      for await (const record of readJournal(this.journalFile)) {
        // Rows not attempted, or failed because the service did, are tried again: they leave the journal.
        if (record.t === 'na' || (record.t === 'row' && record.retry)) continue;
        if (record.t === 'row') {
          this.carried.finished.add(record.n);
          this.carried.rows += 1;
          if (record.line.outcome === 'failed' || record.line.outcome === 'invalid') this.carried.errors += 1;
          this.carried.outcomes[record.line.outcome] = (this.carried.outcomes[record.line.outcome] ?? 0) + 1;
        } else if (record.t === 'inflight') {
          inflight.set(record.b, record.intents);
          continue;
        } else if (record.t === 'done') {
          inflight.delete(record.b);
          continue;
        }
        writer.append(record);
        this.report?.write(record.line);
        if (record.t === 'extra')
          this.carried.outcomes[record.line.outcome] = (this.carried.outcomes[record.line.outcome] ?? 0) + 1;
      }
    } finally {
      writer.close();
    }
    for (const intents of inflight.values())
      for (const intent of intents) this.prior_.set(`${intent.entity}\u0000${intent.ref}`, intent);
    await rename(fresh, this.journalFile);
  }

  row(n: number, line: ImportReportLine, refs: string[], retry: boolean): void {
    this.journal.append({
      t: 'row',
      n,
      line,
      ...(refs.length > 0 && { refs }),
      ...(retry && { retry: true as const }),
    });
    this.report?.write(line);
  }

  notAttempted(n: number, line: ImportReportLine): void {
    this.journal.append({ t: 'na', n, line });
    this.report?.write(line);
  }

  extra(line: ImportReportLine): void {
    this.journal.append({ t: 'extra', line });
    this.report?.write(line);
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
    this.journal.close();
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
    await writeRunSummary(this.registry.summaryFile(this.meta.runId), full, summaryCopy);
    await this.registry.save({ ...this.meta, state: summary.state });
    return full;
  }

  /** A run that never started (its lock was refused): a new run leaves no folder behind. */
  async discard(summary: RunEnd, summaryCopy?: string): Promise<void> {
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
    try {
      this.journal?.close();
      this.report?.close();
    } catch {
      // nothing more can be kept
    }
    if (this.temporary) {
      if (summaryCopy) await writeRunSummary(summaryCopy, this.fullSummary(summary));
      await rm(this.temporary, { recursive: true, force: true });
      return;
    }
    // The journal is consistent: the run can be resumed.
    await writeRunSummary(this.registry.summaryFile(this.meta.runId), this.fullSummary(summary), summaryCopy);
    await this.registry.save({ ...this.meta, state: summary.state });
  }

  private fullSummary(summary: RunEnd): RunSummary {
    return { runId: this.meta.runId, command: 'import', tenant: this.meta.tenant, ...summary };
  }
}
