// The row loop of an import: check each row (map + validate, exactly as `validate`), gather valid
// drafts into batches, run each batch through the executor, and record one line per source row.
// Memory is bounded by the batch: rows are pulled from the reader only when the previous batch is done.
// The loop stops taking batches when asked (a signal), when --max-errors is reached, or when the
// service is clearly gone; every row not tried is then recorded as `not-attempted`.
import { CatalogIoError } from '../../errors.js';
import type { Draft } from '../../mappers/types.js';
import type { Cell, SourceRow } from '../../readers/types.js';
import type { KnownStates } from '../../runs/known-states.js';
import { fullSentence } from '../../schema/messages.js';
import { shownFields } from '../../writers/bounds.js';
import type { RejectsWriter } from '../../writers/rejects.js';
import { RowChecker, whereOf } from '../check.js';
import { AssetRegistrar } from './assets.js';
import type { CreatedCategories } from './category-paths.js';
import { registerDraftAssets } from './draft-assets.js';
import { type DraftResult, ImportExecutor } from './executor.js';
import type { PlannedRecords } from './planned.js';
import type { RunRecorder } from './recorder.js';
import {
  EMPTY_LINE,
  failedResult,
  leftOutAssets,
  type RowOutcome,
  type RowWork,
  reportLine,
} from './report-line.js';
import {
  checkAdvice,
  LOCK_LOST_NOT_ATTEMPTED,
  notAttemptedMessage,
  notFinishedMessage,
} from './stop-messages.js';
import {
  DEFAULT_BATCH_SIZE,
  MODE_COMMAND,
  ROW_OUTCOMES,
  type RunningImport,
  type StopReason,
} from './types.js';

const DEFAULT_MAX_FAILED_BATCHES = 5;
/** Progress is reported after every batch, and between batches at most this often. */
const PROGRESS_EVERY_MS = 100;

export interface LoopResult {
  rows: number;
  /** Rows written with a warning (an image or file left out). */
  assetWarnings: number;
  outcomes: Record<RowOutcome, number>;
  stopReason?: StopReason;
  /** `stopReason` `source`: the reader's error, the rows before it all done. */
  sourceError?: CatalogIoError;
}

export class ImportRun {
  readonly checker: RowChecker;
  private readonly executor: ImportExecutor;
  registrar: AssetRegistrar | undefined;
  /** The registrar, made on first use (the DAM client with it). */
  private readonly assetRegistrar: () => AssetRegistrar;
  readonly outcomes = Object.fromEntries(ROW_OUTCOMES.map((o) => [o, 0])) as Record<RowOutcome, number>;
  private rows = 0;
  private errors = 0;
  private warned = 0;
  /** Ordinal (1-based, in reading order) of the last row read: a resume skips rows by it. */
  private ordinal = 0;
  private failedBatches = 0;
  private progressAt = 0;
  private stopReason: StopReason | undefined;
  /** Rows whose drafts are waiting for a later batch (categories waiting for a parent). */
  private readonly waiting = new Map<Draft, RowWork>();
  /** Categories created (or, in a plan, that would be) for paths of `categoryPath` columns. */
  get categoriesCreated(): CreatedCategories {
    return this.executor.paths?.created ?? { count: 0, paths: [] };
  }
  /** Image reference -> the first rows that use it (only for --wait-for-images). */
  readonly imageRows = new Map<string, string[]>();

