// The row loop of validate: each row checked, its report line and reject written in order, references
// held until settled. Run over a whole source (validate.ts) or over a part of a CSV file (validate-parts/).
import type { Profile } from '../mappers/profile-types.js';
import type { RowIssue } from '../mappers/types.js';
import { RowPuller } from '../readers/batched.js';
import { type SourceRow, TableRow } from '../readers/types.js';
import { cellText, fullSentence } from '../schema/messages.js';
import type { TenantModel } from '../schema/model.js';
import { shownFields } from '../writers/bounds.js';
import type { RejectsWriter } from '../writers/rejects.js';
import type { Outcome, ReportLine, ReportWriter } from '../writers/report.js';
import { AssetCheck, type AssetFindings } from './asset-check.js';
import { type RowChecker, rowWarnings, type TopProblem, whereOf } from './check.js';
import type { ReferenceCheck, RowRefs, Unresolved } from './references.js';

/** A summary before its first row. */
export function emptySummary(): ValidateSummary {
  return { rows: 0, outcomes: { valid: 0, invalid: 0, skipped: 0 }, warned: 0, topErrors: [], warnings: [] };
}

export interface ValidateSummary {
  rows: number;
  outcomes: Record<Outcome, number>;
  /** Valid rows with a warning: an image or file the import would leave out, or that only it can check. */
  warned: number;
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
  /** Warn of a double quote in a ref, maybe a stray one (a CSV source; see CheckOptions). Default on. */
  strayQuotes?: boolean;
  /** Called after each row (progress). */
  onRow?: (summary: Readonly<ValidateSummary>) => void;
  /** How far the reader is in the source: its size tells how many rows to make room for. */
  source?: SourceProgress;
  /** Check each row's references against the file and the tenant (`--check-refs`). */
  references?: ReferenceCheck;
  /** `host:port` the DAM fetches from although on loopback (a sandbox's own asset host). */
  damHosts?: readonly string[];
  /** As the import's `--on-asset-error`: an image or file it cannot take is a warning, or fails the row. */
  onAssetError?: 'warn' | 'fail';
  /** Stops the check: the next row throws the signal's reason (the caller removes what was written). */
  signal?: AbortSignal;
}

/** A row held until the references of the rows before it, and its own, are settled (the report keeps the order). */
interface Held {
  row: SourceRow;
  line: ReportLine;
  outcome: Outcome;
  refs: RowRefs;
}

/** Rows held before their references are settled: a few requests' worth (the rows of five import batches). */
const HOLD_ROWS = 500;
const HOLD_REFS = 100;

const NO_WARNINGS: readonly string[] = [];
/**
 * Rows read before the source's size is used to tell how many rows it holds: a few thousand rows tell
 * the bytes per row well enough, and the duplicate check then grows once instead of again and again.
 */
const ESTIMATE_AFTER = 4_096;

