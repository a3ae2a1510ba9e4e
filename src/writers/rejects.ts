// The rejects file: the invalid rows in the input's own columns plus `_error`, in the input's format
// (CSV for CSV, XLSX for XLSX, NDJSON for JSON and NDJSON), ready to fix and run again.
import type { Cell } from '../readers/types.js';
import { csvLine, formatFromExtension, openLineFile } from './lines.js';

export type RejectsFormat = 'csv' | 'xlsx' | 'ndjson';

export const ERROR_COLUMN = '_error';

export interface RejectsWriter {
  /** A promise only when the caller must wait (a chunk went to the disk). */
  write(cells: Record<string, Cell>, error: string): Promise<void> | undefined;
  close(): Promise<void>;
  readonly count: number;
}

/**
 * The rejects format: the one the file's name asks for (`.csv`, `.xlsx`, `.jsonl` / `.ndjson`), else the
 * input's, JSON arrays becoming NDJSON (one record per line). A `rejects.csv` is never an XLSX in disguise.
 */
export function rejectsFormatFor(inputFormat: string, path?: string): RejectsFormat {
  const named = path === undefined ? undefined : formatFromExtension(path);
  if (named) return named === 'jsonl' ? 'ndjson' : named;
  if (inputFormat === 'xlsx') return 'xlsx';
  if (inputFormat === 'json' || inputFormat === 'ndjson') return 'ndjson';
  return 'csv';
}

export interface RejectsOptions {
  format: RejectsFormat;
  /** The input's header, in its order (CSV/XLSX): the columns written, then `_error`. */
  headers: readonly string[];
  /** CSV: the input's delimiter, so the file reads back like the input. */
  delimiter?: string;
}

/** The rejects file of a source: in the format its name or the source asks for, with the source's columns. */
export function openRejectsFor(
  path: string,
  source: { format: string; headers: readonly string[]; delimiter?: string | undefined },
): Promise<RejectsWriter> {
  return openRejects(path, {
    format: rejectsFormatFor(source.format, path),
    headers: source.headers,
    ...(source.delimiter !== undefined && { delimiter: source.delimiter }),
  });
}

export async function openRejects(path: string, options: RejectsOptions): Promise<RejectsWriter> {
  if (options.format === 'xlsx') return openXlsxRejects(path, options.headers);
  const file = await openLineFile(path);
  let count = 0;
  if (options.format === 'ndjson') {
    return {
      write(cells, error) {
        count += 1;
        return file.append(`${JSON.stringify({ ...unflatten(cells), [ERROR_COLUMN]: error })}\n`);
      },
      close: () => file.close(),
      get count() {
        return count;
      },
    };
  }
  const headers = [...options.headers.filter((h) => h !== ERROR_COLUMN), ERROR_COLUMN];
  const delimiter = options.delimiter ?? ',';
  await file.write(csvLine(headers, delimiter));
  return {
    write(cells, error) {
      count += 1;
      const values = headers.map((h) => (h === ERROR_COLUMN ? error : text(cells[h])));
      return file.append(csvLine(values, delimiter));
    },
    close: () => file.close(),
    get count() {
      return count;
    },
  };
}

async function openXlsxRejects(path: string, inputHeaders: readonly string[]): Promise<RejectsWriter> {
  const headers = [...inputHeaders.filter((h) => h !== ERROR_COLUMN), ERROR_COLUMN];
  // exceljs is loaded only for workbooks: it takes about 20 MB of memory.
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: path,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet('Rejects', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.addRow(headers).commit();
  let count = 0;
  return {
    write(cells, error) {
      count += 1;
      // Numbers and booleans stay typed, so the file reads back as the input did.
      sheet.addRow(headers.map((h) => (h === ERROR_COLUMN ? error : xlsxValue(cells[h])))).commit();
      return undefined;
    },
    async close() {
      sheet.commit();
      await workbook.commit();
    },
    get count() {
      return count;
    },
  };
}

function text(cell: Cell | undefined): string {
  if (cell === undefined || cell === null) return '';
  if (Array.isArray(cell)) return cell.map(text).join('|');
  return String(cell);
}

function xlsxValue(cell: Cell | undefined): string | number | boolean | null {
  if (cell === undefined || cell === null) return null;
  if (Array.isArray(cell)) return text(cell);
  return cell;
}

/** `{"dimensions.width": 3}` -> `{"dimensions": {"width": 3}}`: the reader flattened nested objects. */
export function unflatten(cells: Record<string, Cell>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(cells)) {
    const parts = key.split('.');
    let at: Record<string, unknown> = out;
    let ok = true;
    for (const part of parts.slice(0, -1)) {
      const next = at[part];
      if (next === undefined) at[part] = {};
      else if (next === null || typeof next !== 'object' || Array.isArray(next)) {
        ok = false;
        break;
      }
      at = at[part] as Record<string, unknown>;
    }
    if (ok) at[parts[parts.length - 1]!] = value;
    else out[key] = value;
  }
  return out;
}
