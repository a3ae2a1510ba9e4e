// The per-row validation/import report: one line per source row, in CSV, JSON Lines or XLSX (chosen by the
// file's extension). The XLSX report has a frozen header, an autofilter, and invalid rows highlighted.
import ExcelJS from 'exceljs';
import { CatalogIoError } from '../errors.js';
import { csvLine, type FileFormat, formatFromExtension, openLineFile } from './lines.js';

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

export const REPORT_COLUMNS: ReadonlyArray<keyof ReportLine> = [
  'location',
  'entity',
  'ref',
  'outcome',
  'field',
  'column',
  'value',
  'message',
];

export interface ReportWriter {
  /** A promise only when the caller must wait (a chunk went to the disk): most lines are only buffered. */
  write(line: ReportLine): Promise<void> | undefined;
  close(): Promise<void>;
}

export async function openReport(path: string): Promise<ReportWriter> {
  const format = formatFromExtension(path);
  if (!format) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `Report file ${path}: use a .csv, .jsonl or .xlsx extension to choose its format`,
    );
  }
  return openReportAs(path, format);
}

export async function openReportAs(path: string, format: FileFormat): Promise<ReportWriter> {
  if (format === 'xlsx') return openXlsxReport(path);
  const file = await openLineFile(path);
  if (format === 'jsonl') {
    return { write: (line) => file.append(`${JSON.stringify(line)}\n`), close: () => file.close() };
  }
  await file.write(csvLine(REPORT_COLUMNS));
  return {
    write: (line) =>
      file.append(
        csvLine([
          line.location,
          line.entity,
          line.ref,
          line.outcome,
          line.field,
          line.column,
          line.value,
          line.message,
        ]),
      ),
    close: () => file.close(),
  };
}

const WIDTHS: Record<keyof ReportLine, number> = {
  location: 24,
  entity: 12,
  ref: 20,
  outcome: 10,
  field: 20,
  column: 20,
  value: 24,
  message: 80,
};

const INVALID_FILL: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFC7CE' } };

async function openXlsxReport(path: string): Promise<ReportWriter> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: path,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet('Report', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = REPORT_COLUMNS.map((key) => ({ header: key, key, width: WIDTHS[key] }));
  sheet.autoFilter = { from: 'A1', to: { row: 1, column: REPORT_COLUMNS.length } };
  sheet.getRow(1).font = { bold: true };
  sheet.getRow(1).commit();
  return {
    write(line) {
      const row = sheet.addRow(REPORT_COLUMNS.map((c) => line[c]));
      if (line.outcome === 'invalid') {
        row.eachCell({ includeEmpty: true }, (cell) => {
          cell.fill = INVALID_FILL;
        });
      }
      row.commit();
      return undefined;
    },
    async close() {
      sheet.commit();
      await workbook.commit();
    },
  };
}
