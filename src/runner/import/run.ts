// The import pipeline: reader -> check (map + validate, exactly as `validate`) -> batches of valid
// drafts -> executor (lookups, DAM, writes) -> one report line per source row. Memory is bounded by
// the batch: rows are pulled from the reader only when the previous batch is done.
import type { CatalogClient } from '../../api/catalog.js';
import type { CountersSnapshot } from '../../api/counters.js';
import type { DamClient } from '../../api/dam.js';
import type { Profile } from '../../mappers/profile-types.js';
import type { Command, Draft } from '../../mappers/types.js';
import { openSource, type ReaderOptions } from '../../readers/index.js';
import type { Cell, SourceRow } from '../../readers/types.js';
import type { TenantModel } from '../../schema/model.js';
import { type ImportReportWriter, openImportReport } from '../../writers/import-report.js';
import { openRejectsFor, type RejectsWriter } from '../../writers/rejects.js';
import { RowChecker } from '../check.js';
import { AssetRegistrar, type AssetStatus, type DuplicatePolicy } from './assets.js';
import { type DraftResult, ImportExecutor } from './executor.js';
import { EMPTY_LINE, type RowOutcome, type RowWork, reportLine } from './report-line.js';

export type { RowOutcome } from './report-line.js';

export type ImportMode = 'upsert' | 'create' | 'update';

export const ROW_OUTCOMES: readonly RowOutcome[] = [
  'created',
  'updated',
  'unchanged',
  'deleted',
  'skipped',
  'invalid',
  'failed',
  'would-create',
  'would-update',
  'would-delete',
];

export interface ImportOptions {
  source: string;
  readerOptions?: ReaderOptions;
  profile: Profile;
  model: TenantModel;
  catalog: CatalogClient;
  /** Needed only when the feed names image or file URLs. */
  dam: () => DamClient;
  mode?: ImportMode;
  /** Look up and diff only; write nothing. */
  plan?: boolean;
  /** Drafts per batch (one lookup request per 100 refs). Default 100. */
  batchSize?: number;
  /** Writes in flight at once. Default 4. */
  concurrency?: number;
  /** Stop on purpose once this many rows failed or were invalid. */
  maxErrors?: number;
  strict?: boolean;
  deleteVariants?: boolean;
  onDuplicateAsset?: DuplicatePolicy;
  refreshAssets?: boolean;
  /** URL -> DAM reference cache of earlier runs. */
  assetCacheFile?: string;
  /** Poll the images registered by this run until processed, and report the ones that failed. */
  waitForImages?: boolean | { timeoutMs?: number; intervalMs?: number };
  reportFile?: string;
  rejectsFile?: string;
  /** Keep CSV cells exactly as written: do not take off the export's formula guard. */
  raw?: boolean;
  /** The run's request counters (from the connection). */
  counters?: () => CountersSnapshot;
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  rows: number;
  outcomes: Record<RowOutcome, number>;
  bytesRead: number;
  totalBytes?: number;
  requests?: CountersSnapshot;
}

export interface ImportSummary {
  source: string;
  rows: number;
  outcomes: Record<RowOutcome, number>;
  topErrors: Array<{ message: string; count: number }>;
  warnings: string[];
  notes: string[];
  /** Distinct URLs by registration outcome. */
  assets: Record<AssetStatus, number>;
  /** Images registered by this run whose processing failed (`--wait-for-images`). */
  failedImages: string[];
  requests: { total: number; byMethod: Record<string, number>; retries: number; rateLimited: number };
  /** `--max-errors` was reached and the run stopped early. */
  stopped: boolean;
  plan: boolean;
  durationMs: number;
}

const DEFAULT_BATCH = 100;
const MODE_COMMAND: Record<ImportMode, Command> = { upsert: 'MERGE', create: 'NEW', update: 'UPDATE' };

