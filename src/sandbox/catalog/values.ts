// Write validation: a JSON body checked field by field against the resource's FieldDefs, giving
// either the changes to apply (in stored form) or failures a person can act on. Also the read side:
// a stored value presented in one culture.
import type { AssetDirectory } from '../context.js';
import { type FieldDef, fieldLanguages, type ResourceDef, type StoredRecord } from './model.js';

export interface WriteOptions {
  /** Culture of a plain-string multilingual text (Accept-Language, or the base language). */
  culture: string;
  languages: readonly string[];
  assets: AssetDirectory;
  mode: 'create' | 'update';
}

export interface FieldFailure {
  field: string;
  message: string;
  attempted: unknown;
  /** A DAM name that does not exist: 400 on POST, 404 on PATCH. */
  missingAsset?: boolean;
}

/** New stored value of a field, or per-culture edits of a multilingual one. */
export type FieldChange =
  | { kind: 'set'; value: unknown }
  | { kind: 'cultures'; clearAll: boolean; cultures: Record<string, unknown> };

export interface ValidatedWrite {
  changes: Map<string, FieldChange>;
  failures: FieldFailure[];
}

/** Characters that cannot appear in a DAM name (a JSON-encoded value sent as a string has them). */
const INVALID_NAME = /["{}[\]\\<>|*?:]/;
const hasInvalidCharacters = (name: string): boolean =>
  INVALID_NAME.test(name) || [...name].some((c) => c.charCodeAt(0) < 0x20);
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2})$/;

export function validateWrite(
  def: ResourceDef,
  body: Record<string, unknown>,
  o: WriteOptions,
): ValidatedWrite {
  const changes = new Map<string, FieldChange>();
  const failures: FieldFailure[] = [];
  const byName = new Map(def.fields.map((f) => [f.name, f]));
  for (const [name, value] of Object.entries(body)) {
    const field = byName.get(name);
    if (!field) {
      failures.push({
        field: name,
        message: `Unknown attribute '${name}': ${def.title} has no such property (see its $metadata)`,
        attempted: value,
      });
      continue;
    }
    if (field.readOnly || (field.immutable && o.mode === 'update')) {
      failures.push({ field: name, message: `Attribute ${name} is non assignable`, attempted: value });
      continue;
    }
    const result = field.asset ? assetChange(field, value, o) : valueChange(field, value, o);
    if ('failures' in result) failures.push(...result.failures);
    else changes.set(name, result.change);
  }
  if (o.mode === 'create') {
    for (const f of def.fields) {
      if (!f.required || failures.some((x) => x.field === f.name)) continue;
      const change = changes.get(f.name);
      if (!change || (change.kind === 'set' && (change.value === null || change.value === ''))) {
        failures.push({
          field: f.name,
          message: `Attribute ${f.name} is required`,
          attempted: body[f.name] ?? null,
        });
      }
    }
  }
  return { changes, failures };
}

type Outcome = { change: FieldChange } | { failures: FieldFailure[] };

function fail(
  field: FieldDef,
  message: string,
  attempted: unknown,
  missingAsset = false,
): { failures: FieldFailure[] } {
  return { failures: [{ field: field.name, message, attempted, ...(missingAsset ? { missingAsset } : {}) }] };
}

