// The import's per-row report: what happened to every source row, in CSV, JSON Lines or XLSX.
import { closeSync, openSync, writeSync } from 'node:fs';
import { CatalogIoError } from '../errors.js';
import { csvLine, csvRecord, type FileFormat, formatFromExtension } from './lines.js';
import { openTable, type TableColumn, type TableWriter } from './table.js';

export interface ImportReportLine {
  location: string;
  entity: string;
  ref: string;
  /** created | updated | unchanged | deleted | skipped | invalid | failed | not-attempted (plans: would-create | would-update | would-delete). */
  outcome: string;
  id: string;
  /** HTTP status of the write, or of the refusal. */
  status: string;
  /** Changed fields (`prod_title_fr`); in a plan, `field: old -> new`. */
  changed: string;
  field: string;
  column: string;
  value: string;
  message: string;
  /** Each image/file URL of the row and what happened to it: registered, reused, cached, failed. */
  assets: string;
}

export type ImportReportWriter = TableWriter<keyof ImportReportLine>;

const IMPORT_REPORT_COLUMNS: ReadonlyArray<TableColumn<keyof ImportReportLine>> = [
  { key: 'location', width: 22 },
  { key: 'entity', width: 12 },
  { key: 'ref', width: 20 },
  { key: 'outcome', width: 12 },
  { key: 'id', width: 8 },
  { key: 'status', width: 7 },
  { key: 'changed', width: 30 },
  { key: 'field', width: 18 },
  { key: 'column', width: 18 },
  { key: 'value', width: 20 },
  { key: 'message', width: 80 },
  { key: 'assets', width: 40 },
];

const FILL: Record<string, string> = {
  failed: 'FFFFC7CE',
  'not-attempted': 'FFFFC7CE',
  invalid: 'FFFFC7CE',
  created: 'FFC6EFCE',
  updated: 'FFFFEB9C',
};

export function openImportReport(path: string): Promise<ImportReportWriter> {
  return openTable(
    path,
    { columns: IMPORT_REPORT_COLUMNS, highlight: (line) => FILL[line.outcome] },
    'Report file',
  );
}

/**
 * The report of a journaled run. CSV and JSON Lines are appended as rows finish and written out at
 * every `flush()` (a killed run leaves a valid file up to its last whole line); an XLSX workbook
 * cannot be appended, so it is written at the end, from the journal (`writeAll`).
 */
export interface RunReportWriter {
  readonly format: FileFormat;
  /** Buffers a line (line formats; an XLSX report takes its lines from the journal at the end). */
  write(line: ImportReportLine): void;
  flush(): void;
  close(): void;
}

export function openRunReport(path: string): RunReportWriter {
  const format = formatFromExtension(path);
  if (!format) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `Report file ${path}: use a .csv, .jsonl or .xlsx extension to choose its format`,
    );
  }
  if (format === 'xlsx') return { format, write() {}, flush() {}, close() {} };
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (cause) {
    throw new CatalogIoError('CONFIG_INVALID', `Cannot write ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
  const keys = IMPORT_REPORT_COLUMNS.map((c) => c.key);
  // The header goes out at once: even a run killed before its first row leaves a valid CSV.
  if (format === 'csv') writeSync(fd, csvLine(keys));
  let buffer = '';
  let closed = false;
  const flush = () => {
    if (closed || buffer === '') return;
    writeSync(fd, buffer);
    buffer = '';
  };
  return {
    format,
    write(line) {
      buffer += format === 'csv' ? csvRecord(line, keys) : `${JSON.stringify(line, keys)}\n`;
      if (buffer.length >= 64 * 1024) flush();
    },
    flush,
    close() {
      flush();
      if (!closed) closeSync(fd);
      closed = true;
    },
  };
}

/** Writes a whole report from its lines (the journal of a run): any format, XLSX included. */
export async function writeImportReport(path: string, lines: AsyncIterable<ImportReportLine>): Promise<void> {
  const table = await openImportReport(path);
  try {
    for await (const line of lines) await table.write(line);
  } finally {
    await table.close();
  }
}
