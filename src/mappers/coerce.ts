// Coercion of one source value to the type the field's schema asks for. Pure functions: a value in,
// a typed value or "what was expected" out. The mapper turns a failure into a row issue.
import type { Cell } from '../readers/types.js';
import { daysInMonth, isCanonicalDateTime, isoDay } from '../schema/dates.js';
import type { ConversionRule } from './profile-types.js';
import type { Value } from './types.js';

export type CoerceType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'date-time';
export type Coerced = { ok: true; value: Value } | { ok: false; expected: string };

const fail = (expected: string): Coerced => ({ ok: false, expected });

export function coerce(cell: Exclude<Cell, Cell[]>, type: CoerceType, rule: ConversionRule): Coerced {
  switch (type) {
    case 'string':
      return { ok: true, value: cell === null ? null : String(cell) };
    case 'number':
      return toNumber(cell, rule, false);
    case 'integer':
      return toNumber(cell, rule, true);
    case 'boolean':
      return toBoolean(cell);
    case 'date':
    case 'date-time':
      return toDate(cell, type, rule);
  }
}

/** Digits with one decimal point and an optional exponent (`1.5e-7`, as programs write extreme values). */
const DIGITS = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** One comma before exactly three digits, not after a lone 0: a thousands mark as much as a decimal one. */
const AMBIGUOUS_COMMA = /^[+-]?[1-9]\d{0,2},\d{3}$/;

function toNumber(cell: Exclude<Cell, Cell[]>, rule: ConversionRule, integer: boolean): Coerced {
  const expected = integer ? 'a whole number' : 'a number';
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) return fail(expected);
    return integer && !Number.isInteger(cell) ? fail(expected) : { ok: true, value: cell };
  }
  if (typeof cell !== 'string') return fail(expected);
  let text = cell.trim();
  if (rule.thousands === undefined && rule.decimal === undefined) {
    const value = plainNumber(text);
    if (value !== undefined) {
      if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) return fail(expected);
      return exact(text, value, expected);
    }
  }
  if (rule.thousands) {
    // A declared thousands mark is removed only where it groups three digits.
    const mark = rule.thousands === '.' ? '\\.' : rule.thousands;
    if (new RegExp(`\\d${mark}\\d{3}(?!\\d)`).test(text))
      text = text.replace(new RegExp(`(?<=\\d)${mark}(?=\\d{3})`, 'g'), '');
  }
  const decimal = rule.decimal ?? (rule.thousands === '.' ? ',' : rule.thousands === ',' ? '.' : undefined);
  if (decimal === ',') {
    if (text.includes('.')) return fail(`${expected} with "," as decimal mark`);
    text = text.replace(',', '.');
  } else if (decimal === undefined) {
    // Either mark is a decimal mark, but only one of them: "1,234.5" needs a declared thousands separator.
    if (text.includes(',') && text.includes('.'))
      return fail(`${expected} (thousands separators need "thousands" in the profile)`);
    const comma = text.indexOf(',');
    if (comma >= 0 && comma === text.lastIndexOf(',')) {
      // `1,234` is a thousand in an English feed and 1.234 in a French one: refused rather than guessed,
      // since a wrong guess is a price off by a thousand that no check would catch.
      if (AMBIGUOUS_COMMA.test(text))
        return fail(`${expected} (is "${text}" a thousand or a decimal? set "decimal" or "thousands")`);
      text = text.replace(',', '.');
    }
  }
  if (!DIGITS.test(text)) return fail(expected);
  const value = Number(text);
  if (!Number.isFinite(value)) return fail(expected);
  if (integer && !Number.isInteger(value)) return fail(expected);
  return exact(text, value, expected);
}

/** Significant digits a number of the service (a double) holds exactly, whatever they are. */
export const EXACT_DIGITS = 15;

/**
 * The value, unless it is not the number the text says: a double holds about 15 significant digits, so
 * `9007199254740993` or `12345678901234567890` would be written as another number with no word said.
 * Cheap for the usual cell: only a text longer than 15 characters is looked at.
 */
