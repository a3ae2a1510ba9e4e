// The validate per-row report: one line per source row, a table (CSV, JSON Lines or XLSX, chosen by the
// file's extension) whose XLSX form highlights invalid rows.
import { REPORT_KEYS, reportText, validLine } from './report-text.js';
import { openTable, type SummaryRows, type TableColumn } from './table.js';

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
  /** What only the import can tell, or what it would leave out, on a valid row (`image not checked`). */
  warnings: string;
}

/** XLSX column widths in characters; the order is REPORT_KEYS'. */
const WIDTHS: Record<keyof ReportLine, number> = {
  location: 24,
  entity: 12,
  ref: 20,
  outcome: 10,
  field: 20,
  column: 20,
  value: 24,
  message: 80,
  warnings: 60,
};

const COLUMNS: ReadonlyArray<TableColumn<keyof ReportLine>> = REPORT_KEYS.map((key) => ({
  key,
  width: WIDTHS[key],
}));

export const REPORT_COLUMNS: ReadonlyArray<keyof ReportLine> = REPORT_KEYS;

export interface ReportWriter {
  /** A promise only when the caller must wait (a chunk went to the disk): most lines are only buffered. */
  write(line: ReportLine): Promise<void> | undefined;
  /** The line of a valid row (most rows): in CSV one string from a template, with no ReportLine built. */
  writeValid(location: string, entity: string, ref: string): Promise<void> | undefined;
  /** `writeValid` for a row at `line N` (a CSV row): in CSV written as bytes, with no string per line. */
  writeValidAt?(line: number, entity: string, ref: string): Promise<void> | undefined;
  /** Lines already made by `reportText` (line formats only), written as they are. */
  writeText?(text: string): Promise<void> | undefined;
  /** The same, as UTF-8 bytes (a part thread's lines): copied into the file's chunk. */
  writeBytes?(bytes: Uint8Array): Promise<void> | undefined;
  /** The file's format, when its lines can be made as text (`reportText`). */
  format?: 'csv' | 'jsonl';
  /** An XLSX report gets a "Summary" sheet from `summary`. */
  close(summary?: SummaryRows): Promise<void>;
}

export async function openReport(path: string): Promise<ReportWriter> {
  const table = await openTable(
    path,
    { columns: COLUMNS, highlight: (line) => (line.outcome === 'invalid' ? 'FFFFC7CE' : undefined) },
    'Report file',
  );
  const write = (line: ReportLine) => table.write(line);
  const writeLine = table.writeLine;
  if (table.format === 'xlsx' || !writeLine) {
    return {
      write,
      writeValid: (location, entity, ref) => write(validLine(location, entity, ref)),
      close: (summary) => table.close(summary),
    };
  }
  const text = reportText(table.format);
  const bytes = table.bytes;
  const { validAt, validRoom } = text;
  return {
    write,
    writeValid: (location, entity, ref) => writeLine(text.valid(location, entity, ref)),
    ...(bytes && {
      writeBytes(lines) {
        const wait = bytes.room(lines.length);
        bytes.chunk.set(lines, bytes.at);
        bytes.at += lines.length;
        return wait;
      },
    }),
    ...(bytes &&
      validAt &&
      validRoom && {
        writeValidAt(line, entity, ref) {
          const wait = bytes.room(validRoom(ref));
          bytes.at = validAt(bytes.chunk, bytes.at, line, entity, ref);
          return wait;
        },
      }),
    writeText: writeLine,
    format: table.format,
    close: (summary) => table.close(summary),
  };
}
