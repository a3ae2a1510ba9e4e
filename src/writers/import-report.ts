// The import's per-row report: what happened to every source row, in CSV, JSON Lines or XLSX.
import { closeSync, openSync } from 'node:fs';
import { CatalogIoError } from '../errors.js';
import { cannotWrite, makeFolderOf, writeFailed, writeFully } from '../files.js';
import { REPORT_CSV } from './csv.js';
import { type FileFormat, formatFromExtension } from './lines.js';
import { openTable, type SummaryRows, type TableColumn, type TableWriter } from './table.js';

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
  /** What was written short of the row (an image left out because it could not be registered). */
  warnings: string;
  /** Each image/file URL of the row and what happened to it: registered, reused, cached, failed. */
  assets: string;
}

export type ImportReportWriter = TableWriter<keyof ImportReportLine>;

const IMPORT_REPORT_COLUMNS: ReadonlyArray<TableColumn<keyof ImportReportLine>> = [
  { key: 'location', width: 22 },
  { key: 'entity', width: 12 },
  { key: 'ref', width: 20 },
  { key: 'outcome', width: 12 },
  { key: 'id', width: 8, numeric: true },
  { key: 'status', width: 7, numeric: true },
  { key: 'changed', width: 30 },
  { key: 'field', width: 18 },
  { key: 'column', width: 18 },
  { key: 'value', width: 20 },
  { key: 'message', width: 80 },
  { key: 'warnings', width: 60 },
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
  makeFolderOf(path);
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (cause) {
    throw cannotWrite(path, cause);
  }
  const keys = IMPORT_REPORT_COLUMNS.map((c) => c.key);
  const put = (text: string) => {
    try {
      writeFully(fd, text);
    } catch (cause) {
      throw writeFailed(path, cause);
    }
  };
  // The header goes out at once: even a run killed before its first row leaves a valid CSV.
  if (format === 'csv') put(REPORT_CSV.header(keys));
  let buffer = '';
  let closed = false;
  const flush = () => {
    if (closed || buffer === '') return;
    const text = buffer;
    buffer = '';
    put(text);
  };
  return {
    format,
    write(line) {
      buffer += format === 'csv' ? REPORT_CSV.record(line, keys) : `${JSON.stringify(line, keys)}\n`;
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
export async function writeImportReport(
  path: string,
  lines: AsyncIterable<ImportReportLine> | Iterable<ImportReportLine>,
  summary?: SummaryRows,
): Promise<void> {
  const table = await openImportReport(path);
  let complete = false;
  try {
    for await (const line of lines) await table.write(line);
    complete = true;
  } finally {
    await table.close(complete ? summary : undefined);
  }
}

/**
 * The report of a workbook imported whole: the sheets' reports one after the other, each line led by
 * its sheet's name, so a reader can filter by sheet.
 */
export async function writeWorkbookReport(
  path: string,
  sheets: AsyncIterable<{ sheet: string; lines: AsyncIterable<ImportReportLine> }>,
  summary?: SummaryRows,
): Promise<void> {
  const table = await openTable<keyof ImportReportLine | 'sheet'>(
    path,
    {
      columns: [{ key: 'sheet', width: 14 }, ...IMPORT_REPORT_COLUMNS],
      highlight: (line) => FILL[line.outcome],
    },
    'Report file',
  );
  let complete = false;
  try {
    for await (const { sheet, lines } of sheets)
      for await (const line of lines) await table.write({ sheet, ...line });
    complete = true;
  } finally {
    await table.close(complete ? summary : undefined);
  }
}

/** The Summary sheet of a run's XLSX report: source, counts per outcome, requests, duration. */
export function runSummaryRows(s: {
  source: string;
  entity?: string | undefined;
  state: string;
  rows: number;
  outcomes: Record<string, number>;
  assetWarnings?: number | undefined;
  requests: { total: number; byMethod: Record<string, number> };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  message: string;
}): SummaryRows {
  return [
    ['source', s.source],
    ...(s.entity ? [['entity', s.entity] as const] : []),
    ['state', s.state],
    ['rows', s.rows],
    ...Object.entries(s.outcomes)
      .filter(([, n]) => n > 0)
      .map(([outcome, n]) => [outcome, n] as const),
    ...(s.assetWarnings ? [['rows with an asset warning', s.assetWarnings] as const] : []),
    ['requests', s.requests.total],
    ...Object.entries(s.requests.byMethod).map(([method, n]) => [`requests ${method}`, n] as const),
    ['started', s.startedAt],
    ['finished', s.finishedAt],
    ['duration (s)', Math.round(s.durationMs / 100) / 10],
    ['result', s.message],
  ];
}
