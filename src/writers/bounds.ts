// What we write per row is bounded like what we read: a report line's text fields (a value, a
// message quoting one) are cut at MAX_REPORT_FIELD characters, saying how much was left out, so a
// row of large cells cannot make a report or a rejects `_error` of gigabytes. The row's own cells
// are bounded by the readers' row limit (readers/options.ts maxRowBytes).

import { redactText } from '../secrets.js';

/** The most characters one text field of a report line holds. */
export const MAX_REPORT_FIELD = 4096;

/**
 * A report line as it may be written, in one pass over its text fields: each cut at MAX_REPORT_FIELD,
 * then redacted (URLs' credentials, registered secrets). The record itself when nothing changes (the
 * usual case), else a copy.
 */
export function shownFields<T extends object>(record: T): T {
  let out: Record<string, unknown> | undefined;
  // By key, not Object.entries: a pair per field of every report line was a tenth of what a plan allocated.
  for (const key in record) {
    const value: unknown = record[key];
    if (typeof value !== 'string') continue;
    const shown = redactText(value.length > MAX_REPORT_FIELD ? cut(value) : value);
    if (shown === value) continue;
    const copy: Record<string, unknown> = out ?? { ...(record as Record<string, unknown>) };
    copy[key] = shown;
    out = copy;
  }
  return (out as T | undefined) ?? record;
}

function cut(text: string): string {
  const kept = text.slice(0, MAX_REPORT_FIELD - 40);
  return `${kept}… (${text.length - kept.length} more characters)`;
}