export async function checkRows(
  checker: RowChecker,
  summary: ValidateSummary,
  options: ValidateRowsOptions,
  assets = new AssetCheck(options.damHosts),
): Promise<void> {
  const rows = new RowPuller(options.rows);
  const references = options.references;
  const failOnAssets = options.onAssetError === 'fail';
  const emit = async (row: SourceRow, whole: ReportLine, outcome: Outcome) => {
    const line = shownFields(whole);
    summary.outcomes[outcome] += 1;
    if (line.warnings) summary.warned += 1;
    // Writers buffer: they hand back a promise only when a chunk is on its way to the disk.
    const written = options.report?.write(line);
    if (written) await written;
    if (outcome === 'invalid') {
      const rejected = options.rejects?.write(row.cells, line.message, row.location);
      if (rejected) await rejected;
    }
    options.onRow?.(summary);
  };
  // Rows whose references are not known yet (and the rows after them, for the order) are held until the
  // file ahead of them or the tenant tells.
  let held: Held[] = [];
  let open = 0;
  const release = async () => {
    const waiting = held;
    held = [];
    open = 0;
    const missing = await references!.resolve(waiting.map((h) => h.refs));
    for (let i = 0; i < waiting.length; i++) {
      const h = waiting[i]!;
      // Image and file names the DAM lacks: left out with a warning, or (`--on-asset-error fail`) failed.
      // A DELETE of a record the tenant lacks: the import skips the row, and says why.
      const skips: Unresolved[] = [];
      const unknown: Unresolved[] = [];
      const leftOut: Unresolved[] = [];
      const trimmed: string[] = [];
      for (const u of missing[i]!) {
        if (u.trimmed) trimmed.push(u.message);
        else if (u.skips) skips.push(u);
        else if (u.leftOut && !failOnAssets) leftOut.push(u);
        else unknown.push(u);
      }
      let line = h.line;
      // The ref the import names the row by: its record's as the cell wrote it, when the tenant has that.
      if (h.refs.shownRef !== undefined) line = { ...line, ref: h.refs.shownRef };
      if (leftOut.length > 0 && h.outcome === 'valid') line = withLeftOut(line, leftOut);
      if (trimmed.length > 0 && h.outcome === 'valid') line = withWarnings(line, trimmed);
      if (unknown.length === 0 && skips.length > 0 && h.outcome === 'valid')
        await emit(
          h.row,
          { ...line, outcome: 'skipped', message: skips.map((u) => u.message).join('; ') },
          'skipped',
        );
      else if (unknown.length === 0) await emit(h.row, line, h.outcome);
      else {
        // Counted by kind, without the value or the row it names (the summary groups them).
        for (const u of unknown)
          checker.countKind(`column "${u.column}": ${u.brief ?? briefOf(u)}`, whereOf(h.row));
        await emit(h.row, withMissing(line, unknown), 'invalid');
      }
    }
  };
  const signal = options.signal;
  for (;;) {
    // Rows the reader already holds are taken without a promise each.
    const row = rows.take() ?? (await rows.next());
    if (!row) break;
    if (signal?.aborted) throw signal.reason;
    // Plain rows are judged without drafts; the others by the full check (the same verdicts).
    const quick = checker.quick(row);
    if (++summary.rows === ESTIMATE_AFTER) expectRows(checker, summary.rows, options.source);
    if (
      quick &&
      quick.errors.length === 0 &&
      held.length === 0 &&
      (!references || references.knownLinks(quick.entity, checker.quickLinks))
    ) {
      // Most rows: valid, and their report line is written without a ReportLine.
      references?.definePlain(quick.entity, quick.ref);
      summary.outcomes.valid += 1;
      const report = options.report;
      // A CSV row's line goes out as bytes, without its location's text.
      const written =
        report?.writeValidAt && row instanceof TableRow && row.byLine
          ? report.writeValidAt(row.line, quick.entity, quick.ref)
          : report?.writeValid(row.location.text, quick.entity, quick.ref);
      if (written) await written;
      options.onRow?.(summary);
      continue;
    }
    let line: ReportLine;
    let outcome: Outcome;
    let refs: RowRefs | undefined;
    if (quick) {
      outcome = quick.errors.length ? 'invalid' : 'valid';
      line = reportLine(row.location.text, quick.entity, quick.ref, outcome, quick.errors);
      if (references)
        refs =
          outcome === 'valid'
            ? references.plainRow(quick.entity, quick.ref, row.location.text, checker.quickLinks, row.headers)
            : undefined;
    } else {
      const checked = checker.check(row);
      const { mapped, skipped } = checked;
      let errors = checked.errors;
      outcome = errors.length ? 'invalid' : skipped ? 'skipped' : 'valid';
      let warnings = NO_WARNINGS;
      if (outcome === 'valid') {
        const found = assets.row(mapped.drafts);
        warnings = rowWarnings(mapped.issues, found.notes);
        if (found.leftOut.length > 0 && failOnAssets) {
          // `--on-asset-error fail`: the import fails the row for them.
          errors = found.leftOut.map(assetIssue);
          for (const e of errors) checker.countKind(fullSentence(undefined, e.column, e.brief), whereOf(row));
          outcome = 'invalid';
        } else if (found.leftOut.length > 0) {
          const said = found.leftOut.map((l) => `${l.message}: the import writes the record without it`);
          warnings = rowWarnings(mapped.issues, [...said, ...found.notes]);
        }
      }
      const main = mapped.drafts[mapped.drafts.length - 1];
      line = reportLine(
        row.location.text,
        main?.entity ?? mapped.record?.entity ?? options.profile.entity,
        main?.ref ?? mapped.record?.ref ?? '',
        outcome,
        errors,
        warnings,
      );
      if (outcome === 'skipped' && mapped.skipReason) line.message = mapped.skipReason;
      if (references) refs = references.row(mapped.drafts, outcome === 'valid', row.location.text);
    }
    if (!refs) {
      if (held.length === 0) await emit(row, line, outcome);
      else held.push({ row, line, outcome, refs: references!.row([], false, row.location.text) });
      continue;
    }
    if (held.length === 0 && references!.settled(refs)) {
      // Nothing to wait for: its records are noted for the rows after it.
      await references!.resolve([refs]);
      await emit(row, line, outcome);
      continue;
    }
    held.push({ row, line, outcome, refs });
    open += refs.uses.length;
    if (held.length >= HOLD_ROWS || open >= HOLD_REFS) await release();
  }
  if (held.length > 0) await release();
}

