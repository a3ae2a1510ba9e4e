// One report line per source row: the most telling outcome of its drafts, and every message.
import type { SourceRow } from '../../readers/types.js';
import { cellText, fullSentence } from '../../schema/messages.js';
import type { ImportReportLine } from '../../writers/import-report.js';
import { type CheckedRow, rowWarnings } from '../check.js';
import { type DraftResult, LEFT_OUT_WARNING, type PlanOutcome, type WriteOutcome } from './outcome.js';

export type RowOutcome = WriteOutcome | PlanOutcome | 'invalid' | 'not-attempted';

/** A source row and what the checker made of it. */
export interface RowWork {
  row: SourceRow;
  checked: CheckedRow;
  /** Ordinal of the row in reading order (1-based): report lines go out in this order. */
  n?: number;
}

const PRIORITY: RowOutcome[] = [
  'failed',
  'invalid',
  'would-create',
  'created',
  'would-update',
  'updated',
  'would-delete',
  'deleted',
  'unchanged',
  'skipped',
];

/** Every column of a report line, empty: lines spell out only what they say. */
export const EMPTY_LINE: ImportReportLine = {
  location: '',
  entity: '',
  ref: '',
  outcome: '',
  id: '',
  status: '',
  changed: '',
  field: '',
  column: '',
  value: '',
  message: '',
  warnings: '',
  assets: '',
};

/** One report line for a source row: the most telling outcome of its drafts, every message. */
export function reportLine(work: RowWork, results: DraftResult[], defaultEntity: string): ImportReportLine {
  const { checked, row } = work;
  const main = checked.mapped.drafts[checked.mapped.drafts.length - 1];
  const { record } = checked.mapped;
  const base = {
    location: row.location.text,
    entity: main?.entity ?? record?.entity ?? defaultEntity,
    ref: main?.ref ?? record?.ref ?? '',
  };
  if (checked.errors.length > 0) {
    const e = checked.errors;
    return {
      ...EMPTY_LINE,
      ...base,
      outcome: 'invalid',
      field: e.map((i) => i.field ?? '').join('; '),
      column: e.map((i) => i.column ?? '').join('; '),
      value: e.map((i) => (i.value === undefined ? '' : cellText(i.value as never))).join('; '),
      message: e.map((i) => fullSentence(undefined, i.column, i.message)).join('; '),
    };
  }
  if (results.length === 0) {
    return { ...EMPTY_LINE, ...base, outcome: 'skipped', message: checked.mapped.skipReason ?? '' };
  }
  // Built field by field, in EMPTY_LINE's order (the journal and JSON reports keep it): this runs for
  // every row, and most rows have one result.
  const one = results.length === 1;
  const mainResult = one
    ? results[0]!
    : (results.find((r) => r.draft === main) ?? results[results.length - 1]!);
  const outcome = one
    ? mainResult.outcome
    : (PRIORITY.find((p) => results.some((r) => r.outcome === p)) ?? 'skipped');
  const message = one
    ? (mainResult.message ?? '')
    : results
        .filter((r) => r.message || r.draft !== main)
        .map((r) => `${r.draft.entity} ${r.draft.ref}: ${r.outcome}${r.message ? ` — ${r.message}` : ''}`)
        .join('; ');
  // A failure placed in the source row names its column and value, as an invalid row's line does.
  const problem = outcome === 'failed' ? failedResult(results)?.problem : undefined;
  return {
    location: base.location,
    entity: base.entity,
    ref: base.ref,
    outcome,
    id: mainResult.id === undefined ? '' : String(mainResult.id),
    status: mainResult.status === undefined ? '' : String(mainResult.status),
    changed: results.flatMap(changedText).join('; '),
    field: problem?.field ?? '',
    column: problem?.column ?? '',
    value: problem?.value ?? '',
    message,
    warnings: warningsText(checked.mapped.issues, results),
    assets: assetsText(results),
  };
}

/** A result's changed fields (`prod_title_fr`); in a plan, `field: old -> new`. */
function changedText(r: DraftResult): string[] {
  return (r.changes ?? []).map((c) => {
    const name = c.culture ? `${c.field}_${c.culture}` : c.field;
    return r.outcome === 'would-update' ? `${name}: ${show(c.old)} -> ${show(c.new)}` : name;
  });
}

/**
 * The row's warnings name an image or file the import left out, which the summary counts (not what its
 * mapping left out or a stray quote in its ref). Read from the line alone, so a resumed run counts its
 * carried rows the same way.
 */
export function leftOutAssets(line: Pick<ImportReportLine, 'warnings'>): boolean {
  return line.warnings !== '' && LEFT_OUT_WARNING.test(line.warnings);
}

/** The row's first failed result (the one its problem is counted by). */
export function failedResult(results: readonly DraftResult[]): DraftResult | undefined {
  return results.find((r) => r.outcome === 'failed');
}

function warningsText(issues: CheckedRow['mapped']['issues'], results: DraftResult[]): string {
  let text = rowWarnings(issues, []).join('; ');
  for (const r of results) for (const w of r.warnings ?? []) text += `${text ? '; ' : ''}${w}`;
  // A ref read trimmed (ref-spelling.ts): said once, though a product and its variant may both name it.
  const said = new Set<string>();
  for (const r of results)
    for (const w of r.draft.warnings ?? []) {
      if (said.has(w)) continue;
      said.add(w);
      text += `${text ? '; ' : ''}${w}`;
    }
  return text;
}

function assetsText(results: DraftResult[]): string {
  let text = '';
  for (const r of results) {
    for (const a of r.assets ?? [])
      text += `${text ? '; ' : ''}${a.url} ${a.status}${a.message ? ` (${a.message})` : ''}`;
  }
  return text;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '(empty)';
  return JSON.stringify(value);
}
