// ISO days read in one pass, without a regex: shared by the mapper's readers and the write-schema's test.

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

export function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return leap ? 29 : 28;
}