  constructor(
    private readonly options: RunningImport,
    /**
     * The source is CSV: its export's formula guard comes off text cells (unless `raw`), and a quote in a
     * ref may be a stray one (see CheckOptions).
     */
    csv: boolean,
    private readonly recorder: RunRecorder,
    private readonly rejects: RejectsWriter | undefined,
    private readonly position: () => { bytesRead: number; totalBytes?: number; rowsMade?: number },
    /** What earlier runs left on the tenant: unchanged rows skip the lookup. */
    private readonly known?: KnownStates,
    /** A plan: what it would have written so far. */
    planned?: PlannedRecords,
  ) {
    this.checker = new RowChecker({
      model: options.model,
      profile: options.profile,
      ...(options.strict !== undefined && { strict: options.strict }),
      defaultCommand: MODE_COMMAND[options.mode ?? 'upsert'],
      unguardFormulas: csv && options.raw !== true,
      strayQuotes: csv,
    });
    const registrar = (): AssetRegistrar => {
      this.registrar ??= new AssetRegistrar(options.dam(), {
        onDuplicate: options.onDuplicateAsset ?? 'reuse',
        ...(options.assetCacheFile !== undefined && { cacheFile: options.assetCacheFile }),
        ...(options.refreshAssets !== undefined && { refresh: options.refreshAssets }),
        ...(options.failedAssetTtlMs !== undefined && { failedTtlMs: options.failedAssetTtlMs }),
        ...(options.plan !== undefined && { plan: options.plan }),
        ...(planned && { planned }),
        ...(!options.plan && { log: recorder.assetLog }),
        ...(options.waitForImages && { keepNewImages: true }),
      });
      return this.registrar;
    };
    this.assetRegistrar = registrar;
    this.executor = new ImportExecutor({
      catalog: options.catalog,
      model: options.model,
      // The DAM client is created only if some row names a URL.
      get assets() {
        return registrar();
      },
      settings: {
        plan: options.plan ?? false,
        concurrency: options.concurrency ?? 4,
        deleteVariants: options.deleteVariants ?? false,
        onAssetError: options.onAssetError ?? 'warn',
        ...(options.exactText && { exactText: true }),
      },
      writeLog: recorder,
      ...(planned && { planned }),
      ...(known && { categoryMatches: known.categoryMatches }),
    });
    for (const [o, n] of Object.entries(recorder.carried.outcomes))
      this.outcomes[o as RowOutcome] = (this.outcomes[o as RowOutcome] ?? 0) + n;
    this.rows = recorder.carried.rows;
    this.errors = recorder.carried.errors;
    this.warned = recorder.carried.warned;
  }

  async execute(rows: AsyncIterable<SourceRow>): Promise<LoopResult> {
    const batchSize = this.options.batchSize ?? DEFAULT_BATCH_SIZE;
    const finished = this.recorder.carried.finished;
    let batch: RowWork[] = [];
    let drafts = 0;
    let keys = new Set<string>();
    // The requests before any row (schemas, state checks): the ETA counts the rows' requests from here.
    this.progress(true);
    /** Writes the pending batch; says whether the run must now stop. */
    const flush = async (): Promise<boolean> => {
      if (this.stopNow()) return true;
      await this.runBatch(batch);
      batch = [];
      drafts = 0;
      keys = new Set();
      return this.stopNow();
    };

    const iterator = rows[Symbol.asyncIterator]();
    let stopped = false;
    // A source that breaks mid-way (a quote never closed, a truncated JSON) ends the reading: the rows
    // read before it are valid rows and are done as usual, then the run stops and says why.
    let sourceError: CatalogIoError | undefined;
    const read = async (): Promise<IteratorResult<SourceRow>> => {
      try {
        return await iterator.next();
      } catch (err) {
        if (!(err instanceof CatalogIoError) || err.code.startsWith('API_')) throw err;
        sourceError = err;
        return { done: true, value: undefined };
      }
    };
    for (let next = await read(); !next.done; next = await read()) {
      const row = next.value;
      this.ordinal += 1;
      // Checked even when a resume skips it: the checker's view of the file (duplicate refs) stays whole.
      const checked = this.checker.check(row);
      if (finished.has(this.ordinal)) continue;
      const work: RowWork = { row, checked, n: this.ordinal };
      if (checked.errors.length > 0 || checked.skipped || checked.mapped.drafts.length === 0) {
        if (batch.length === 0) {
          await this.finishRow(work, []);
          stopped = this.stopNow();
        } else {
          // Behind a pending batch it waits its turn, so the report stays in source order.
          batch.push(work);
          if (batch.length >= batchSize * 10) stopped = await flush();
        }
        if (stopped) break;
        continue;
      }
      // A ref twice in one batch would be looked up before its first write: start a new batch.
      const rowKeys = checked.mapped.drafts.map((d) => `${d.entity}\u0000${d.ref}`);
      // Drafts the known state vouches for need no lookup: a batch is 100 drafts that do, and the
      // unchanged rows around them ride along (up to 50 batches' worth of rows held at once). A row
      // whose ref the pending batch writes is judged only once that batch ran (it may have changed or
      // deleted the record since the state was noted).
      const toLookUp = () => (this.known ? this.known.toLookUp(checked.mapped.drafts) : rowKeys.length);
      if (
        rowKeys.some((k) => keys.has(k)) ||
        drafts + toLookUp() > batchSize ||
        batch.length >= batchSize * 50
      ) {
        stopped = await flush();
        if (stopped) {
          batch.push(work);
          break;
        }
      }
      batch.push(work);
      drafts += toLookUp();
      for (const k of rowKeys) keys.add(k);
    }
    if (!stopped) stopped = await flush();
    if (!stopped) {
      const late = await this.executor.finish();
      for (const r of late) this.known?.record(r.draft, r.outcome, r.id);
      await this.settle(late);
    }
    if (stopped) await this.notAttempted(batch, iterator, finished);
    else if (sourceError) this.stopReason = 'source';
    this.progress(true);
    this.recorder.flush();
    return {
      rows: this.rows,
      assetWarnings: this.warned,
      outcomes: this.outcomes,
      ...(this.stopReason && { stopReason: this.stopReason }),
      ...(this.stopReason === 'source' && sourceError && { sourceError }),
    };
  }