function exact(text: string, value: number, expected: string): Coerced {
  if (text.length <= EXACT_DIGITS) return { ok: true, value };
  const digits = significant(text);
  if (
    digits.length <= EXACT_DIGITS ||
    significant(value.toPrecision(Math.min(digits.length, 100))) === digits
  )
    return { ok: true, value };
  const past = Number.isInteger(value) && Math.abs(value) > Number.MAX_SAFE_INTEGER ? 'past 2^53, ' : '';
  return fail(
    `${expected} of at most ${EXACT_DIGITS} significant digits (this one cannot be written exactly: ${past}it would become ${value})`,
  );
}

/** The significant digits of a number's text: no sign, mark, exponent, leading or trailing zeros. */
function significant(text: string): string {
  const mantissa = text.replace(/^[+-]/, '').replace(/e.*$/i, '');
  return mantissa.replace(/[.,]/g, '').replace(/^0+/, '').replace(/0+$/, '');
}

/**
 * The usual number cell (`12`, `-3.5`, `12,5`) read in one pass, without the rules below; undefined for
 * anything else, including `1,234` (a thousand or a decimal?), which the rules below refuse with a reason.
 */
export function plainNumber(text: string): number | undefined {
  const n = text.length;
  let i = 0;
  const first = text.charCodeAt(0);
  if (first === 43 /* + */ || first === 45 /* - */) i = 1;
  const intStart = i;
  // The digits as one whole number (exact below 2^53): the value is that number over a power of ten, one
  // correctly rounded division, so it equals Number(text) without building a string for a decimal comma.
  let whole = 0;
  for (; i < n; i += 1) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) break;
    whole = whole * 10 + (code - 48);
  }
  const intDigits = i - intStart;
  if (intDigits === 0) return undefined;
  const sign = first === 45 ? -1 : 1;
  if (i === n) return whole <= Number.MAX_SAFE_INTEGER ? sign * whole : Number(text);
  const mark = text.charCodeAt(i);
  if (mark !== 44 /* , */ && mark !== 46 /* . */) return undefined;
  const at = i;
  for (i += 1; i < n; i += 1) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) break;
    whole = whole * 10 + (code - 48);
  }
  const fraction = i - at - 1;
  if (i !== n || fraction === 0) return undefined;
  if (mark === 44 && fraction === 3 && intDigits <= 3 && text.charCodeAt(intStart) !== 48 /* 0 */)
    return undefined;
  if (whole <= Number.MAX_SAFE_INTEGER && fraction <= 22) return (sign * whole) / 10 ** fraction;
  return Number(mark === 46 ? text : `${text.slice(0, at)}.${text.slice(at + 1)}`);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

const TRUE = new Set(['1', 'yes', 'true', 'y', 'on']);
const FALSE = new Set(['0', 'no', 'false', 'n', 'off']);

