// A table of plain-text columns written as CSV, JSON Lines or XLSX (chosen by the file's extension),
// streaming, one record at a time. Per-row reports are tables; so is anything else that lists rows.
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { CatalogIoError } from '../errors.js';
import { type FileFormat, formatFromExtension, openLineFile } from './lines.js';

export interface TableColumn<K extends string> {
  key: K;
  /** XLSX column width in characters. */
  width: number;
}

export interface TableOptions<K extends string> {
  columns: ReadonlyArray<TableColumn<K>>;
  /** XLSX: rows for which this returns a colour (ARGB, e.g. `FFFFC7CE`) are filled with it. */
  highlight?: (record: Record<K, string>) => string | undefined;
  sheetName?: string;
}

export interface TableWriter<K extends string> {
  write(record: Record<K, string>): Promise<void>;
  close(): Promise<void>;
}

export async function openTable<K extends string>(
  path: string,
  options: TableOptions<K>,
): Promise<TableWriter<K>> {
  const format = formatFromExtension(path);
  if (!format) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `${path}: use a .csv, .jsonl or .xlsx extension to choose the format`,
    );
  }
  return openTableAs(path, format, options);
}

export async function openTableAs<K extends string>(
  path: string,
  format: FileFormat,
  options: TableOptions<K>,
): Promise<TableWriter<K>> {
  const keys = options.columns.map((c) => c.key);
  if (format === 'xlsx') return openXlsxTable(path, options);
  const file = await openLineFile(path);
  if (format === 'jsonl') {
    return {
      write: (record) =>
        file.write(`${JSON.stringify(Object.fromEntries(keys.map((k) => [k, record[k]])))}\n`),
      close: () => file.close(),
    };
  }
  await file.write(`${Papa.unparse([keys])}\r\n`);
  return {
    write: (record) =>
      file.write(`${Papa.unparse([keys.map((k) => record[k])], { escapeFormulae: false })}\r\n`),
    close: () => file.close(),
  };
}

async function openXlsxTable<K extends string>(
  path: string,
  options: TableOptions<K>,
): Promise<TableWriter<K>> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: path,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet(options.sheetName ?? 'Report', {
    views: [{ state: 'frozen', ySplit: 1 }],
  });
  sheet.columns = options.columns.map((c) => ({ header: c.key, key: c.key, width: c.width }));
  sheet.autoFilter = { from: 'A1', to: { row: 1, column: options.columns.length } };
  sheet.getRow(1).font = { bold: true };
  sheet.getRow(1).commit();
  return {
    async write(record) {
      // Text cells only: a report value that starts with = is shown, never run.
      const row = sheet.addRow(options.columns.map((c) => record[c.key]));
      const colour = options.highlight?.(record);
      if (colour) {
        row.eachCell({ includeEmpty: true }, (cell) => {
          cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: colour } };
        });
      }
      row.commit();
    },
    async close() {
      sheet.commit();
      await workbook.commit();
    },
  };
}
