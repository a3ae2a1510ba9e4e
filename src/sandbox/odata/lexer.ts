// Splits $filter text into tokens. Literals are recognised here (strings, numbers, dates, date-times)
// so the parser only deals with shapes; keywords stay words because OData keywords are case-sensitive
// and a word's meaning depends on where it stands.

import { syntaxError } from './messages.js';

export type Token =
  | { kind: 'lparen' | 'rparen' | 'comma' | 'slash' | 'end'; pos: number; text: string }
  | { kind: 'word'; pos: number; text: string }
  | { kind: 'string'; pos: number; text: string; value: string }
  | { kind: 'number'; pos: number; text: string; value: number | bigint }
  | { kind: 'date' | 'datetime'; pos: number; text: string; value: Date };

export interface LexOptions {
  allowOffsets: boolean;
}

const WORD = /[\p{L}_][\p{L}\p{N}_.-]*/uy;
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
const DATE_TIME =
  /(-?\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?/y;
const WORD_CHAR = /[\p{L}\p{N}_]/u;
const SPACE = /\s/;

/** Hints for characters people type from other query languages. */
const CHARACTER_HINTS: Record<string, string> = {
  '=': "comparisons are written with 'eq', 'ne', 'gt', 'ge', 'lt', 'le'",
  '!': "use 'ne' or 'not'",
  '<': "use 'lt' or 'le'",
  '>': "use 'gt' or 'ge'",
  '&': "use 'and'",
  '|': "use 'or'",
  '"': "string values are enclosed in single quotes ('text')",
};

export function tokenize(text: string, options: LexOptions, parameter = '$filter'): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  const fail = (at: number, detail: string) => syntaxError(parameter, text, at, detail);

  while (pos < text.length) {
    const ch = text[pos]!;
    if (SPACE.test(ch)) {
      pos++;
      continue;
    }
    const single =
      ch === '(' ? 'lparen' : ch === ')' ? 'rparen' : ch === ',' ? 'comma' : ch === '/' ? 'slash' : null;
    if (single) {
      tokens.push({ kind: single, pos, text: ch });
      pos++;
      continue;
    }
    if (ch === "'") {
      const token = readString(text, pos, fail);
      tokens.push(token);
      pos += token.text.length;
      continue;
    }
    if (ch === '-' || (ch >= '0' && ch <= '9')) {
      const token = readDateOrNumber(text, pos, options, fail);
      tokens.push(token);
      pos += token.text.length;
      if (pos < text.length && WORD_CHAR.test(text[pos]!)) {
        throw fail(pos, `unexpected '${text[pos]}' right after the value '${token.text}'.`);
      }
      continue;
    }
    WORD.lastIndex = pos;
    const word = WORD.exec(text);
    if (word) {
      tokens.push({ kind: 'word', pos, text: word[0] });
      pos += word[0].length;
      continue;
    }
    const hint = CHARACTER_HINTS[ch];
    throw fail(pos, `unexpected character '${ch}'${hint ? `; ${hint}` : ''}.`);
  }
  tokens.push({ kind: 'end', pos: text.length, text: '' });
  return tokens;
}

function readString(text: string, start: number, fail: (at: number, detail: string) => Error): Token {
  let value = '';
  let pos = start + 1;
  for (;;) {
    const close = text.indexOf("'", pos);
    if (close < 0) throw fail(start, 'the string starting here has no closing quote.');
    value += text.slice(pos, close);
    if (text[close + 1] === "'") {
      value += "'";
      pos = close + 2;
      continue;
    }
    return { kind: 'string', pos: start, text: text.slice(start, close + 1), value };
  }
}

function readDateOrNumber(
  text: string,
  start: number,
  options: LexOptions,
  fail: (at: number, detail: string) => Error,
): Token {
  DATE_TIME.lastIndex = start;
  const date = DATE_TIME.exec(text);
  if (date) {
    const found = date[0];
    const [, y, mo, d, h, mi, s, frac, zone] = date;
    if (h !== undefined && zone === undefined) {
      const plusDecoded = /^ \d{2}:\d{2}/.test(text.slice(start + found.length));
      throw fail(
        start,
        `the date-time '${found}' has no time zone; write it in UTC ending with 'Z'` +
          (plusDecoded ? " (a '+' in a URL must be encoded as %2B, and offsets are not accepted)." : '.'),
      );
    }
    if (zone !== undefined && zone !== 'Z' && !options.allowOffsets) {
      throw fail(
        start,
        `the date-time '${found}' has the offset '${zone}'; only UTC values ending with 'Z' are accepted: convert local times to UTC first.`,
      );
    }
    const value = buildDate(y!, mo!, d!, h, mi, s, frac, zone);
    if (!value) throw fail(start, `'${found}' is not a valid ${h === undefined ? 'date' : 'date-time'}.`);
    return { kind: h === undefined ? 'date' : 'datetime', pos: start, text: found, value };
  }
  NUMBER.lastIndex = start;
  const number = NUMBER.exec(text);
  if (!number) throw fail(start, `expected a number after '-'.`);
  const found = number[0];
  const isInteger = number[1] === undefined && number[2] === undefined;
  const asNumber = Number(found);
  if (isInteger && !Number.isSafeInteger(asNumber)) {
    return { kind: 'number', pos: start, text: found, value: BigInt(found) };
  }
  if (!Number.isFinite(asNumber)) throw fail(start, `the number '${found}' is out of range.`);
  return { kind: 'number', pos: start, text: found, value: asNumber };
}

/** Builds the UTC instant, or undefined when a component is out of range (month 13, 31 April, 25:00). */
function buildDate(
  y: string,
  mo: string,
  d: string,
  h: string | undefined,
  mi: string | undefined,
  s: string | undefined,
  frac: string | undefined,
  zone: string | undefined,
): Date | undefined {
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  if (date.getUTCDate() !== day) return undefined;
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const offsetHours = Number(zone.slice(1, 3));
    const offsetMinutes = Number(zone.slice(4, 6));
    if (offsetHours > 14 || offsetMinutes > 59) return undefined;
    date.setTime(date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  }
  return Number.isNaN(date.getTime()) ? undefined : date;
}