function toBoolean(cell: Exclude<Cell, Cell[]>): Coerced {
  if (typeof cell === 'boolean') return { ok: true, value: cell };
  const text = String(cell).trim().toLowerCase();
  if (TRUE.has(text)) return { ok: true, value: true };
  if (FALSE.has(text)) return { ok: true, value: false };
  return fail('yes or no (1/0, true/false)');
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

interface Parts {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
  /** Offset in minutes when the text carried one (Z = 0). */
  offset?: number;
}

/** How the XLSX reader gives a date cell: ISO 8601, milliseconds, no zone. */
const WORKBOOK_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

function toDate(cell: Exclude<Cell, Cell[]>, type: 'date' | 'date-time', rule: ConversionRule): Coerced {
  const expected =
    type === 'date' ? 'a date (YYYY-MM-DD)' : 'a date and time (YYYY-MM-DD hh:mm[:ss], Z or an offset)';
  if (typeof cell !== 'string') return fail(expected);
  const text = cell.trim();
  // The usual date cell is already in its canonical form: checked in place and given back as it is.
  if (type === 'date' && !rule.dateFormat && text.length === 10) {
    const ok = isoDay(text);
    if (ok !== undefined) return ok ? { ok: true, value: text } : fail(expected);
  }
  // The usual date-time cell, canonical UTC: given back as it is (without a zero fraction, as below).
  if (type === 'date-time' && !rule.dateFormat && isCanonicalDateTime(text)) {
    return { ok: true, value: text.length === 24 && text.endsWith('.000Z') ? `${text.slice(0, 19)}Z` : text };
  }
  // A workbook's date cell (`2025-06-01T10:00:00.000`, no zone) under a `dateFormat`, which lays out
  // the column's text cells: read as the workbook gives it, in the column's `timezone`.
  const parts = rule.dateFormat
    ? (parseLayout(text, rule.dateFormat) ?? (WORKBOOK_DATE.test(text) ? parseIso(text) : undefined))
    : parseIso(text);
  if (!parts || !validParts(parts))
    return fail(rule.dateFormat ? `a date laid out as ${rule.dateFormat}` : expected);
  if (type === 'date') {
    return { ok: true, value: `${pad(parts.y, 4)}-${pad(parts.mo)}-${pad(parts.d)}` };
  }
  const wall = utcWall(parts);
  const utc =
    parts.offset !== undefined ? wall - parts.offset * 60_000 : localToUtc(wall, rule.timezone ?? 'UTC');
  return { ok: true, value: new Date(utc).toISOString().replace('.000Z', 'Z') };
}

/** The wall-clock time of the parts as if in UTC (years 0-99 too, which `Date.UTC` reads as 1900-1999). */
function utcWall(p: Parts): number {
  const date = new Date(0);
  date.setUTCFullYear(p.y, p.mo - 1, p.d);
  date.setUTCHours(p.h, p.mi, p.s, p.ms);
  return date.getTime();
}

function parseIso(text: string): Parts | undefined {
  const date = ISO_DATE.exec(text);
  if (date) return { y: +date[1]!, mo: +date[2]!, d: +date[3]!, h: 0, mi: 0, s: 0, ms: 0 };
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return undefined;
  const parts: Parts = {
    y: +m[1]!,
    mo: +m[2]!,
    d: +m[3]!,
    h: +m[4]!,
    mi: +m[5]!,
    s: m[6] ? +m[6] : 0,
    ms: m[7] ? Math.round(+`0.${m[7]}` * 1000) : 0,
  };
  const zone = m[8];
  if (zone) {
    if (zone.toUpperCase() === 'Z') parts.offset = 0;
    else {
      const sign = zone.startsWith('-') ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      const hours = +digits.slice(0, 2);
      const minutes = +digits.slice(2);
      // RFC 3339 offsets go up to 23:59: `+99:99` is no offset, not a shift of four days.
      if (hours > 23 || minutes > 59) return undefined;
      parts.offset = sign * (hours * 60 + minutes);
    }
  }
  return parts;
}

/** Reads `DD/MM/YYYY HH:mm` style layouts: each token is a run of digits, everything else must match. */
function parseLayout(text: string, layout: string): Parts | undefined {
  const tokens = ['YYYY', 'MM', 'DD', 'HH', 'mm', 'ss'] as const;
  const order: string[] = [];
  let pattern = '';
  for (let i = 0; i < layout.length; ) {
    const token = tokens.find((t) => layout.startsWith(t, i));
    if (token) {
      order.push(token);
      pattern += token === 'YYYY' ? '(\\d{4})' : '(\\d{1,2})';
      i += token.length;
    } else {
      pattern += layout[i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  const m = new RegExp(`^${pattern}$`).exec(text);
  if (!m) return undefined;
  const get = (t: string) => {
    const at = order.indexOf(t);
    return at < 0 ? 0 : +m[at + 1]!;
  };
  return { y: get('YYYY'), mo: get('MM'), d: get('DD'), h: get('HH'), mi: get('mm'), s: get('ss'), ms: 0 };
}

function validParts(p: Parts): boolean {
  if (p.mo < 1 || p.mo > 12 || p.d < 1 || p.h > 23 || p.mi > 59 || p.s > 59) return false;
  return p.d <= daysInMonth(p.y, p.mo);
}

/** The UTC instant of a wall-clock time in an IANA zone (two passes settle DST edges). */
export function localToUtc(wallAsUtc: number, timeZone: string): number {
  let guess = wallAsUtc;
  for (let i = 0; i < 2; i += 1) guess = wallAsUtc - zoneOffset(guess, timeZone);
  return guess;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function zoneOffset(instant: number, timeZone: string): number {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(instant)))
    if (part.type !== 'literal') p[part.type] = +part.value;
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