export async function importFile(options: ImportOptions): Promise<ImportSummary> {
  const started = Date.now();
  const opened = await openSource(options.source, options.readerOptions);
  let report: ImportReportWriter | undefined;
  let rejects: RejectsWriter | undefined;
  try {
    if (options.reportFile) report = await openImportReport(options.reportFile);
    if (options.rejectsFile) rejects = await openRejectsFor(options.rejectsFile, opened);
    const run = new ImportRun(
      options,
      opened.format === 'csv' && options.raw !== true,
      report,
      rejects,
      () => ({
        bytesRead: opened.bytesRead(),
        ...(opened.totalBytes !== undefined && { totalBytes: opened.totalBytes }),
      }),
    );
    const summary = await run.execute(opened.rows);
    await Promise.all([report?.close(), rejects?.close()]);
    return { ...summary, source: opened.source, notes: opened.notes, durationMs: Date.now() - started };
  } catch (err) {
    await Promise.allSettled([report?.close(), rejects?.close()]);
    throw err;
  } finally {
    await opened.close();
  }
}

class ImportRun {
  private readonly checker: RowChecker;
  private readonly executor: ImportExecutor;
  private registrar: AssetRegistrar | undefined;
  private readonly outcomes = Object.fromEntries(ROW_OUTCOMES.map((o) => [o, 0])) as Record<
    RowOutcome,
    number
  >;
  private rows = 0;
  private errors = 0;
  /** Rows whose drafts are waiting for a later batch (categories waiting for a parent). */
  private readonly waiting = new Map<Draft, RowWork>();
  /** Image reference -> the first rows that use it (only for --wait-for-images). */
  private readonly imageRows = new Map<string, string[]>();
  /** Run-level warnings of the importer itself (the checker keeps its own). */
  private readonly runWarnings: string[] = [];

