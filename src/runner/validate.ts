// The validate pipeline: reader -> mapper -> validator -> report/rejects writers. No writes and no requests
// (the caller brings the TenantModel, live or from cached schemas). One report line per source row.
import type { Profile } from '../mappers/profile-types.js';
import { openSourceThreaded, type ReaderOptions, type ReadThread } from '../readers/index.js';
import type { TenantModel } from '../schema/model.js';
import { openRejectsFor, type RejectsWriter } from '../writers/rejects.js';
import { openReport, type ReportWriter } from '../writers/report.js';
import type { SummaryRows } from '../writers/table.js';
import { RowChecker } from './check.js';
import type { ReferenceCheck } from './references.js';
import { partsPlan, startPartThreads, validateParts } from './validate-parts/parts.js';
import {
  checkRows,
  emptySummary,
  type SourceProgress,
  type ValidateRowsOptions,
  type ValidateSummary,
} from './validate-rows.js';

export type { SourceProgress, ValidateRowsOptions, ValidateSummary } from './validate-rows.js';

const TOP = 10;

/** Validates every row of `rows` on this thread. */
export async function validateRows(options: ValidateRowsOptions): Promise<ValidateSummary> {
  // The same row checker as the import, so validate and import judge a row the same way.
  const checker = new RowChecker({
    collectLinks: options.references !== undefined,
    model: options.model,
    profile: options.profile,
    strict: options.strict ?? false,
    ...(options.refLimit !== undefined && { refLimit: options.refLimit }),
    ...(options.unguardFormulas !== undefined && { unguardFormulas: options.unguardFormulas }),
    ...(options.strayQuotes !== undefined && { strayQuotes: options.strayQuotes }),
  });
  const summary: ValidateSummary = emptySummary();
  if (options.references) options.references.locate = (entity, ref) => checker.firstLocation(entity, ref);
  try {
    await checkRows(checker, summary, options);
  } finally {
    checker.close();
  }
  summary.warnings = checker.warnings();
  summary.topErrors = checker.topErrors(TOP);
  return summary;
}

export interface ValidateFileOptions {
  source: string;
  readerOptions?: ReaderOptions;
  model: TenantModel;
  profile: Profile;
  strict?: boolean;
  reportFile?: string;
  rejectsFile?: string;
  refLimit?: number;
  /** Keep CSV cells exactly as written: do not take off the export's formula guard. */
  raw?: boolean;
  /** Read and parse a local source on a second thread (default `off`: see ReadThread). */
  readThread?: ReadThread;
  /** Check each row's references against the file and the tenant (`--check-refs`). */
  references?: ReferenceCheck;
  /** `host:port` the DAM fetches from although on loopback (a sandbox's own asset host). */
  damHosts?: readonly string[];
  /** As the import's `--on-asset-error`: an image or file it cannot take is a warning, or fails the row. */
  onAssetError?: 'warn' | 'fail';
  /** Stops the check: it throws the signal's reason at the next row (the files are closed, not removed). */
  signal?: AbortSignal;
  /** Called after each row (progress), with how far the reader is in the source. */
  onRow?: (summary: Readonly<ValidateSummary>, read: SourceProgress) => void;
}

export interface ValidateFileResult extends ValidateSummary {
  /** A large CSV file checked in parts on several threads (see validate-parts/): how many parts. */
  parts?: number;
  /** Of those, how many the part threads checked. */
  threadParts?: number;
  /** What the reader detected (format, encoding, ...), for people. */
  notes: string[];
  source: string;
}

/** Opens the source and the output files, validates every row, and closes everything (also on failure). */
export async function validateFile(options: ValidateFileOptions): Promise<ValidateFileResult> {
  const started = Date.now();
  // Threads for checking in parts start loading now, while the source is opened.
  const pool = startPartThreads(options.source, options.references !== undefined);
  let opened: Awaited<ReturnType<typeof openSourceThreaded>>;
  try {
    opened = await openSourceThreaded(options.source, options.readerOptions, options.readThread);
  } catch (err) {
    await pool?.close();
    throw err;
  }
  let report: ReportWriter | undefined;
  let rejects: RejectsWriter | undefined;
  let summary: ValidateSummary;
  let parts: number | undefined;
  let threadParts: number | undefined;
  try {
    if (options.reportFile) report = await openReport(options.reportFile);
    if (options.rejectsFile)
      rejects = await openRejectsFor(options.rejectsFile, opened, { guard: options.raw !== true });
    const { onRow, raw, readThread: _, ...rest } = options;
    const rowsOptions: ValidateRowsOptions = {
      ...rest,
      rows: opened.rows,
      source: opened,
      unguardFormulas: opened.format === 'csv' && raw !== true,
      strayQuotes: opened.format === 'csv',
      ...(onRow && { onRow: (s: Readonly<ValidateSummary>) => onRow(s, opened) }),
      ...(report && { report }),
      ...(rejects && { rejects }),
    };
    // A large local CSV file is checked in parts on worker threads (validate-parts/), the same rows alike.
    const plan =
      pool && (await partsPlan(options.source, opened, rowsOptions, options.readerOptions ?? {}, pool));
    if (pool && !plan) await pool.close();
    summary = plan ? await validateParts(plan, rowsOptions, opened, pool!) : await validateRows(rowsOptions);
    parts = plan?.checked;
    if (plan) threadParts = pool?.checked;
  } catch (err) {
    await Promise.allSettled([report?.close(), rejects?.close(), opened.close(), pool?.close()]);
    throw err;
  }
  // On success a file that cannot be finished is an error the caller must see.
  const summaryRows: SummaryRows = [
    ['source', opened.source],
    ['rows', summary.rows],
    ...Object.entries(summary.outcomes).map(([outcome, n]) => [outcome, n] as const),
    ['with warnings', summary.warned],
    ['duration (s)', Math.round((Date.now() - started) / 100) / 10],
  ];
  await Promise.all([report?.close(summaryRows), rejects?.close(), opened.close()]);
  return {
    ...summary,
    notes: opened.notes,
    source: opened.source,
    ...(parts !== undefined && { parts }),
    ...(threadParts !== undefined && { threadParts }),
  };
}
