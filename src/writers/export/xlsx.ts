// XLSX export with exceljs's streaming WorkbookWriter: constant memory at any catalog size. One sheet
// per entity, a frozen bold header with an autofilter, column widths from the first rows, and typed
// cells: numbers as numbers (within Excel's 15 significant digits: excel-number.ts), date-times as
// dates, everything else as text — never as a formula.
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type ExcelJS from 'exceljs';
import { WriteFailure, workbookWritten } from '../../files.js';
import { xlsxNumber } from '../excel-number.js';
import { EXCEL_CELL_CHARS, encodeXlsxText } from '../xlsx-text.js';
import { partialPath } from './stream.js';
import {
  type EntityTableWriter,
  type ExportColumn,
  type ExportSink,
  type ExportValue,
  joinMulti,
} from './types.js';

/** Rows held back to size the columns before the sheet's column definitions are written. */
const SIZING_ROWS = 100;
const MIN_WIDTH = 8;
const MAX_WIDTH = 60;
const DATE_TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
const DATE_FORMAT = 'yyyy-mm-dd';
/**
 * Excel shows serial dates from 1900-03-01 on rightly: before it lies its 1900 leap-year bug (and before
 * 1900, no date at all), so such dates are written as ISO text, which the import reads the same.
 */
const FIRST_EXCEL_DATE = Date.UTC(1900, 2, 1);

/** Excel limits sheet names to 31 characters without : \ / ? * [ ]. */
export function sheetName(name: string, taken: Set<string>): string {
  const base =
    name
      .replace(/[:\\/?*[\]]/g, ' ')
      .slice(0, 31)
      .trim() || 'Sheet';
  let candidate = base;
  for (let i = 2; taken.has(candidate.toLowerCase()); i++) candidate = `${base.slice(0, 28)} ${i}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

/** exceljs is loaded when a workbook is written: it takes about 20 MB that other commands need not pay. */
const load = createRequire(import.meta.url);

export function createXlsxSink(file: string): ExportSink {
  const { stream } = load('exceljs') as typeof ExcelJS;
  // Our own file stream, so a write error (a full disk) is the export's error, not an unhandled event.
  const out = createWriteStream(partialPath(file));
  const failure = new WriteFailure(file, out);
  const workbook = new stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  const taken = new Set<string>();
  const notes: string[] = [];
  return {
    files: [file],
    notes,
    async table(name: string, columns: readonly ExportColumn[]): Promise<EntityTableWriter> {
      const sheet = workbook.addWorksheet(sheetName(name, taken), {
        views: [{ state: 'frozen', ySplit: 1 }],
      });
      sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: Math.max(1, columns.length) } };
      const pending: unknown[][] = [];
      let sized = false;
      let rows = 1;
      /** Column -> its cells over EXCEL_CELL_CHARS: how many, and the first one's row. */
      const tooLong = new Map<number, { count: number; row: number }>();

      const size = () => {
        sized = true;
        sheet.columns = columns.map((c, i) => {
          let width = c.header.length + 2;
          for (const row of pending) width = Math.max(width, displayLength(row[i]) + 1);
          return { width: Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, width)), style: styleFor(c) };
        });
        const header = sheet.addRow(columns.map((c) => c.header));
        header.font = { bold: true };
        header.commit();
        for (const row of pending) sheet.addRow(row).commit();
        pending.length = 0;
      };

      return {
        async writeRow(values) {
          failure.check();
          const cells = columns.map((c, i) => cellValue(c, values[i]));
          rows += 1;
          for (let i = 0; i < cells.length; i++) {
            const cell = cells[i];
            if (typeof cell !== 'string' || cell.length <= EXCEL_CELL_CHARS) continue;
            const seen = tooLong.get(i);
            if (seen) seen.count += 1;
            else tooLong.set(i, { count: 1, row: rows });
          }
          if (!sized) {
            pending.push(cells);
            if (pending.length >= SIZING_ROWS) size();
            return;
          }
          sheet.addRow(cells).commit();
        },
        async close() {
          if (!sized) size();
          sheet.commit();
          for (const [i, { count, row }] of tooLong)
            notes.push(
              `${sheet.name} sheet, column "${columns[i]!.header}": ${count} ${count === 1 ? 'cell holds' : 'cells hold'} more than Excel's ${EXCEL_CELL_CHARS.toLocaleString('en')} characters (first on row ${row}); the file holds them whole, but Excel cuts them when it saves the workbook: edit them in a csv or ndjson export`,
            );
        },
      };
    },
    async close() {
      try {
        await workbookWritten(workbook.commit(), out, failure);
      } catch (err) {
        out.destroy();
        rmSync(partialPath(file), { force: true });
        throw err;
      }
      renameSync(partialPath(file), file);
    },
    async abort() {
      await failure.until(workbook.commit()).catch(() => undefined);
      out.destroy();
      rmSync(partialPath(file), { force: true });
    },
  };
}

function styleFor(column: ExportColumn): Partial<ExcelJS.Style> {
  if (column.kind === 'date-time') return { numFmt: DATE_TIME_FORMAT };
  if (column.kind === 'date') return { numFmt: DATE_FORMAT };
  // '@' is Excel's Text format: codes typed into the sheet later stay text too (EANs keep their zeros).
  if (column.kind === 'text') return { numFmt: '@' };
  return {};
}

/** A value as an exceljs cell value of the column's kind. Strings are always plain strings. */
export function cellValue(column: ExportColumn, value: ExportValue): ExcelJS.CellValue {
  const v = joinMulti(value);
  if (v === null || v === undefined || v === '') return null;
  switch (column.kind) {
    case 'number':
    case 'integer': {
      const n = typeof v === 'number' ? v : Number(v);
      // Within Excel's 15 significant digits, so that Excel shows and saves the number written.
      return Number.isFinite(n) && typeof v !== 'boolean' ? xlsxNumber(n) : String(v);
    }
    case 'boolean':
      return typeof v === 'boolean' ? v : String(v);
    case 'date-time':
    case 'date': {
      const d = new Date(String(v));
      return Number.isNaN(d.getTime()) || d.getTime() < FIRST_EXCEL_DATE ? String(v) : d;
    }
    default:
      return encodeXlsxText(String(v));
  }
}

function displayLength(cell: unknown): number {
  if (cell === null || cell === undefined) return 0;
  if (cell instanceof Date) return 19;
  const text = String(cell);
  const nl = text.indexOf('\n');
  return nl === -1 ? text.length : nl;
}
