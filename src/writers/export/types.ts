// The export writers' contract: the export runner opens one table per entity and writes rows of
// values aligned with the table's columns. Formats differ only behind this interface.
import { joinItems } from '../list-cell.js';

/** How a column's values are written: numbers as numbers, date-times as dates, codes as text. */
export type ColumnKind = 'text' | 'number' | 'integer' | 'boolean' | 'date-time' | 'date';

export interface ExportColumn {
  header: string;
  kind: ColumnKind;
}

/**
 * A value as the API returned it. A multi-value field is an array: NDJSON keeps it, CSV and XLSX join
 * it with the import's separator (`|`, an item's own `|` escaped: list-cell.ts) so the file re-imports
 * unchanged.
 */
export type ExportValue = string | number | boolean | null | undefined | ReadonlyArray<string | number>;

/** The import's default separator for multi-value cells. */
export const MULTI_SEPARATOR = '|';

export function joinMulti(value: ExportValue): string | number | boolean | null | undefined {
  return Array.isArray(value)
    ? joinItems(value, MULTI_SEPARATOR)
    : (value as string | number | boolean | null | undefined);
}

export interface EntityTableWriter {
  /** `values[i]` belongs to `columns[i]`. Resolves when the row may be followed by another (backpressure). */
  writeRow(values: readonly ExportValue[]): Promise<void>;
  /** Ends the table (an XLSX sheet is committed; a CSV/NDJSON file is closed). */
  close(): Promise<void>;
}

export interface ExportSink {
  /** Opens the table of one entity; tables are written one after another. */
  table(name: string, columns: readonly ExportColumn[]): Promise<EntityTableWriter>;
  /** Finishes every file (each is written as `<name>.partial` and renamed when complete). */
  close(): Promise<void>;
  /** After a failure: stops writing and removes the unfinished files; files already complete stay. */
  abort(): Promise<void>;
  /** The files written, for the summary. */
  readonly files: readonly string[];
  /** What a person should know about the files once closed (an XLSX cell longer than Excel keeps). */
  readonly notes?: readonly string[];
}

export interface CsvOptions {
  /** Start each file with a UTF-8 byte order mark so Excel detects the encoding. */
  bom?: boolean;
  /** Keep cells that start with = + - @ tab or CR as they are (no spreadsheet-injection guard). */
  raw?: boolean;
  delimiter?: string;
}
