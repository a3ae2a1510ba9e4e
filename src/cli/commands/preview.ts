// `catalog-io preview <source>`: what the readers detect in a file and its first rows, so a person
// can check a feed before importing it. Thin: flags to ReaderOptions, then openSource().
import type { CommandModule } from 'yargs';
import { numberFlag } from '../../config/flags.js';
import { type OpenedSource, openSource, type ReaderOptions, type SourceRow } from '../../readers/index.js';
import type { Cell } from '../../readers/types.js';
import { EXIT } from '../output.js';
import { readerOptionsFrom, sourceArg, withReaderOptions } from './feed.js';
import type { CommandFactory } from './index.js';

/** The reader flags are read by `readerOptionsFrom`. */
interface PreviewArgs {
  source: string;
  trim?: boolean;
  limit: number;
  json: boolean;
  [key: string]: unknown;
}

/** Widest a table may be before rows are shown one field per line instead. */
const TABLE_WIDTH = 160;
const CELL_WIDTH = 24;

export const previewCommand: CommandFactory = (out, setExitCode) =>
  ({
    command: 'preview <source>',
    describe: 'Show what is detected in a CSV, XLSX, JSON or NDJSON source and its first rows',
    builder: (y) =>
      withReaderOptions(
        y.positional('source', {
          type: 'string',
          describe: 'File path, http(s) URL, or - for stdin',
          demandOption: true,
        }),
      )
        .option('trim', { type: 'boolean', describe: 'CSV: trim spaces around cells (default: when padded)' })
        .option('limit', {
          ...numberFlag(
            'limit',
            { min: 0, max: 1_000_000, whole: true, unit: 'rows to show' },
            'Rows to show',
          ),
          default: 10,
        })
        .option('json', { type: 'boolean', default: false, describe: 'Print rows as NDJSON' }),
    handler: async (args: PreviewArgs) => {
      const options: ReaderOptions = {
        ...readerOptionsFrom(args),
        ...(args.trim !== undefined && { trim: args.trim }),
      };
      const source = await openSource(sourceArg(args.source), options);
      try {
        const rows = await firstRows(source, Math.max(0, args.limit));
        const info = args.json ? out.error : out.print;
        for (const line of describe(source)) info(line);
        if (args.json) {
          for (const row of rows) out.print(JSON.stringify(rowJson(row)));
        } else {
          for (const line of render(source.headers, rows)) out.print(line);
        }
        setExitCode(rows.some((row) => row.error) ? EXIT.ROWS_FAILED : EXIT.OK);
      } finally {
        await source.close();
      }
    },
  }) as CommandModule<object, PreviewArgs>;

async function firstRows(source: OpenedSource, limit: number): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  if (limit === 0) return rows;
  for await (const row of source.rows) {
    rows.push(row);
    if (rows.length >= limit) break;
  }
  return rows;
}

function describe(source: OpenedSource): string[] {
  const lines = [`source:    ${source.source}`, `format:    ${source.format}`];
  if (source.encoding) lines.push(`encoding:  ${source.encoding}`);
  if (source.delimiter) lines.push(`delimiter: ${source.delimiter === '\t' ? 'TAB' : source.delimiter}`);
  lines.push(`columns:   ${source.headers.length} (${source.headers.join(', ')})`);
  for (const note of source.notes) lines.push(`note:      ${note}`);
  return lines;
}

function rowJson(row: SourceRow): Record<string, unknown> {
  return { location: row.location.text, ...(row.error ? { error: row.error } : {}), cells: row.cells };
}

function text(cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return '';
  if (Array.isArray(cell)) return cell.map((item) => text(item)).join(', ');
  return String(cell).replace(/\s+/g, ' ');
}

function clip(value: string, width: number): string {
  return value.length > width ? `${value.slice(0, width - 1)}…` : value.padEnd(width);
}

/** A table when it fits, otherwise one `column: value` line per field under each row's location. */
function render(headers: string[], rows: SourceRow[]): string[] {
  const columns = ['location', ...headers];
  const widths = columns.map((column) => {
    const longest = Math.max(column.length, ...rows.map((row) => text(cellOf(row, column)).length));
    return Math.min(CELL_WIDTH, longest);
  });
  const lines: string[] = [];
  if (widths.reduce((sum, width) => sum + width + 2, 0) <= TABLE_WIDTH) {
    lines.push(
      columns
        .map((column, i) => clip(column, widths[i]!))
        .join('  ')
        .trimEnd(),
    );
    lines.push(widths.map((width) => '-'.repeat(width)).join('  '));
    for (const row of rows) {
      lines.push(
        columns
          .map((column, i) => clip(text(cellOf(row, column)), widths[i]!))
          .join('  ')
          .trimEnd(),
      );
      if (row.error) lines.push(`  ! ${row.error.code}: ${row.error.message}`);
    }
    return lines;
  }
  const nameWidth = Math.min(32, Math.max(...headers.map((header) => header.length)));
  for (const row of rows) {
    lines.push(`--- ${row.location.text} ---`);
    if (row.error) lines.push(`! ${row.error.code}: ${row.error.message}`);
    for (const header of headers) {
      lines.push(`${clip(header, nameWidth)}  ${clip(text(row.cells[header]), 100).trimEnd()}`);
    }
  }
  return lines;
}

function cellOf(row: SourceRow, column: string): Cell | undefined {
  return column === 'location' ? row.location.text : row.cells[column];
}
