// Numbers at Excel's precision: Excel keeps 15 significant digits of a number (what it shows, and what
// a workbook holds once Excel has saved it). One rule shared by the XLSX export, which writes numbers so
// that Excel changes none of them, and the import's change detection, which reads two decimals that
// agree in those 15 digits as the same value, so an untouched export comes back unchanged after Excel
// has opened and saved it (docs/export.md, docs/import.md).

/** The significant digits Excel keeps of a number. */
export const EXCEL_DIGITS = 15;

/** A number as Excel holds it: rounded to 15 significant digits (`19.990000000000002` -> `19.99`). */
export function atExcelPrecision(n: number): number {
  if (!Number.isFinite(n) || n === 0) return n;
  return Number(n.toPrecision(EXCEL_DIGITS));
}

/**
 * Two decimals that are the same number to a person and to Excel: equal, or equal at 15 significant
 * digits. Two whole numbers are compared exactly: the 16th digit of a whole number is information (a
 * code, an id), and the XLSX export writes such numbers as text so that Excel keeps it (`xlsxNumber`).
 */
export function sameAtExcelPrecision(a: number, b: number): boolean {
  if (a === b) return true;
  if (Number.isInteger(a) && Number.isInteger(b)) return false;
  return atExcelPrecision(a) === atExcelPrecision(b);
}

/**
 * A number as the XLSX export writes it, so that Excel neither shows nor saves another one:
 * - at most 15 significant digits: the number;
 * - a whole number of more (`1234567890123456`): its digits as text, which Excel keeps as they are (as
 *   a number it would save `1234567890123450`); the import reads the text as the number;
 * - any other number of more (`19.990000000000002`, a float artefact): rounded to 15 significant digits,
 *   the number Excel shows and would save anyway, so the file holds what a person sees, the same before
 *   and after Excel saved it.
 */
export function xlsxNumber(n: number): number | string {
  const rounded = atExcelPrecision(n);
  if (rounded === n) return n;
  return Number.isInteger(n) ? String(n) : rounded;
}