/** One scalar value: its normalised stored form, or a message. */
function scalar(field: FieldDef, v: unknown): { value: unknown } | { error: string } {
  if (v === null) return { value: null };
  switch (field.type) {
    case 'string': {
      if (typeof v !== 'string') return { error: `expected a text value, found ${describe(v)}` };
      // The schema's maxLength counts characters (JSON Schema: code points), not UTF-16 units: an
      // emoji is one.
      if (field.maxLength !== undefined && v.length > field.maxLength) {
        const characters = codePoints(v);
        if (characters > field.maxLength)
          return { error: `is ${characters} characters long; the maximum is ${field.maxLength}` };
      }
      if (field.enum && !field.enum.includes(v))
        return { error: `'${v}' is not one of the allowed values: ${field.enum.join(', ')}` };
      if (field.pattern && v !== '' && !new RegExp(field.pattern).test(v))
        return { error: `'${v}' does not match the pattern ${field.pattern}` };
      return { value: v };
    }
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v))
        return { error: `expected an integer, found ${describe(v)}` };
      return { value: v };
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v))
        return { error: `expected a number, found ${describe(v)}` };
      return { value: v };
    case 'boolean':
      if (typeof v !== 'boolean') return { error: `expected true or false, found ${describe(v)}` };
      return { value: v };
    case 'date': {
      const m = typeof v === 'string' ? DATE.exec(v) : null;
      if (!m || !validDay(Number(m[1]), Number(m[2]), Number(m[3])))
        return { error: `expected a date like 2024-03-31, found ${describe(v)}` };
      return { value: v };
    }
    case 'date-time': {
      const m = typeof v === 'string' ? DATE_TIME.exec(v) : null;
      // Hours 00-23, minutes 00-59, seconds up to a leap second (RFC 3339, the schema's date-time).
      if (
        !m ||
        !validDay(Number(m[1]), Number(m[2]), Number(m[3])) ||
        Number(m[4]) > 23 ||
        Number(m[5]) > 59 ||
        Number(m[6] ?? 0) > 60 ||
        Number.isNaN(Date.parse(v as string))
      )
        return { error: `expected a UTC date-time like 2024-03-31T08:00:00Z, found ${describe(v)}` };
      if (m[7] !== 'Z')
        return { error: `'${v}' carries an offset; catalog dates are UTC: convert it and end it with Z` };
      return { value: new Date(v as string).toISOString() };
    }
  }
}

function valueChange(field: FieldDef, value: unknown, o: WriteOptions): Outcome {
  const one = (v: unknown): { value: unknown } | { error: string } => {
    if (field.multiple) {
      if (v === null) return { value: [] };
      if (!Array.isArray(v)) return { error: `expected an array of values, found ${describe(v)}` };
      const out: unknown[] = [];
      for (const item of v) {
        if (item === null) return { error: 'an array item is null' };
        const r = scalar(field, item);
        if ('error' in r) return r;
        out.push(r.value);
      }
      return { value: out };
    }
    if (Array.isArray(v) || (typeof v === 'object' && v !== null))
      return { error: `expected a single value, found ${describe(v)}` };
    return scalar(field, v);
  };

  if (!field.multilingual) {
    const r = one(value);
    if ('error' in r) return fail(field, `Invalid value for ${field.name}: ${r.error}`, value);
    return { change: { kind: 'set', value: r.value } };
  }
  const languages = fieldLanguages(field, o.languages);
  if (value === null) return { change: { kind: 'cultures', clearAll: true, cultures: {} } };
  let perCulture: Record<string, unknown>;
  if (typeof value === 'object' && !Array.isArray(value)) {
    perCulture = value as Record<string, unknown>;
  } else {
    perCulture = { [o.culture]: value };
  }
  const cultures: Record<string, unknown> = {};
  for (const [culture, v] of Object.entries(perCulture)) {
    if (!languages.includes(culture)) return fail(field, languageMessage(field, culture, languages), value);
    const r = one(v);
    if ('error' in r) return fail(field, `Invalid value for ${field.name} (${culture}): ${r.error}`, value);
    cultures[culture] = emptyValue(r.value) ? null : r.value;
  }
  return { change: { kind: 'cultures', clearAll: false, cultures } };
}

function languageMessage(field: FieldDef, culture: string, languages: string[]): string {
  return `Invalid value for ${field.name}: the field has no language '${culture}' (it has ${languages.join(', ')})`;
}