  /** Why the run must stop before its next batch, if it must (remembered once decided). */
  private stopNow(): boolean {
    if (this.stopReason) return true;
    const signal = this.options.stop?.signal;
    if (signal) this.stopReason = signal;
    else if (this.options.stop?.lockLost) this.stopReason = 'lock-lost';
    else if (this.options.maxErrors !== undefined && this.errors >= this.options.maxErrors)
      this.stopReason = 'max-errors';
    else if (this.failedBatches >= (this.options.maxFailedBatches ?? DEFAULT_MAX_FAILED_BATCHES))
      this.stopReason = 'service';
    return this.stopReason !== undefined;
  }

  private async runBatch(batch: RowWork[]): Promise<void> {
    if (batch.length === 0) return;
    const owner = new Map<Draft, RowWork>();
    const idle: RowWork[] = [];
    for (const work of batch) {
      if (!hasWork(work)) idle.push(work);
      else for (const d of work.checked.mapped.drafts) owner.set(d, work);
    }
    for (const [d, work] of owner) this.waiting.set(d, work);
    if (owner.size > 0) {
      this.recorder.batch += 1;
      await this.recorder.checkpoint(`batch:${this.recorder.batch}`);
    }
    const results = await this.runDrafts([...owner.keys()]);
    this.noteFaults(results);
    await this.settle(results, idle);
    // A batch cut short (the run stopped, the service was gone) keeps its in-flight marker: a resume
    // then knows which of its writes may have been made.
    const cut = results.some((r) => cutShort(r) || r.fault === 'uncertain');
    if (owner.size > 0 && !cut) {
      this.recorder.batchDone();
      await this.recorder.checkpoint(`done:${this.recorder.batch}`);
    }
    this.progress(true);
  }

  /** The executor for the drafts the known state cannot vouch for; each result is recorded in it. */
  private async runDrafts(drafts: Draft[]): Promise<DraftResult[]> {
    const known = this.known;
    if (!known) return this.executor.run(drafts);
    // Rows naming image URLs are vouched for only once the asset cache is checked against the DAM.
    if (drafts.some(namesImageUrl)) known.useAssets(await checkedAssets(this.assetRegistrar()));
    const { unchanged, rest } = known.filterUnchanged(drafts);
    // Their images as a looked-up run reports them: from the checked cache, without a request.
    const vouchedAssets = await registerDraftAssets(
      this.assetRegistrar,
      this.options.model.baseLanguage,
      unchanged.filter((u) => namesImageUrl(u.draft)).map((u) => u.draft),
    );
    const results: DraftResult[] = unchanged.map(({ draft, id }) => {
      // Links from later rows to this record need no lookup either.
      this.executor.lookup.rememberId(draft.entity, draft.ref, id);
      const assets = vouchedAssets.get(draft);
      return { draft, outcome: 'unchanged', id, ...(assets && { assets }) };
    });
    if (rest.length > 0) {
      const written = await this.executor.run(rest);
      for (const r of written) known.record(r.draft, r.outcome, r.id);
      results.push(...written);
    }
    return results;
  }

