// Diffing a draft against the record that exists: only what changed is written, and an unchanged
// row costs no request. Values are compared the way the API means them (a number is a number, a
// date-time is an instant, an empty string is no value), a decimal at the 15 significant digits Excel
// keeps (`sameAtExcelPrecision`), and a text the way a file can carry it (`asRead`), so an exported file
// re-imports unchanged, also after Excel has opened and saved it.
import type { Draft, FieldValue } from '../../mappers/types.js';
import type { EntityModel, FieldModel } from '../../schema/model.js';
import { sameAtExcelPrecision } from '../../writers/excel-number.js';

/** The record as read back, one read per culture: `base` in the base language, `cultures` the others. */
export interface ExistingRecord {
  id: number | string;
  base: Record<string, unknown>;
  cultures: Record<string, Record<string, unknown>>;
  /**
   * A plan only: the row of this run that would already have written this record, when the plan no
   * longer holds what it would write (`planned.ts`): its values are unknown.
   */
  plannedBy?: string;
}

export interface FieldChange {
  field: string;
  /** The language of a multilingual value (the base language included); absent for other fields. */
  culture?: string;
  old: unknown;
  new: unknown;
}

export interface DiffResult {
  changes: FieldChange[];
  /** The PATCH body: changed fields only; multilingual ones as `{culture: value}` with the changed cultures. */
  body: Record<string, unknown>;
}

/** Compares a draft (with resolved link ids) to the existing record. */
export function diffDraft(
  draft: Draft,
  existing: ExistingRecord,
  entity: EntityModel,
  baseLanguage: string,
  ids: Record<string, unknown> = {},
  /** Texts compared exactly: no difference is taken for a file's rendering (`readAlike`). */
  exactText = false,
): DiffResult {
  const changes: FieldChange[] = [];
  const body: Record<string, unknown> = {};
  const put = (field: FieldModel | undefined, name: string, culture: string | undefined, next: unknown) => {
    if (culture !== undefined && field?.multilingual) {
      const current = (body[name] ?? {}) as Record<string, unknown>;
      current[culture] = next;
      body[name] = current;
    } else body[name] = next;
  };

  const consider = (name: string, culture: string | undefined, next: unknown, old: unknown) => {
    const field = entity.field(name);
    if (field && (field.readOnly || field.immutable)) return; // never written on update
    if (sameValue(field, old, next) || (!exactText && readAlike(field, old, next))) return;
    changes.push({ field: name, ...(culture !== undefined ? { culture } : {}), old: old ?? null, new: next });
    put(field, name, culture, next);
  };

  for (const [name, value] of Object.entries(draft.fields)) {
    // A link by ref wins over the same id field given as a value, as on create: an export's `cat_ids`
    // are the ids of the tenant it came from, its `cat_refs` say the same in any tenant.
    if (name in ids) continue;
    const field = entity.field(name);
    consider(name, field?.multilingual ? baseLanguage : undefined, value, existing.base[name]);
  }
  for (const [culture, values] of Object.entries(draft.cultures)) {
    for (const [name, value] of Object.entries(values))
      consider(name, culture, value, existing.cultures[culture]?.[name]);
  }
  for (const [name, value] of Object.entries(ids)) consider(name, undefined, value, existing.base[name]);
  return { changes, body };
}

/** Equality as the API means it. */
export function sameValue(field: FieldModel | undefined, a: unknown, b: unknown): boolean {
  const x = normalise(field, a);
  const y = normalise(field, b);
  if (Array.isArray(x) || Array.isArray(y)) {
    const xs = Array.isArray(x) ? x : x === null ? [] : [x];
    const ys = Array.isArray(y) ? y : y === null ? [] : [y];
    if (xs.length !== ys.length) return false;
    // Links (category ids) are a set; other multi-values keep their order.
    if (field?.references) {
      const sx = [...xs].map(String).sort();
      const sy = [...ys].map(String).sort();
      return sx.every((v, i) => v === sy[i]);
    }
    return xs.every((v, i) => sameItem(field, v, ys[i]));
  }
  return sameItem(field, x, y);
}

/**
 * Two normalised values. A decimal (a `number` field) is the same at Excel's 15 significant digits:
 * `19.990000000000002`, a float artefact in the tenant, is the `19.99` Excel shows and saves, and writing
 * it would change nothing anyone sees; `19.99` and `19.98` still differ. Whole numbers, and `integer`
 * fields, are compared exactly.
 */
function sameItem(field: FieldModel | undefined, x: Normal | undefined, y: Normal | undefined): boolean {
  if (x === y) return true;
  return (
    field?.type === 'number' && typeof x === 'number' && typeof y === 'number' && sameAtExcelPrecision(x, y)
  );
}

/**
 * A text as a spreadsheet or a trimmed cell gives it back: line ends as LF (a CSV reader and every XLSX
 * reader make them so), without control characters (XLSX drops them), without white space at its ends
 * (the mapping's default trim).
 */
export function asRead(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL, '').trim();
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is taken out
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * The tenant's text (or list of texts) and the file's differ only in what a file cannot always carry:
 * line-end style, control characters, white space at the ends. Writing it would only change the tenant's
 * value into the file's rendering of the same text, so the row is unchanged. (A profile with `trim:
 * false` cannot change only these either: docs/import.md.)
 */
function readAlike(field: FieldModel | undefined, old: unknown, next: unknown): boolean {
  if (field !== undefined && field.type !== 'string') return false;
  if (typeof old === 'string' && typeof next === 'string') return asRead(old) === asRead(next);
  if (!Array.isArray(old) || !Array.isArray(next)) return false;
  const kept = old.filter((item) => !(typeof item === 'string' && asRead(item) === ''));
  if (kept.length !== next.length) return false;
  return kept.every(
    (item, i) =>
      item === next[i] ||
      (typeof item === 'string' && typeof next[i] === 'string' && asRead(item) === asRead(next[i])),
  );
}

type Normal = string | number | boolean | null | Normal[];

function normalise(field: FieldModel | undefined, value: unknown): Normal {
  if (value === undefined || value === null || value === '') return null;
  if (Array.isArray(value)) {
    const items = value.map((v) => normalise(field, v)).filter((v) => v !== null);
    return items.length === 0 ? null : items;
  }
  // Asset fields may be written as one comma-separated string of names.
  if (field?.asset && field.multiple && typeof value === 'string' && value.includes(',')) {
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
  switch (field?.type) {
    case 'number':
    case 'integer': {
      const n = typeof value === 'number' ? value : Number(value);
      return Number.isNaN(n) ? String(value) : n;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return String(value);
    case 'date-time': {
      const t = Date.parse(String(value));
      return Number.isNaN(t) ? String(value) : t;
    }
    case 'date':
      return String(value).slice(0, 10);
    default:
      return typeof value === 'object' ? JSON.stringify(value) : (value as string | number | boolean);
  }
}

export type { FieldValue };
