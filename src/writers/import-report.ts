// The import's per-row report: what happened to every source row, in CSV, JSON Lines or XLSX.
import { openTable, type TableColumn, type TableWriter } from './table.js';

export interface ImportReportLine {
  location: string;
  entity: string;
  ref: string;
  /** created | updated | unchanged | deleted | skipped | invalid | failed (plans: would-create | would-update | would-delete). */
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
