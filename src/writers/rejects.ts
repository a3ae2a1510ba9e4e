// The rejects file: the rows that failed, ready to fix and import again as they are. It keeps the source's
// format (CSV for CSV, XLSX for XLSX, NDJSON for JSON and NDJSON), its header and columns in order, its
// delimiter and its encoding (UTF-8 CSV with a BOM, so Excel reads it right), an XLSX source's sheet
// name, and adds `_error` (what was wrong) and `_source` (`line 17`, `sheet Products row 17`): columns
// every import ignores (`REJECTS_COLUMNS`), with or without --strict.
import { openOutputStream, workbookWritten } from '../files.js';
import type { Cell, Location } from '../readers/types.js';
import { encodeXlsxText } from './xlsx-text.js';

/** Where a row was: `line 17` or `sheet Products row 17`, and an XLSX row's sheet. */
export type RowPlace = Pick<Location, 'text' | 'sheet'>;

import { extname } from 'node:path';
import type ExcelJS from 'exceljs';
import { formatFromExtension, openLineFile } from './lines.js';
import { csvRejectsText, ERROR_COLUMN, SOURCE_COLUMN, text, withRejectsColumns } from './rejects-text.js';

export type RejectsFormat = 'csv' | 'xlsx' | 'ndjson';

/** Each sheet's rejects go to a file of their own: `rejects.xlsx` -> `rejects-products.xlsx`. */
export function rejectsFileOf(file: string, sheet: string): string {
  const extension = extname(file);
  const safe = sheet.replace(/[^\p{L}\p{N}_.-]+/gu, '-');
  return `${file.slice(0, file.length - extension.length)}-${safe}${extension}`;
}

export interface RejectsWriter {
  /** A promise only when the caller must wait (a chunk went to the disk). */
  write(cells: Record<string, Cell>, error: string, location: RowPlace): Promise<void> | undefined;
  /** CSV: `rows` lines already made by `csvRejectsText`, written as they are. */
  writeText?(lines: string, rows: number): Promise<void> | undefined;
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
  /** The input's header, in its order (CSV/XLSX): the columns written, then `_error` and `_source`. */
  headers: readonly string[];
  /** CSV: the input's delimiter, so the file reads back like the input. */
  delimiter?: string;
  /** CSV: the input's text encoding (default UTF-8, written with a BOM). */
  encoding?: string;
  /** CSV: prefix text a spreadsheet would run as a formula (default true; off for raw imports). */
  guard?: boolean;
}

/** The source as the reader opened it: what the rejects file copies. */
export interface RejectsSource {
  format: string;
  headers: readonly string[];
  delimiter?: string | undefined;
  encoding?: string | undefined;
}

/** The rejects file of a source: in the format its name or the source asks for, with the source's columns. */
export function openRejectsFor(
  path: string,
  source: RejectsSource,
  options: { guard?: boolean } = {},
): Promise<RejectsWriter> {
  const format = rejectsFormatFor(source.format, path);
  // A CSV rejects file of a CSV source speaks its dialect; of another source, plain UTF-8 and commas.
  const sameKind = format === source.format;
  return openRejects(path, {
    format,
    headers: source.headers,
    ...(sameKind && source.delimiter !== undefined && { delimiter: source.delimiter }),
    ...(sameKind && source.encoding !== undefined && { encoding: source.encoding }),
    ...(options.guard !== undefined && { guard: options.guard }),
  });
}

export async function openRejects(path: string, options: RejectsOptions): Promise<RejectsWriter> {
  if (options.format === 'xlsx') return openXlsxRejects(path, options);
  if (options.format === 'ndjson') {
    const file = await openLineFile(path);
    let count = 0;
    return {
      write(cells, error, location) {
        count += 1;
        const record = { ...unflatten(cells), [ERROR_COLUMN]: error, [SOURCE_COLUMN]: location.text };
        return file.append(`${JSON.stringify(record)}\n`);
      },
      close: () => file.close(),
      get count() {
        return count;
      },
    };
  }
  const encoding = options.encoding ?? 'utf-8';
  // UTF-8 and UTF-16 files start with a byte order mark: Excel reads UTF-8 without one as ANSI.
  const file = await openLineFile(path, { encoding, bom: /^utf-?(8|16)/i.test(encoding) });
  const text = csvRejectsText(options);
  await file.write(text.header);
  let count = 0;
  return {
    write(cells, error, location) {
      count += 1;
      return file.append(text.line(cells, error, location));
    },
    writeText(lines, rows) {
      count += rows;
      return file.append(lines);
    },
    close: () => file.close(),
    get count() {
      return count;
    },
  };
}

async function openXlsxRejects(path: string, options: RejectsOptions): Promise<RejectsWriter> {
  const headers = withRejectsColumns(options.headers);
  // exceljs is loaded only for workbooks: it takes about 20 MB of memory.
  const { default: ExcelJS } = await import('exceljs');
  const { out, failure } = await openOutputStream(path);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  // The sheet takes the name of the rows' sheet (`--sheet Products` and whole-workbook imports find the
  // rows where they were): it is made at the first row.
  let sheet: ExcelJS.Worksheet | undefined;
  const open = (name: string | undefined) => {
    sheet = workbook.addWorksheet(name ?? 'Rejects', { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.addRow(headers).commit();
    return sheet;
  };
  let count = 0;
  return {
    write(cells, error, location) {
      failure.check();
      count += 1;
      // Numbers and booleans stay typed, so the file reads back as the input did. Text is a text cell,
      // never a formula (see formula.ts).
      (sheet ?? open(location.sheet))
        .addRow(
          headers.map((h) =>
            h === ERROR_COLUMN ? error : h === SOURCE_COLUMN ? location.text : xlsxValue(cells[h]),
          ),
        )
        .commit();
      return undefined;
    },
    async close() {
      (sheet ?? open(undefined)).commit();
      await workbookWritten(workbook.commit(), out, failure);
    },
    get count() {
      return count;
    },
  };
}

function xlsxValue(cell: Cell | undefined): string | number | boolean | null {
  if (cell === undefined || cell === null) return null;
  if (Array.isArray(cell)) return encodeXlsxText(text(cell));
  return typeof cell === 'string' ? encodeXlsxText(cell) : cell;
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
