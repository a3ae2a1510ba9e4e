// JSON numbers a double does not hold as written. JSON.parse (and stream-json's assembler) give every
// number as a double, which holds about 15 significant digits: `12345678901234567890` (an EAN, a GTIN,
// an id written as a bare number) becomes 12345678901234567000, `9007199254740993` (past 2^53)
// 9007199254740992, and `1e400` Infinity, with no word said. Such a number is given as its exact text
// instead: a string field then gets the digits as written, and a number field says, through the
// coercion's own check (mappers/coerce.ts exact()), that it cannot be written exactly.

/** A number text of at most this many characters has at most 15 significant digits: a double keeps them. */
const SAFE_CHARS = 15;

/** Smallest normal double: below it (and at zero) a short text may have lost digits (`1e-400` is 0). */
const MIN_NORMAL = 2.2250738585072014e-308;

/**
 * Text that may hold a number of 16 significant digits or more: 16 digits and dots in a row. Nearly every
 * chunk of a feed has none, and needs no closer look. Written out rather than `[\d.]{16}`: V8 then skips
 * through the text (about 0.2 ns a character) instead of trying each place (ten times that, as much as
 * JSON.parse itself). An exponent past the double's range in a short text (`1e400`) is not looked for.
 */
export const MAY_HOLD_LONG_NUMBER = new RegExp('[\\d.]'.repeat(16));

/** A JSON number token, whole (only such a token is given as text: invalid JSON stays invalid). */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The number a JSON number token stands for, or its exact text when the double would not give its
 * digits back (`String(value)`, what a string field and a report would show). Cheap for the usual
 * token: only a text longer than 15 characters, or a value at the ends of the double's range, is looked at.
 */
export function numberOrText(text: string): number | string {
  const value = Number(text);
  if (value === 0 && text === '0') return value;
  if (text.length <= SAFE_CHARS && value < Number.MAX_VALUE && value > -Number.MAX_VALUE) {
    if (value >= MIN_NORMAL || value <= -MIN_NORMAL) return value;
  }
  return significant(String(value)) === significant(text) ? value : text;
}

/** The significant digits of a number's text: no sign, dot, exponent, leading or trailing zeros. */
function significant(text: string): string {
  let end = text.length;
  const exponent = text.search(/[eE]/);
  if (exponent !== -1) end = exponent;
  let digits = '';
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) digits += text[i];
    else if (code !== 46 /* . */ && code !== 45 /* - */ && code !== 43 /* + */) return text; // Infinity, NaN
  }
  let start = 0;
  while (start < digits.length && digits.charCodeAt(start) === 48) start++;
  let stop = digits.length;
  while (stop > start && digits.charCodeAt(stop - 1) === 48) stop--;
  return digits.slice(start, stop);
}

/**
 * One line of JSON with each number token `numberOrText` keeps as text written as a JSON string (its
 * exact text between quotes), so that JSON.parse gives that text; undefined when the line has none.
 * Numbers are found outside strings only (a string's digits are already text).
 */
export function quoteLongNumbers(line: string): string | undefined {
  let out: string | undefined;
  let copied = 0;
  let inString = false;
  const n = line.length;
  for (let i = 0; i < n; i++) {
    const code = line.charCodeAt(i);
    if (inString) {
      if (code === 0x5c /* \ */) i++;
      else if (code === 0x22 /* " */) inString = false;
      continue;
    }
    if (code === 0x22) {
      inString = true;
      continue;
    }
    if (code !== 0x2d /* - */ && (code < 48 || code > 57)) continue;
    let end = i + 1;
    while (end < n && isNumberChar(line.charCodeAt(end))) end++;
    const token = line.slice(i, end);
    if (typeof numberOrText(token) === 'string' && JSON_NUMBER.test(token)) {
      out = `${out ?? ''}${line.slice(copied, i)}"${token}"`;
      copied = end;
    }
    i = end - 1;
  }
  return out === undefined ? undefined : out + line.slice(copied);
}

function isNumberChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    code === 46 /* . */ ||
    code === 101 /* e */ ||
    code === 69 /* E */ ||
    code === 43 /* + */ ||
    code === 45 /* - */
  );
}
