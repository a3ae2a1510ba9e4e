// The validate per-row report: one line per source row, a table (CSV, JSON Lines or XLSX, chosen by the
// file's extension) whose XLSX form highlights invalid rows.
import { openTable, type TableColumn, type TableWriter } from './table.js';

export type Outcome = 'valid' | 'invalid' | 'skipped';

export interface ReportLine {
  location: string;
  entity: string;
  ref: string;
  outcome: Outcome;
  /** Fields concerned, `; `-separated in the order of `message`. */
  field: string;
  column: string;
  value: string;
  message: string;
}

const COLUMNS: ReadonlyArray<TableColumn<keyof ReportLine>> = [
  { key: 'location', width: 24 },
  { key: 'entity', width: 12 },
  { key: 'ref', width: 20 },
  { key: 'outcome', width: 10 },
  { key: 'field', width: 20 },
  { key: 'column', width: 20 },
  { key: 'value', width: 24 },
  { key: 'message', width: 80 },
];

export const REPORT_COLUMNS: ReadonlyArray<keyof ReportLine> = COLUMNS.map((c) => c.key);

export type ReportWriter = TableWriter<keyof ReportLine>;

export function openReport(path: string): Promise<ReportWriter> {
  return openTable(
    path,
    { columns: COLUMNS, highlight: (line) => (line.outcome === 'invalid' ? 'FFFFC7CE' : undefined) },
    'Report file',
  );
}
