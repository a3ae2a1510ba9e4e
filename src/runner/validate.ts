// The validate pipeline: reader -> mapper -> validator -> report/rejects writers. No writes and no requests
// (the caller brings the TenantModel, live or from cached schemas). One report line per source row.
import type { Profile } from '../mappers/profile-types.js';
import type { RowIssue } from '../mappers/types.js';
import { openSourceThreaded, type ReaderOptions, type ReadThread, RowPuller } from '../readers/index.js';
import type { SourceRow } from '../readers/types.js';
import { cellText, fullSentence } from '../schema/messages.js';
import type { TenantModel } from '../schema/model.js';
import { openRejectsFor, type RejectsWriter } from '../writers/rejects.js';
import { type Outcome, openReport, type ReportLine, type ReportWriter } from '../writers/report.js';
import type { SummaryRows } from '../writers/table.js';
import { RowChecker, type TopProblem } from './check.js';
import type { Reference, ReferenceCheck } from './references.js';

export interface ValidateSummary {
  rows: number;
  outcomes: Record<Outcome, number>;
  /** The ten most frequent problems, without row values, most frequent first. */
  topErrors: TopProblem[];
  /** File-level notes: unknown or ignored columns. */
  warnings: string[];
}

export interface ValidateRowsOptions {
  rows: AsyncIterable<SourceRow>;
  model: TenantModel;
  profile: Profile;
  strict?: boolean;
  report?: ReportWriter;
  rejects?: RejectsWriter;
  /** Refs the duplicate check keeps in memory before it writes them to disk (default 1,000,000). */
  refLimit?: number;
  /** Take the CSV export's formula guard off text cells (see CheckOptions). */
  unguardFormulas?: boolean;
  /** Called after each row (progress). */
  onRow?: (summary: Readonly<ValidateSummary>) => void;
  /** How far the reader is in the source: its size tells how many rows to make room for. */
  source?: SourceProgress;
  /** Check each row's references against the file and the tenant (`--check-refs`). */
  references?: ReferenceCheck;
}

/** A row waiting for the tenant's answer on its references (rows keep their order behind it). */
interface Held {
  row: SourceRow;
  line: ReportLine;
  outcome: Outcome;
  open: Reference[];
}

/** Rows held before their references are asked of the tenant: a few requests' worth. */
const HOLD_ROWS = 500;
const HOLD_REFS = 100;

const TOP = 10;
/**
 * Rows read before the source's size is used to tell how many rows it holds: a few thousand rows tell
 * the bytes per row well enough, and the duplicate check then grows once instead of again and again.
 */
const ESTIMATE_AFTER = 4_096;

export async function validateRows(options: ValidateRowsOptions): Promise<ValidateSummary> {
  // The same row checker as the import, so validate and import judge a row the same way.
  const checker = new RowChecker({
    model: options.model,
    profile: options.profile,
    strict: options.strict ?? false,
    ...(options.refLimit !== undefined && { refLimit: options.refLimit }),
    ...(options.unguardFormulas !== undefined && { unguardFormulas: options.unguardFormulas }),
  });
  const summary: ValidateSummary = {
    rows: 0,
    outcomes: { valid: 0, invalid: 0, skipped: 0 },
    topErrors: [],
    warnings: [],
  };
  try {
    await checkRows(checker, summary, options);
  } finally {
    checker.close();
  }
  summary.warnings = checker.warnings();
  summary.topErrors = checker.topErrors(TOP);
  return summary;
}

async function checkRows(
  checker: RowChecker,
  summary: ValidateSummary,
  options: ValidateRowsOptions,
): Promise<void> {
  const rows = new RowPuller(options.rows);
  const references = options.references;
  const emit = async (row: SourceRow, line: ReportLine, outcome: Outcome) => {
    summary.outcomes[outcome] += 1;
    // Writers buffer: they hand back a promise only when a chunk is on its way to the disk.
    const written = options.report?.write(line);
    if (written) await written;
    if (outcome === 'invalid') {
      const rejected = options.rejects?.write(row.cells, line.message, row.location);
      if (rejected) await rejected;
    }
    options.onRow?.(summary);
  };
  // References not known yet: their rows (and the rows after them, for the order) wait for the tenant.
  let held: Held[] = [];
  let heldRefs = 0;
  const release = async () => {
    const waiting = held;
    held = [];
    heldRefs = 0;
    const missing = await references!.missing(waiting.flatMap((h) => h.open));
    for (const h of waiting) {
      const unknown = h.open.filter((r) => missing.has(r));
      if (unknown.length === 0) await emit(h.row, h.line, h.outcome);
      else await emit(h.row, withMissing(h.line, unknown), 'invalid');
    }
  };
  for (;;) {
    // Rows the reader already holds are taken without a promise each.
    const row = rows.take() ?? (await rows.next());
    if (!row) break;
    // Plain rows are judged without drafts; the others by the full check (the same verdicts). Checking
    // references needs the drafts.
    const quick = references ? undefined : checker.quick(row);
    if (++summary.rows === ESTIMATE_AFTER) expectRows(checker, summary.rows, options.source);
    if (quick && quick.errors.length === 0) {
      // Most rows: valid, and their report line is written without a ReportLine.
      summary.outcomes.valid += 1;
      const written = options.report?.writeValid(row.location.text, quick.entity, quick.ref);
      if (written) await written;
      options.onRow?.(summary);
      continue;
    }
    let line: ReportLine;
    let outcome: Outcome;
    let open: Reference[] = [];
    if (quick) {
      outcome = 'invalid';
      line = reportLine(row.location.text, quick.entity, quick.ref, outcome, quick.errors);
    } else {
      const { mapped, errors, skipped } = checker.check(row);
      outcome = errors.length ? 'invalid' : skipped ? 'skipped' : 'valid';
      const main = mapped.drafts[mapped.drafts.length - 1];
      line = reportLine(
        row.location.text,
        main?.entity ?? options.profile.entity,
        main?.ref ?? '',
        outcome,
        errors,
      );
      if (outcome === 'skipped' && mapped.skipReason) line.message = mapped.skipReason;
      if (references && !skipped) open = references.row(mapped.drafts);
    }
    if (held.length === 0 && open.length === 0) {
      await emit(row, line, outcome);
      continue;
    }
    held.push({ row, line, outcome, open });
    heldRefs += open.length;
    if (held.length >= HOLD_ROWS || heldRefs >= HOLD_REFS) await release();
  }
  if (held.length > 0) await release();
}

