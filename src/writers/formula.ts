// The spreadsheet-injection guard (OWASP "CSV injection"), one rule for every file we write. A text cell
// that starts with = + - @, a tab or a carriage return can be run as a formula by a spreadsheet that
// opens a CSV file (a line feed is guarded too: the CSV reader reads a CR as one, and `'<CR>` must still
// come back as the CR it guarded): every CSV writer (reports, rejects, export; `csv.ts`) prefixes such text with a single
// quote, header names included (a rejects file copies the source's header), and the import reads a
// quote followed by one of those characters back as the original text, cells and header names alike,
// so a guarded file re-imports unchanged. XLSX writers (exceljs) write a string as a text cell, which a
// spreadsheet shows and never runs, whatever it starts with: their text needs no prefix.

/**
 * The cells the guard prefixes: those that start with a trigger, and those that start with quotes
 * followed by one (`'=x` is written `''=x`), so that `unneutralise` restores every text exactly.
 */
export const FORMULA_TRIGGER = /^'*[=+\-@\t\r\n]/;

/** `=HYPERLINK(...)` -> `'=HYPERLINK(...)`; any other text as it is. */
export function guardFormula(text: string): string {
  // Most cells start with a letter or digit: one character code settles them.
  const c = text.charCodeAt(0);
  if (c !== 61 && c !== 43 && c !== 45 && c !== 64 && c !== 9 && c !== 13 && c !== 10 && c !== 39)
    return text;
  return FORMULA_TRIGGER.test(text) ? `'${text}` : text;
}

/** The inverse of the guard, for the import side: removes the one quote the guard added. */
export function unneutralise(text: string): string {
  return text.length > 1 && text[0] === "'" && FORMULA_TRIGGER.test(text.slice(1)) ? text.slice(1) : text;
}
