// The validate pipeline: reader -> mapper -> validator -> report/rejects writers. No writes and no requests
// (the caller brings the TenantModel, live or from cached schemas). One report line per source row.
import type { Mapper } from '../mappers/mapper.js';
import { createMapper } from '../mappers/mapper.js';
import type { Profile } from '../mappers/profile-types.js';
import type { MappedRow, RowIssue } from '../mappers/types.js';
import { openSource, type ReaderOptions } from '../readers/index.js';
import type { SourceRow } from '../readers/types.js';
import { cellText, describeValue, fullSentence } from '../schema/messages.js';
import type { TenantModel } from '../schema/model.js';
import { DraftValidator } from '../schema/validator.js';
import { openRejects, type RejectsWriter, rejectsFormatFor } from '../writers/rejects.js';
import { type Outcome, openReport, type ReportLine, type ReportWriter } from '../writers/report.js';
import { DEFAULT_REF_LIMIT, RefTracker } from './ref-tracker.js';

export interface ValidateSummary {
  rows: number;
  outcomes: Record<Outcome, number>;
  /** The ten most frequent problems, without row values, most frequent first. */
  topErrors: Array<{ message: string; count: number }>;
  /** File-level notes: unknown or ignored columns, duplicate check limit. */
  warnings: string[];
}

export interface ValidateRowsOptions {
  rows: AsyncIterable<SourceRow>;
  model: TenantModel;
  profile: Profile;
  strict?: boolean;
  report?: ReportWriter;
  rejects?: RejectsWriter;
  /** Refs remembered for the duplicate check (default 1,000,000). */
  refLimit?: number;
  /** Called after each row (progress). */
  onRow?: (summary: Readonly<ValidateSummary>) => void;
}

const TOP = 10;
/** Distinct problem kinds counted; beyond, new kinds are not counted (memory stays bounded). */
const MAX_KINDS = 10_000;

export async function validateRows(options: ValidateRowsOptions): Promise<ValidateSummary> {
  const mapper: Mapper = createMapper({
    model: options.model,
    profile: options.profile,
    strict: options.strict,
  });
  const validator = new DraftValidator(options.model);
  const refs = new RefTracker(options.refLimit ?? DEFAULT_REF_LIMIT);
  const kinds = new Map<string, number>();
  const summary: ValidateSummary = {
    rows: 0,
    outcomes: { valid: 0, invalid: 0, skipped: 0 },
    topErrors: [],
    warnings: [],
  };
  const groupedProducts = options.profile.variants === true && !options.profile.parentColumn;

  for await (const row of options.rows) {
    const mapped = mapper.map(row);
    const issues = [...mapped.issues];
    for (const draft of mapped.drafts) {
      issues.push(...validator.validate(draft));
      // Products of a one-row-per-variant feed repeat by design: the grouping checks them instead.
      if (!draft.ref || (groupedProducts && draft.entity === options.profile.entity)) continue;
      const first = refs.check(draft.entity, draft.ref, row.location.text, row.location.line);
      if (first !== undefined) {
        const field = options.model.entity(draft.entity)?.refField ?? '';
        const column = draft.source.columns[field];
        const brief = `duplicate reference: already used by ${first}`;
        const message = `${brief} (${describeValue(draft.ref)})`;
        issues.push({
          code: 'VALIDATION',
          severity: 'error',
          field,
          column,
          value: draft.ref,
          brief,
          message,
        });
      }
    }
    const errors = issues.filter((i) => i.severity === 'error');
    const outcome: Outcome = errors.length ? 'invalid' : mapped.skipped ? 'skipped' : 'valid';
    summary.rows += 1;
    summary.outcomes[outcome] += 1;
    for (const issue of errors) {
      const kind = fullSentence(undefined, issue.column, issue.brief);
      const count = kinds.get(kind);
      if (count !== undefined) kinds.set(kind, count + 1);
      else if (kinds.size < MAX_KINDS) kinds.set(kind, 1);
    }
    const line = reportLine(mapped, outcome, errors, options.profile.entity);
    await options.report?.write(line);
    if (outcome === 'invalid') await options.rejects?.write(row.cells, line.message);
    options.onRow?.(summary);
  }
  summary.warnings = [...mapper.warnings];
  if (refs.overflowed) {
    summary.warnings.push(
      `more than ${options.refLimit ?? DEFAULT_REF_LIMIT} references: duplicates were checked for the first ones only`,
    );
  }
  summary.topErrors = [...kinds.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([message, count]) => ({ message, count }));
  return summary;
}

function reportLine(mapped: MappedRow, outcome: Outcome, errors: RowIssue[], entity: string): ReportLine {
  const main = mapped.drafts[mapped.drafts.length - 1];
  return {
    location: mapped.location.text,
    entity: main?.entity ?? entity,
    ref: main?.ref ?? '',
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
  onRow?: (summary: Readonly<ValidateSummary>) => void;
}

export interface ValidateFileResult extends ValidateSummary {
  /** What the reader detected (format, encoding, ...), for people. */
  notes: string[];
  source: string;
}

/** Opens the source and the output files, validates every row, and closes everything (also on failure). */
export async function validateFile(options: ValidateFileOptions): Promise<ValidateFileResult> {
  const opened = await openSource(options.source, options.readerOptions);
  let report: ReportWriter | undefined;
  let rejects: RejectsWriter | undefined;
  let summary: ValidateSummary;
  try {
    if (options.reportFile) report = await openReport(options.reportFile);
    if (options.rejectsFile) {
      rejects = await openRejects(options.rejectsFile, {
        format: rejectsFormatFor(opened.format),
        headers: opened.headers,
        ...(opened.delimiter !== undefined && { delimiter: opened.delimiter }),
      });
    }
    summary = await validateRows({
      ...options,
      rows: opened.rows,
      ...(report && { report }),
      ...(rejects && { rejects }),
    });
  } catch (err) {
    await Promise.allSettled([report?.close(), rejects?.close(), opened.close()]);
    throw err;
  }
  // On success a file that cannot be finished is an error the caller must see.
  await Promise.all([report?.close(), rejects?.close(), opened.close()]);
  return { ...summary, notes: opened.notes, source: opened.source };
}
