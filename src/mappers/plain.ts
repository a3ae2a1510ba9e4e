// The plain lane: how a table row is read when the plain rules alone are all it needs (a simple profile,
// text cells that need a trim, a split and their type). The validator uses it to judge such rows without
// building drafts; what it reads is what the full mapping would put in the row's one draft.
import type { Cell } from '../readers/types.js';
import { isCanonicalDateTime, isFullDate } from '../schema/dates.js';
import { EXACT_DIGITS, plainNumber } from './coerce.js';
import type { ColumnPlanner, Layout } from './layout.js';
import type { LinkKind } from './targets.js';
import type { Value } from './types.js';

/** A column of a plain layout: where its value goes and how it is read. */
export interface PlainColumn {
  /** The API field; undefined for a link to other records. */
  field: string | undefined;
  /** A language other than the base language (multilingual fields). */
  culture: string | undefined;
  /** The column gives the entity's reference. */
  ref: boolean;
  /** A link to other records: which (undefined for a field). */
  link: LinkKind | undefined;
  multiple: boolean;
  /** The field holds an attribute set's id (`typ_id`): validate asks the tenant whether it has it. */
  attributeSet?: boolean;
  separator: string;
  /** Dates and date-times are read in their canonical form only, which also settles their format. */
  type: 'string' | 'number' | 'integer' | 'date' | 'date-time';
}

/** The plain reading of a layout, or null when some part of the profile needs the full mapping. */
export function plainLayout(layout: Layout, planner: ColumnPlanner): Array<PlainColumn | null> | null {
  const { profile } = planner;
  if (
    planner.variant ||
    profile.parentColumn ||
    profile.scopeColumn ||
    layout.fillDown ||
    planner.fieldPlans.length > 0 ||
    (planner.strict && layout.missing.length > 0)
  )
    return null;
  const columns: Array<PlainColumn | null> = [];
  for (const plan of layout.plans) {
    if (plan === null) {
      columns.push(null);
      continue;
    }
    if (plan === 'unknown' || plan === 'readonly') {
      if (planner.strict) return null;
      columns.push(null);
      continue;
    }
    const { type, target } = plan;
    if (type === 'boolean' || !plan.plain) return null;
    // A date laid out by the profile is read by the full coercion only.
    if ((type === 'date' || type === 'date-time') && plan.rule.dateFormat !== undefined) return null;
    const separator = plan.rule.split === undefined ? '|' : plan.rule.split;
    if (plan.multiple && (separator === false || separator === '')) return null;
    if (target.kind === 'link' && target.link === 'byField') return null;
    columns.push({
      field: plan.fieldName,
      culture: plan.otherCulture,
      ref: plan.fieldName === planner.main.refField && plan.otherCulture === undefined,
      link: target.kind === 'link' ? target.link : undefined,
      multiple: plan.multiple,
      attributeSet: target.kind === 'field' && target.field.references === 'AttributeSets',
      separator: separator || '|', // a single value is never split
      type,
    });
  }
  return columns;
}

/**
 * One cell read by the plain rules: its value, null for a blank cell, undefined when only the full
 * mapping can say. `unguarded`: a text cell starting with a quote may be the export's formula guard.
 */
export function plainCell(
  cell: Cell | undefined,
  column: PlainColumn,
  unguarded: boolean,
): Value | Value[] | null | undefined {
  if (typeof cell === 'string') {
    if (unguarded && cell.charCodeAt(0) === 39 /* ' */) return undefined;
    const text = cell.trim();
    if (text === '') return null;
    return column.multiple ? plainList(text, column) : plainValue(text, column.type);
  }
  if (cell === null || cell === undefined) return null;
  if (typeof cell === 'number' && !column.multiple) {
    // Spreadsheet numbers: as the coercion reads them (text for a text field).
    if (column.type === 'string') return String(cell);
    if (column.type === 'number') return Number.isFinite(cell) ? cell : undefined;
    if (column.type === 'integer') return Number.isInteger(cell) ? cell : undefined;
  }
  return undefined;
}

/** One text value by the one-pass readers; undefined when only the full coercion can say. */
function plainValue(text: string, type: PlainColumn['type']): Value | undefined {
  if (type === 'string') return text;
  if (type === 'date') return isFullDate(text) ? text : undefined;
  if (type === 'date-time') {
    if (isCanonicalDateTime(text) !== true) return undefined;
    // As the coercion gives it: a zero fraction dropped.
    return text.length === 24 && text.endsWith('.000Z') ? `${text.slice(0, 19)}Z` : text;
  }
  // A long number may not be the one a double holds: the full coercion says so (coerce.ts exact()).
  if (text.length > EXACT_DIGITS) return undefined;
  const value = plainNumber(text);
  if (value === undefined || !Number.isFinite(value)) return undefined;
  return type === 'integer' && !Number.isInteger(value) ? undefined : value;
}

/** A list cell: split, trimmed, blanks dropped, each item read as one value. */
function plainList(text: string, column: PlainColumn): Value[] | undefined {
  // An escaped separator (`\|`, list-cell.ts) is read by the full mapping.
  if (text.includes('\\')) return undefined;
  if (!text.includes(column.separator)) {
    // One item (the text is already trimmed and not blank).
    const value = plainValue(text, column.type);
    return value === undefined ? undefined : [value];
  }
  // Split and trimmed by character codes: `split` and `trim` cost a runtime call and a string per piece.
  const out: Value[] = [];
  const { separator } = column;
  const n = text.length;
  for (let start = 0; ; ) {
    let end = text.indexOf(separator, start);
    if (end === -1) end = n;
    let from = start;
    let to = end;
    while (from < to && isTrimmed(text.charCodeAt(from))) from += 1;
    while (to > from && isTrimmed(text.charCodeAt(to - 1))) to -= 1;
    if (to > from) {
      const value = plainValue(text.slice(from, to), column.type);
      if (value === undefined) return undefined;
      out.push(value);
    }
    if (end === n) return out;
    start = end + separator.length;
  }
}

/** The characters `String.prototype.trim` takes off: white space and line terminators. */
export function isTrimmed(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return (
    code === 160 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