  /** Counts batches in a row where the service failed every draft; a refused key stops at once. */
  private noteFaults(results: DraftResult[]): void {
    if (results.some((r) => r.fault === 'auth')) {
      this.stopReason = 'auth';
      return;
    }
    if (results.some((r) => r.fault === 'unreachable')) {
      this.stopReason ??= 'outage';
      return;
    }
    // A write not sent because the lock was lost: another run may hold it, the run stops.
    if (results.some((r) => r.fault === 'lock-lost')) {
      this.stopReason ??= 'lock-lost';
      return;
    }
    if (results.some((r) => r.fault === 'stopped')) {
      this.stopReason ??= this.options.stop?.signal ?? 'SIGTERM';
      return;
    }
    const allFailed = results.length > 0 && results.every((r) => r.outcome === 'failed');
    if (allFailed && results.some((r) => r.fault === 'service' || r.fault === 'uncertain'))
      this.failedBatches += 1;
    else if (results.length > 0) this.failedBatches = 0;
  }

  /** Writes the rows all of whose drafts have a result, and the batch's rows without work, in source order. */
  private async settle(results: DraftResult[], idle: RowWork[] = []): Promise<void> {
    const byRow = new Map<RowWork, DraftResult[]>();
    for (const r of results) {
      const work = this.waiting.get(r.draft);
      if (!work) continue;
      this.waiting.delete(r.draft);
      const list = byRow.get(work) ?? [];
      list.push(r);
      byRow.set(work, list);
    }
    const complete = [...byRow.entries(), ...idle.map((w): [RowWork, DraftResult[]] => [w, []])]
      .filter(([work]) => work.checked.mapped.drafts.every((d) => !this.waiting.has(d)))
      .sort((a, b) => (a[0].n ?? 0) - (b[0].n ?? 0));
    for (const [work, list] of complete) await this.finishRow(work, list);
  }

  private async finishRow(work: RowWork, results: DraftResult[]): Promise<void> {
    const { row } = work;
    // Not failed: the run stopped (or the service was gone) before the service answered for it.
    if (results.some((r) => cutShort(r))) {
      // Nothing of the row sent (its write withheld, the lock lost): not attempted; else, a write was
      // under way: --resume checks what it did.
      const unsent = results.every((r) => r.fault === 'lock-lost' || !WROTE.has(r.outcome));
      const lockOnly = results.every((r) => !cutShort(r) || r.fault === 'lock-lost');
      this.recordNotAttempted(
        work,
        work.n ?? 0,
        unsent && lockOnly ? LOCK_LOST_NOT_ATTEMPTED : notFinishedMessage(this.stopReason),
      );
      this.progress();
      return;
    }
    // Not failed either: a write whose answer was lost may have been made, and the look-up that
    // would tell failed. Not finished, as a write in flight at a stop: --resume checks it.
    const uncertain = results.find((r) => r.fault === 'uncertain');
    if (uncertain) {
      const advice = checkAdvice(this.options.workbookSheet === true);
      this.recordNotAttempted(
        work,
        work.n ?? 0,
        uncertain.message ? `${uncertain.message}; ${advice}` : notFinishedMessage(undefined),
      );
      this.progress();
      return;
    }
    const line = shownFields(reportLine(work, results, this.options.profile.entity));
    this.rows += 1;
    this.outcomes[line.outcome as RowOutcome] += 1;
    if (line.outcome === 'failed') {
      this.errors += 1;
      // Counted by kind and column (the sentence without the row's value), like validation errors.
      const failed = failedResult(results);
      const kind = failed?.problem
        ? fullSentence(undefined, failed.problem.column, failed.problem.brief)
        : (failed?.kind ?? failed?.message ?? line.message);
      this.checker.countKind(kind, whereOf(row));
    } else if (line.outcome === 'invalid') this.errors += 1;
    if (leftOutAssets(line)) this.warned += 1;
    if (this.options.waitForImages) this.noteImages(row, results);
    this.recorder.row(
      work.n ?? 0,
      line,
      refsOf(work),
      results.some((r) => r.fault !== undefined),
    );
    if ((line.outcome === 'invalid' || line.outcome === 'failed') && this.rejects) {
      await this.rejects.write(row.cells as Record<string, Cell>, line.message, row.location);
    }
    this.progress();
  }

