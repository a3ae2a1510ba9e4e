// A table of plain-text columns written as CSV, JSON Lines or XLSX (chosen by the file's extension),
// streaming, one record at a time. Per-row reports are tables; so is anything else that lists rows.
import { CatalogIoError } from '../errors.js';
import { openOutputStream, workbookWritten } from '../files.js';
import { REPORT_CSV } from './csv.js';
import { type ByteTail, type FileFormat, formatFromExtension, openLineFile } from './lines.js';

export interface TableColumn<K extends string> {
  key: K;
  /** XLSX column width in characters. */
  width: number;
  /** XLSX: a value that is a number (ids, HTTP statuses) is written as a number, not as text. */
  numeric?: boolean;
}

/** The lines of an XLSX file's "Summary" sheet: a name and its value (counts as numbers). */
export type SummaryRows = ReadonlyArray<readonly [string, string | number]>;

export interface TableOptions<K extends string> {
  columns: ReadonlyArray<TableColumn<K>>;
  /** XLSX: rows for which this returns a colour (ARGB, e.g. `FFFFC7CE`) are filled with it. */
  highlight?: (record: Record<K, string>) => string | undefined;
}

export interface TableWriter<K extends string> {
  readonly format: FileFormat;
  /** A promise only when the caller must wait (a chunk went to the disk): most records are only buffered. */
  write(record: Record<K, string>): Promise<void> | undefined;
  /**
   * A record the caller already wrote out as one CSV record or JSON line (with its line end), for a hot
   * loop that knows most of its values in advance. Line formats only: an XLSX table has none.
   */
  writeLine?(text: string): Promise<void> | undefined;
  /** A CSV table's chunk being filled, for records written as bytes (see `ByteTail`). */
  bytes?: ByteTail;
  /** Ends the file; an XLSX file gets a "Summary" sheet from `summary` (line formats have no room for one). */
  close(summary?: SummaryRows): Promise<void>;
}

/** `what` names the file in the error for an unknown extension (`Report file out.txt: ...`). */
export async function openTable<K extends string>(
  path: string,
  options: TableOptions<K>,
  what = 'File',
): Promise<TableWriter<K>> {
  const format = formatFromExtension(path);
  if (!format) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `${what} ${path}: use a .csv, .jsonl or .xlsx extension to choose its format`,
    );
  }
  return openTableAs(path, format, options);
}

async function openTableAs<K extends string>(
  path: string,
  format: FileFormat,
  options: TableOptions<K>,
): Promise<TableWriter<K>> {
  const keys = options.columns.map((c) => c.key);
  if (format === 'xlsx') return openXlsxTable(path, options);
  const file = await openLineFile(path);
  if (format === 'jsonl') {
    // The replacer list writes the columns' keys in the columns' order, and nothing else.
    return {
      format,
      write: (record) => file.append(`${JSON.stringify(record, keys)}\n`),
      writeLine: file.append,
      close: () => file.close(),
    };
  }
  await file.write(REPORT_CSV.header(keys));
  return {
    format,
    write: (record) => file.append(REPORT_CSV.record(record, keys)),
    writeLine: file.append,
    ...(file.bytes && { bytes: file.bytes }),
    close: () => file.close(),
  };
}

async function openXlsxTable<K extends string>(
  path: string,
  options: TableOptions<K>,
): Promise<TableWriter<K>> {
  // exceljs is loaded only for workbooks: it takes about 20 MB of memory.
  const { default: ExcelJS } = await import('exceljs');
  // Our own file stream: a write error (a full disk) is the run's OUTPUT_FAILED, not an unhandled event.
  const { out, failure } = await openOutputStream(path);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet('Report', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = options.columns.map((c) => ({ header: c.key, key: c.key, width: c.width }));
  sheet.autoFilter = { from: 'A1', to: { row: 1, column: options.columns.length } };
  sheet.getRow(1).font = { bold: true };
  sheet.getRow(1).commit();
  return {
    format: 'xlsx',
    write(record) {
      failure.check();
      // Text cells (and numbers where a column holds them): a report value that starts with = is shown,
      // never run.
      const row = sheet.addRow(
        options.columns.map((c) => (c.numeric ? numberOrText(record[c.key]) : record[c.key])),
      );
      const colour = options.highlight?.(record);
      if (colour) {
        row.eachCell({ includeEmpty: true }, (cell) => {
          cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: colour } };
        });
      }
      row.commit();
      return undefined;
    },
    async close(summary) {
      sheet.commit();
      if (summary) {
        const sums = workbook.addWorksheet('Summary');
        sums.columns = [{ width: 24 }, { width: 60 }];
        for (const [name, value] of summary) sums.addRow([name, value]).commit();
        sums.getColumn(1).font = { bold: true };
        sums.commit();
      }
      await workbookWritten(workbook.commit(), out, failure);
    },
  };
}

function numberOrText(value: string): string | number {
  return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
}
