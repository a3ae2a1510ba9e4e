// Spreadsheet injection (OWASP "CSV injection"): a text cell that starts with = + - @, a tab or a
// carriage return can be run as a formula by a spreadsheet. The CSV export prefixes such cells
// with a single quote (papaparse's escapeFormulae with this pattern); the import reads a quote
// followed by one of those characters back as the original text, so a guarded export still
// re-imports unchanged.

/**
 * The cells the guard prefixes: those that start with a trigger, and those that start with quotes
 * followed by one (`'=x` is written `''=x`), so that `unneutralise` restores every text exactly.
 * No `.*$`: papaparse's default pattern misses a multi-line cell that starts with `=`.
 */
export const FORMULA_TRIGGER = /^'*[=+\-@\t\r]/;

/** The inverse of the export's guard, for the import side: removes the one quote the guard added. */
export function unneutralise(text: string): string {
  return text.length > 1 && text[0] === "'" && FORMULA_TRIGGER.test(text.slice(1)) ? text.slice(1) : text;
}