/** A large file: as many rows again per share of its bytes as were read so far. */
function expectRows(checker: RowChecker, rows: number, source: SourceProgress | undefined): void {
  const read = source?.bytesRead() ?? 0;
  if (source?.totalBytes === undefined || read === 0) return;
  checker.expectRows((rows * source.totalBytes) / read);
}

/** The row's line with one more problem per reference that names no record. */
function withMissing(line: ReportLine, unknown: readonly Reference[]): ReportLine {
  const sentence = (r: Reference) =>
    `column "${r.column}": ${r.entity.name} "${r.ref}" is neither in the file nor in the tenant`;
  const join = (a: string, b: string) => (line.message ? `${a}; ${b}` : b);
  return {
    ...line,
    outcome: 'invalid',
    field: join(line.field, unknown.map((r) => r.entity.refField).join('; ')),
    column: join(line.column, unknown.map((r) => r.column).join('; ')),
    value: join(line.value, unknown.map((r) => r.ref).join('; ')),
    message: join(line.message, unknown.map(sentence).join('; ')),
  };
}

function reportLine(
  location: string,
  entity: string,
  ref: string,
  outcome: Outcome,
  errors: readonly RowIssue[],
): ReportLine {
  if (errors.length === 0)
    return { location, entity, ref, outcome, field: '', column: '', value: '', message: '' };
  return {
    location,
    entity,
    ref,
    outcome,
    field: errors.map((e) => e.field ?? '').join('; '),
    column: errors.map((e) => e.column ?? '').join('; '),
    value: errors.map((e) => (e.value === undefined ? '' : cellText(e.value as never))).join('; '),
    message: errors.map((e) => fullSentence(undefined, e.column, e.message)).join('; '),
  };
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
  /** Called after each row (progress), with how far the reader is in the source. */
  onRow?: (summary: Readonly<ValidateSummary>, read: SourceProgress) => void;
}

/** How much of the source was read: bytes so far, of `totalBytes` when the size is known. */
export interface SourceProgress {
  bytesRead(): number;
  readonly totalBytes?: number | undefined;
}

export interface ValidateFileResult extends ValidateSummary {
  /** What the reader detected (format, encoding, ...), for people. */
  notes: string[];
  source: string;
}

/** Opens the source and the output files, validates every row, and closes everything (also on failure). */
export async function validateFile(options: ValidateFileOptions): Promise<ValidateFileResult> {
  const started = Date.now();
  const opened = await openSourceThreaded(options.source, options.readerOptions, options.readThread);
  let report: ReportWriter | undefined;
  let rejects: RejectsWriter | undefined;
  let summary: ValidateSummary;
  try {
    if (options.reportFile) report = await openReport(options.reportFile);
    if (options.rejectsFile)
      rejects = await openRejectsFor(options.rejectsFile, opened, { guard: options.raw !== true });
    const { onRow, raw, readThread: _, ...rest } = options;
    summary = await validateRows({
      ...rest,
      rows: opened.rows,
      source: opened,
      unguardFormulas: opened.format === 'csv' && raw !== true,
      ...(onRow && { onRow: (s: Readonly<ValidateSummary>) => onRow(s, opened) }),
      ...(report && { report }),
      ...(rejects && { rejects }),
    });
  } catch (err) {
    await Promise.allSettled([report?.close(), rejects?.close(), opened.close()]);
    throw err;
  }
  // On success a file that cannot be finished is an error the caller must see.
  const summaryRows: SummaryRows = [
    ['source', opened.source],
    ['rows', summary.rows],
    ...Object.entries(summary.outcomes).map(([outcome, n]) => [outcome, n] as const),
    ['duration (s)', Math.round((Date.now() - started) / 100) / 10],
  ];
  await Promise.all([report?.close(summaryRows), rejects?.close(), opened.close()]);
  return { ...summary, notes: opened.notes, source: opened.source };
}