/** A large file: as many rows again per share of its bytes as were read so far. */
function expectRows(checker: RowChecker, rows: number, source: SourceProgress | undefined): void {
  const read = source?.bytesRead() ?? 0;
  if (source?.totalBytes === undefined || read === 0) return;
  checker.expectRows((rows * source.totalBytes) / read);
}

/** An image or file the DAM refuses by its URL, as a row problem (`--on-asset-error fail`). */
function assetIssue(l: AssetFindings['leftOut'][number]): RowIssue {
  return {
    code: 'VALIDATION',
    severity: 'error',
    field: l.field,
    column: l.column,
    value: l.value,
    brief: l.message.replace(`'${l.value}': `, ''),
    message: l.message,
  };
}

/** What kind of reference problem: the message without the ref and the row it names. */
function briefOf(u: Unresolved): string {
  return u.message.replace(` "${u.ref}"`, '').replace(/ \((line|sheet|item|row) [^)]*\)/, '');
}

/** A valid row's line with a warning per image or file name the import would leave out. */
function withLeftOut(line: ReportLine, leftOut: readonly Unresolved[]): ReportLine {
  const said = leftOut.map((r) => `column "${r.column}": ${r.message}`).join('; ');
  return { ...line, warnings: line.warnings ? `${line.warnings}; ${said}` : said };
}

/** A valid row's line with more warnings (a ref the import reads trimmed: the import's words). */
function withWarnings(line: ReportLine, said: readonly string[]): ReportLine {
  const text = said.join('; ');
  return { ...line, warnings: line.warnings ? `${line.warnings}; ${text}` : text };
}

/** The row's line with one more problem per reference the import would not resolve. */
function withMissing(line: ReportLine, unknown: readonly Unresolved[]): ReportLine {
  const sentence = (r: Unresolved) => `column "${r.column}": ${r.message}`;
  const join = (a: string, b: string) => (line.message ? `${a}; ${b}` : b);
  return {
    ...line,
    outcome: 'invalid',
    field: join(line.field, unknown.map((r) => r.field).join('; ')),
    column: join(line.column, unknown.map((r) => r.column).join('; ')),
    value: join(line.value, unknown.map((r) => r.ref).join('; ')),
    message: join(line.message, unknown.map(sentence).join('; ')),
    warnings: '',
  };
}

function reportLine(
  location: string,
  entity: string,
  ref: string,
  outcome: Outcome,
  errors: readonly RowIssue[],
  warnings: readonly string[] = NO_WARNINGS,
): ReportLine {
  if (errors.length === 0) {
    const warned = warnings.join('; ');
    return {
      location,
      entity,
      ref,
      outcome,
      field: '',
      column: '',
      value: '',
      message: '',
      warnings: warned,
    };
  }
  return {
    location,
    entity,
    ref,
    outcome,
    field: errors.map((e) => e.field ?? '').join('; '),
    column: errors.map((e) => e.column ?? '').join('; '),
    value: errors.map((e) => (e.value === undefined ? '' : cellText(e.value as never))).join('; '),
    message: errors.map((e) => fullSentence(undefined, e.column, e.message)).join('; '),
    warnings: '',
  };
}

/** How much of the source was read: bytes so far, of `totalBytes` when the size is known. */
export interface SourceProgress {
  bytesRead(): number;
  readonly totalBytes?: number | undefined;
}
