// A CSV rejects file's lines as text, apart from the file writer: a part thread makes them without
// loading what writes files.
import type { Cell } from '../readers/types.js';
import { CsvFormat } from './csv.js';
import type { RejectsOptions, RowPlace } from './rejects.js';

export const ERROR_COLUMN = '_error';
export const SOURCE_COLUMN = '_source';
/** The columns a rejects file adds; the mapper ignores them, so the file imports as it is. */
export const REJECTS_COLUMNS: ReadonlySet<string> = new Set([ERROR_COLUMN, SOURCE_COLUMN]);

/** A CSV rejects file's lines as text (before encoding): what `openRejects` writes, line by line or in bulk. */
export function csvRejectsText(options: Pick<RejectsOptions, 'headers' | 'delimiter' | 'guard'>): {
  header: string;
  line(cells: Record<string, Cell>, error: string, location: RowPlace): string;
} {
  const headers = withRejectsColumns(options.headers);
  const csv = new CsvFormat({ delimiter: options.delimiter ?? ',', guard: options.guard ?? true });
  return {
    header: csv.header(headers),
    line: (cells, error, location) =>
      csv.line(
        headers.map((h) =>
          h === ERROR_COLUMN ? error : h === SOURCE_COLUMN ? location.text : text(cells[h]),
        ),
      ),
  };
}

/** The source's columns (without old `_error` / `_source` of a rejects file imported again), then both. */
export function withRejectsColumns(headers: readonly string[]): string[] {
  return [...headers.filter((h) => !REJECTS_COLUMNS.has(h)), ERROR_COLUMN, SOURCE_COLUMN];
}

/** A cell as rejects text: a list joined with `|`, null empty. */
export function text(cell: Cell | undefined): string {
  if (cell === undefined || cell === null) return '';
  if (Array.isArray(cell)) return cell.map(text).join('|');
  return String(cell);
}