/** DAM names from one value: a name, an array of names, or a comma-separated string. */
function assetNames(field: FieldDef, v: unknown): { names: string[] } | { error: string } {
  if (v === null || v === '') return { names: [] };
  let raw: unknown[];
  if (typeof v === 'string') raw = v.split(',');
  else if (Array.isArray(v)) raw = v;
  else
    return { error: `expected a name, an array of names or a comma-separated string, found ${describe(v)}` };
  const names: string[] = [];
  for (const item of raw) {
    if (typeof item !== 'string') return { error: `expected names as text, found ${describe(item)}` };
    const name = item.trim();
    if (name === '') continue;
    if (hasInvalidCharacters(name)) return { error: `'${name}' contains invalid characters in the name` };
    names.push(name);
  }
  if (!field.multiple && names.length > 1)
    return { error: `the field holds one ${field.asset}, found ${names.length} names` };
  return { names };
}

function assetChange(field: FieldDef, value: unknown, o: WriteOptions): Outcome {
  const kind = field.asset!;
  const check = (names: string[]): FieldFailure | undefined => {
    const exists =
      kind === 'image' ? o.assets.imageExists.bind(o.assets) : o.assets.fileExists.bind(o.assets);
    const missing = names.find((n) => !exists(n));
    if (missing === undefined) return undefined;
    return {
      field: field.name,
      message: `Invalid value for ${field.name}: the ${kind} '${missing}' does not exist in the DAM`,
      attempted: value,
      missingAsset: true,
    };
  };
  const stored = (names: string[]): unknown => (field.multiple ? names : (names[0] ?? null));

  const plain = (v: unknown): { names: string[] } | { failures: FieldFailure[] } => {
    const r = assetNames(field, v);
    if ('error' in r) return fail(field, `Invalid value for ${field.name}: ${r.error}`, value);
    const missing = check(r.names);
    return missing ? { failures: [missing] } : r;
  };

  if (!field.multilingual) {
    const r = plain(value);
    return 'failures' in r ? r : { change: { kind: 'set', value: stored(r.names) } };
  }
  const languages = fieldLanguages(field, o.languages);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const cultures: Record<string, unknown> = {};
    for (const [culture, v] of Object.entries(value)) {
      if (!languages.includes(culture)) return fail(field, languageMessage(field, culture, languages), value);
      const r = plain(v);
      if ('failures' in r) return r;
      cultures[culture] = r.names.length === 0 ? null : stored(r.names);
    }
    return { change: { kind: 'cultures', clearAll: false, cultures } };
  }
  const r = plain(value);
  if ('failures' in r) return r;
  // Empty clears every culture; names alone go to the base language.
  if (r.names.length === 0) return { change: { kind: 'cultures', clearAll: true, cultures: {} } };
  return { change: { kind: 'cultures', clearAll: false, cultures: { [languages[0]!]: stored(r.names) } } };
}

function emptyValue(v: unknown): boolean {
  return v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** The stored value after a change; multilingual objects keep the field's language order. */
export function applyChange(
  field: FieldDef,
  old: unknown,
  change: FieldChange,
  languages: readonly string[],
): unknown {
  if (change.kind === 'set') return change.value;
  const before = change.clearAll || !isObject(old) ? {} : old;
  const merged: Record<string, unknown> = {};
  for (const culture of fieldLanguages(field, languages)) {
    const v = culture in change.cultures ? change.cultures[culture] : before[culture];
    if (v !== undefined && v !== null) merged[culture] = v;
  }
  return merged;
}

/** A stored value as a client reads it, in one culture. */
export function presentValue(field: FieldDef, stored: unknown, culture: string): unknown {
  if (field.multilingual) {
    const v = isObject(stored) ? stored[culture] : undefined;
    return v ?? (field.multiple ? [] : null);
  }
  if (field.multiple) return stored ?? [];
  return stored ?? null;
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function emptyRecord(def: ResourceDef): StoredRecord {
  const r: StoredRecord = {};
  for (const f of def.fields) r[f.name] = f.multilingual ? {} : f.multiple ? [] : null;
  return r;
}

function validDay(y: number, m: number, d: number): boolean {
  const t = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  t.setUTCFullYear(y, m - 1, d);
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Characters as JSON Schema's maxLength counts them: code points (an emoji is one). */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the text '${v.length > 60 ? `${v.slice(0, 60)}...` : v}'`;
  return `${typeof v} ${String(v)}`;
}