  /** Tells the caller how far the run is: at once when `now`, else if the last report is old enough. */
  private progress(now = false): void {
    const at = Date.now();
    if (!now && at - this.progressAt < PROGRESS_EVERY_MS) return;
    this.progressAt = at;
    const position = this.position();
    const requests = this.options.counters?.();
    const rate = this.options.requestRate;
    const requestRate = typeof rate === 'function' ? rate() : rate;
    this.recorder.progress({
      rows: this.rows,
      rowsRead: this.ordinal,
      ...position,
      ...(requests && { requests: requests.requests, rateLimited: requests.rateLimited }),
      ...(requestRate !== undefined && { requestRate }),
    });
    this.options.onProgress?.({
      rows: this.rows,
      rowsRead: this.ordinal,
      outcomes: this.outcomes,
      ...position,
      ...(requests && { requests }),
    });
  }

  /** The run stopped: the pending batch, the rows waiting for a parent and every row not read are not attempted. */
  private async notAttempted(
    pending: RowWork[],
    rest: AsyncIterator<SourceRow>,
    finished: { has(n: number): boolean },
  ): Promise<void> {
    const message = notAttemptedMessage(this.stopReason);
    const record = (work: RowWork, n: number) => this.recordNotAttempted(work, n, message);
    const waiting = new Set(this.waiting.values());
    this.waiting.clear();
    const leftOver = [...waiting, ...pending].sort((a, b) => (a.n ?? 0) - (b.n ?? 0));
    for (const work of leftOver) {
      // A row that needs no request (invalid, skipped) has its own outcome; the others were not tried.
      if (hasWork(work)) record(work, work.n ?? 0);
      else await this.finishRow(work, []);
    }
    for (let next = await rest.next(); !next.done; next = await rest.next()) {
      this.ordinal += 1;
      const checked = this.checker.check(next.value);
      if (finished.has(this.ordinal)) continue;
      record({ row: next.value, checked }, this.ordinal);
      this.progress();
    }
  }

  /** A row the run did not finish: `na` in the journal, so a resume tries it again. */
  private recordNotAttempted(work: RowWork, n: number, message: string): void {
    const { row, checked } = work;
    const main = checked.mapped.drafts[checked.mapped.drafts.length - 1];
    this.rows += 1;
    this.outcomes['not-attempted'] += 1;
    this.recorder.notAttempted(n, {
      ...EMPTY_LINE,
      location: row.location.text,
      entity: main?.entity ?? this.options.profile.entity,
      ref: main?.ref ?? '',
      outcome: 'not-attempted',
      message,
    });
  }

  noteImages(row: SourceRow, results: DraftResult[]): void {
    for (const r of results) {
      for (const a of r.assets ?? []) {
        if (a.kind !== 'image' || a.status !== 'registered') continue;
        const rows = this.imageRows.get(a.reference) ?? [];
        if (rows.length < 5) rows.push(row.location.text);
        this.imageRows.set(a.reference, rows);
      }
    }
  }
}

/**
 * A draft the run left unfinished: stopped before the service answered, the service was gone, or its
 * write not sent because the run lost its lock.
 */
function cutShort(r: DraftResult): boolean {
  return r.fault === 'stopped' || r.fault === 'unreachable' || r.fault === 'lock-lost';
}

/** Outcomes of a write the service made. */
const WROTE: ReadonlySet<string> = new Set(['created', 'updated', 'deleted']);

/** A row that reaches the executor: valid, not skipped, with drafts. */
function hasWork(work: RowWork): boolean {
  const { checked } = work;
  return checked.errors.length === 0 && !checked.skipped && checked.mapped.drafts.length > 0;
}

/**
 * `entity\0ref` of every draft of the row: the refs a full sync counts as seen. None for a row of one
 * draft: its report line names that ref already, and the full sync reads it there.
 */
function refsOf(work: RowWork): string[] {
  const drafts = work.checked.mapped.drafts;
  if (drafts.length < 2) return [];
  return drafts.filter((d) => d.ref).map((d) => `${d.entity}\u0000${d.ref}`);
}

/** An image URL to register (not one whose name the catalog refuses: it is left out unasked). */
function namesImageUrl(draft: Draft): boolean {
  return draft.assets.some((a) => a.url !== undefined && a.kind === 'image' && a.unusable === undefined);
}

async function checkedAssets(registrar: AssetRegistrar): Promise<AssetRegistrar> {
  await registrar.checkCache();
  return registrar;
}
