// ISO days and date-times read in one pass by character codes, without a regex: shared by the mapper's
// readers and the write-schema's format tests. Only the canonical forms are read here; anything else
// (offsets, a space for the T, other fractions) is left to the full parser or to ajv-formats.

/**
 * `YYYY-MM-DD` in the first ten characters: true for a real day, false for an impossible one
 * (`2025-02-30`), undefined when the text is not laid out that way.
 */
export function isoDay(text: string): boolean | undefined {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return undefined;
  let year = 0;
  let month = 0;
  let day = 0;
  for (let i = 0; i < 10; i += 1) {
    if (i === 4 || i === 7) continue;
    const digit = text.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return undefined;
    if (i < 4) year = year * 10 + digit;
    else if (i < 7) month = month * 10 + digit;
    else day = day * 10 + digit;
  }
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** Exactly `YYYY-MM-DD` naming a real day: what ajv-formats' `date` accepts from ten characters. */
export function isFullDate(text: string): boolean {
  return text.length === 10 && isoDay(text) === true;
}

/**
 * The canonical UTC date-time, `YYYY-MM-DDThh:mm:ssZ` or `YYYY-MM-DDThh:mm:ss.sssZ` (upper-case T and Z),
 * naming a real moment: true. Undefined for anything else, an impossible value included, so that the
 * full parser (or ajv-formats) decides and words it: a leap second `23:59:60` is one of those.
 */
export function isCanonicalDateTime(text: string): true | undefined {
  const n = text.length;
  if (n !== 20 && n !== 24) return undefined;
  if (text.charCodeAt(10) !== 84 /* T */ || text.charCodeAt(n - 1) !== 90 /* Z */) return undefined;
  if (text.charCodeAt(13) !== 58 /* : */ || text.charCodeAt(16) !== 58) return undefined;
  if (n === 24) {
    if (text.charCodeAt(19) !== 46 /* . */) return undefined;
    if (!(digitAt(text, 20) >= 0 && digitAt(text, 21) >= 0 && digitAt(text, 22) >= 0)) return undefined;
  }
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (!(hour <= 23 && minute <= 59 && second <= 59)) return undefined;
  return isoDay(text) === true ? true : undefined;
}

/** The digit at `at` (0-9), or -1. */
function digitAt(text: string, at: number): number {
  const digit = text.charCodeAt(at) - 48;
  return digit >= 0 && digit <= 9 ? digit : -1;
}

/** Two digits at `at` as a number; NaN-free: 99+ when either is not a digit (fails every bound). */
function twoDigits(text: string, at: number): number {
  const tens = digitAt(text, at);
  const ones = digitAt(text, at + 1);
  return tens < 0 || ones < 0 ? 100 : tens * 10 + ones;
}

export function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return leap ? 29 : 28;
}
