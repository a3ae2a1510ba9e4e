// The top problems of a report, grouped by kind and column: "column "Price": must be a number, got
// "12,5O"" on 3,000 rows is one problem of 3,000 rows, not 3,000 lines to read. One pass over the
// report's failed, invalid and not-attempted lines; the groups are bounded.
import { withoutValues } from '../runner/import/outcome.js';
import type { ReportIndex, ReportRow } from './report-index.js';

export interface Problem {
  /** The problem without the row's own values: `must be a number, got "…"`, `HTTP 409`. */
  kind: string;
  column: string;
  outcome: string;
  rows: number;
  /** One row that has it, to look at. */
  example: { ref: string; location: string; message: string };
}

const PROBLEM_OUTCOMES = /"outcome":"(failed|invalid|not-attempted)"/;
const MAX_GROUPS = 5_000;

export async function topProblems(index: ReportIndex, top = 20): Promise<Problem[]> {
  await index.refresh();
  const groups = new Map<string, Problem>();
  for await (const [, text] of index.scan((line) => PROBLEM_OUTCOMES.test(line))) {
    const row = index.parse(text);
    for (const { kind, column } of problemsOf(row)) {
      const key = `${row.outcome}\u0000${column}\u0000${kind}`;
      const group = groups.get(key);
      if (group) group.rows += 1;
      else if (groups.size < MAX_GROUPS)
        groups.set(key, {
          kind,
          column,
          outcome: row.outcome,
          rows: 1,
          example: { ref: row.ref ?? '', location: row.location, message: row.message ?? '' },
        });
    }
  }
  return [...groups.values()].sort((a, b) => b.rows - a.rows).slice(0, top);
}

/** Each problem of a row: several are joined with `; ` in `column` and `message`, in the same order. */
export function problemsOf(row: ReportRow): Array<{ kind: string; column: string }> {
  const messages = splitJoined(row.message ?? '');
  const columns = (row.column ?? '').split('; ');
  if (messages.length === 0) return [{ kind: row.status ? `HTTP ${row.status}` : row.outcome, column: '' }];
  return messages.map((message, i) => ({
    kind: kindOf(message, row.status),
    column: columns.length === messages.length ? (columns[i] ?? '') : (columnOf(message) ?? ''),
  }));
}

/** `; ` joins a row's messages; a `; ` inside quotes is part of a value. */
function splitJoined(text: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' && text[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && c === ';' && text[i + 1] === ' ') {
      parts.push(text.slice(start, i));
      start = i + 2;
    }
  }
  parts.push(text.slice(start));
  return parts.filter((p) => p.trim() !== '');
}

function columnOf(message: string): string | undefined {
  return /^column "([^"]*)"/.exec(message)?.[1];
}

/** The message without what is the row's own: its column's name, the quoted values, the numbers. */
export function kindOf(message: string, status?: string): string {
  const kind = withoutValues(message.replace(/^column "[^"]*":\s*/, '')).trim();
  return status && !/^HTTP/.test(kind) && /^\d{3}$/.test(status) ? `HTTP ${status}: ${kind}` : kind;
}