  constructor(
    private readonly options: ImportOptions,
    unguardFormulas: boolean,
    private readonly report: ImportReportWriter | undefined,
    private readonly rejects: RejectsWriter | undefined,
    private readonly position: () => { bytesRead: number; totalBytes?: number },
  ) {
    this.checker = new RowChecker({
      model: options.model,
      profile: options.profile,
      ...(options.strict !== undefined && { strict: options.strict }),
      defaultCommand: MODE_COMMAND[options.mode ?? 'upsert'],
      unguardFormulas,
    });
    const registrar = () => {
      this.registrar ??= new AssetRegistrar(options.dam(), {
        onDuplicate: options.onDuplicateAsset ?? 'reuse',
        ...(options.assetCacheFile !== undefined && { cacheFile: options.assetCacheFile }),
        ...(options.refreshAssets !== undefined && { refresh: options.refreshAssets }),
        ...(options.plan !== undefined && { plan: options.plan }),
      });
      return this.registrar;
    };
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
      },
    });
  }

  async execute(
    rows: AsyncIterable<SourceRow>,
  ): Promise<Omit<ImportSummary, 'source' | 'notes' | 'durationMs'>> {
    const batchSize = this.options.batchSize ?? DEFAULT_BATCH;
    let batch: RowWork[] = [];
    let drafts = 0;
    let keys = new Set<string>();
    let stopped = false;
    /** Writes the pending batch; says whether --max-errors now stops the run. */
    const flush = async (): Promise<boolean> => {
      await this.runBatch(batch);
      batch = [];
      drafts = 0;
      keys = new Set();
      return this.stopNow();
    };

    for await (const row of rows) {
      const checked = this.checker.check(row);
      if (checked.errors.length > 0 || checked.skipped || checked.mapped.drafts.length === 0) {
        if (batch.length === 0) {
          await this.finishRow({ row, checked }, []);
          stopped = this.stopNow();
        } else {
          // Behind a pending batch it waits its turn, so the report stays in source order.
          batch.push({ row, checked });
          if (batch.length >= batchSize * 10) stopped = await flush();
        }
        if (stopped) break;
        continue;
      }
      // A ref twice in one batch would be looked up before its first write: start a new batch.
      const rowKeys = checked.mapped.drafts.map((d) => `${d.entity}\u0000${d.ref}`);
      if (rowKeys.some((k) => keys.has(k)) || drafts + rowKeys.length > batchSize) {
        stopped = await flush();
        if (stopped) break;
      }
      batch.push({ row, checked });
      drafts += rowKeys.length;
      for (const k of rowKeys) keys.add(k);
    }
    if (!stopped) {
      await this.runBatch(batch);
      await this.settle(await this.executor.finish());
    }
    this.registrar?.saveCache();
    const failedImages = stopped ? [] : await this.waitForImages();

    const requests = this.options.counters?.();
    return {
      rows: this.rows,
      outcomes: this.outcomes,
      topErrors: this.checker.topErrors(),
      warnings: [...this.checker.warnings(), ...this.runWarnings],
      assets: this.registrar?.counts ?? { registered: 0, reused: 0, cached: 0, planned: 0, failed: 0 },
      failedImages,
      requests: {
        total: requests?.requests ?? 0,
        byMethod: requests?.byMethod ?? {},
        retries: requests?.retries ?? 0,
        rateLimited: requests?.rateLimited ?? 0,
      },
      stopped,
      plan: this.options.plan ?? false,
    };
  }

  private stopNow(): boolean {
    return this.options.maxErrors !== undefined && this.errors >= this.options.maxErrors;
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
    const results = await this.executor.run([...owner.keys()]);
    await this.settle(results, idle);
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
      .sort((a, b) => a[0].row.index - b[0].row.index || a[0].row.location.line - b[0].row.location.line);
    for (const [work, list] of complete) await this.finishRow(work, list);
  }

  private async finishRow(work: RowWork, results: DraftResult[]): Promise<void> {
    const { row } = work;
    const line = reportLine(work, results, this.options.profile.entity);
    this.rows += 1;
    this.outcomes[line.outcome as RowOutcome] += 1;
    if (line.outcome === 'failed') {
      this.errors += 1;
      this.checker.countKind(results.find((r) => r.outcome === 'failed')?.message ?? line.message);
    } else if (line.outcome === 'invalid') this.errors += 1;
    if (this.options.waitForImages) this.noteImages(row, results);
    await this.report?.write(line);
    if ((line.outcome === 'invalid' || line.outcome === 'failed') && this.rejects) {
      await this.rejects.write(row.cells as Record<string, Cell>, line.message);
    }
    this.options.onProgress?.({
      rows: this.rows,
      outcomes: this.outcomes,
      ...this.position(),
      ...(this.options.counters && { requests: this.options.counters() }),
    });
  }

  private noteImages(row: SourceRow, results: DraftResult[]): void {
    for (const r of results) {
      for (const a of r.assets ?? []) {
        if (a.kind !== 'image' || a.status !== 'registered') continue;
        const rows = this.imageRows.get(a.reference) ?? [];
        if (rows.length < 5) rows.push(row.location.text);
        this.imageRows.set(a.reference, rows);
      }
    }
  }

  /** --wait-for-images: poll this run's new images until processed; report those that ended in error. */
  private async waitForImages(): Promise<string[]> {
    const wait = this.options.waitForImages;
    if (!wait || !this.registrar || this.options.plan) return [];
    const settings = typeof wait === 'object' ? wait : {};
    const dam = this.options.dam();
    const failed: string[] = [];
    const stillProcessing: string[] = [];
    for (const reference of new Set(this.registrar.newImages)) {
      const record = await dam.waitForImage(reference, settings);
      if (record.status === 'Er') {
        failed.push(reference);
        const rows = this.imageRows.get(reference) ?? [];
        await this.report?.write({
          ...EMPTY_LINE,
          location: rows.join('; '),
          entity: 'images',
          ref: reference,
          outcome: 'failed',
          message: `the DAM could not process image '${reference}' (status Er); rows using it: ${rows.join(', ') || 'see the report'}`,
        });
      } else if (record.status !== 'Ok') {
        // Still processing when the wait ended: not a failure, but its outcome is unknown.
        stillProcessing.push(reference);
      }
    }
    if (stillProcessing.length > 0) {
      const shown = stillProcessing.slice(0, 10).join(', ');
      const more = stillProcessing.length > 10 ? ` and ${stillProcessing.length - 10} more` : '';
      this.runWarnings.push(
        `${stillProcessing.length} image(s) were still being processed when --wait-for-images gave up: ${shown}${more}; their outcome is unknown`,
      );
    }
    return failed;
  }
}

/** A row that reaches the executor: valid, not skipped, with drafts. */
function hasWork(work: RowWork): boolean {
  const { checked } = work;
  return checked.errors.length === 0 && !checked.skipped && checked.mapped.drafts.length > 0;
}
