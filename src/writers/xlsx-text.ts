// Text in an XLSX cell as the format spells it (ECMA-376 ST_Xstring): a character XML cannot hold, or
// that XML readers change (a CR becomes LF), is written `_xHHHH_`, and a literal `_xHHHH_` in the text is
// written with its underscore escaped (`_x005F_xHHHH_`). Excel reads and writes cells so; the reader
// (readers/xlsx) decodes them, so a workbook round trip keeps every text exactly.

/**
 * The most characters Excel keeps in a cell: a longer text is cut when the workbook is saved. The export
 * warns of a longer one; the import and validate, of a cell of exactly this length (it may have been cut).
 */
export const EXCEL_CELL_CHARS = 32_767;

const ESCAPE_LIKE = /_(?=x[0-9A-Fa-f]{4}_)/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters encoded
const UNWRITABLE = /[\u0000-\u0008\u000b-\u001f\ufffe\uffff]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the same, to test for
const HAS_UNWRITABLE = /[\u0000-\u0008\u000b-\u001f\ufffe\uffff]/;
const ENCODED = /_x([0-9A-Fa-f]{4})_/g;

/** A text as an XLSX cell holds it. Most texts come back as they are. */
export function encodeXlsxText(text: string): string {
  if (!text.includes('_x') && !HAS_UNWRITABLE.test(text)) return text;
  return text
    .replace(ESCAPE_LIKE, '_x005F_')
    .replace(UNWRITABLE, (c) => `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`);
}

/** The text an XLSX cell means: `_xHHHH_` decoded (`_x005F_` is the underscore). */
export function decodeXlsxText(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(ENCODED, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
