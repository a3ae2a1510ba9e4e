// Where an export goes and in which format: `--format`, else the `--out` extension, else CSV for a
// folder (one file per entity, as the help says). XLSX is one workbook (a sheet per entity; in a folder,
// `catalog.xlsx`); CSV and NDJSON are one file per entity in a folder, or the single file named when one
// entity is exported.
import { fstatSync, mkdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { CatalogIoError } from '../../errors.js';
import {
  type CsvOptions,
  createCsvSink,
  createNdjsonSink,
  createXlsxSink,
  type ExportSink,
} from '../../writers/export/index.js';
import { STDOUT } from '../../writers/export/stream.js';

export const EXPORT_FORMATS = ['xlsx', 'csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const EXTENSIONS: Record<string, ExportFormat> = {
  '.xlsx': 'xlsx',
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
};

export interface ExportTarget {
  format: ExportFormat;
  /**
   * A single file, or a folder that gets one file per entity. `direct`: standard output (`-`) or a
   * device or pipe (/dev/stdout), written straight rather than through a `.partial` file.
   */
  path: { file: string; direct?: boolean } | { dir: string };
}

/** Works out the target before any request, so a wrong `--out` costs nothing. */
export function resolveTarget(out: string, format: string | undefined, tables: number): ExportTarget {
  if (format !== undefined && !(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new CatalogIoError('CONFIG_INVALID', `--format ${format}: use ${EXPORT_FORMATS.join(', ')}`);
  }
  // This process's own stdout by another name (/dev/stdout, /dev/fd/1): written as `-`, which also
  // works when stdout is a socket, which cannot be opened by name.
  if (out !== STDOUT && isStdout(out))
    return resolveTarget(STDOUT, format ?? EXTENSIONS[extname(out)], tables);
  if (out === STDOUT || isStream(out)) {
    const chosen = (format as ExportFormat | undefined) ?? EXTENSIONS[extname(out).toLowerCase()] ?? 'csv';
    const shown = out === STDOUT ? 'standard output (-)' : out;
    if (chosen === 'xlsx') {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--out ${out}: an XLSX workbook needs a file; write CSV or NDJSON to ${shown} (--format csv or ndjson)`,
      );
    }
    if (tables > 1) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--out ${out}: ${shown} takes one entity, and ${tables} are exported; name one, or a folder`,
      );
    }
    return { format: chosen, path: { file: out, direct: true } };
  }
  const extension = extname(out).toLowerCase();
  const byExtension = EXTENSIONS[extension];
  const isDir = isDirectory(out) || out.endsWith('/') || out.endsWith('\\');
  // A name without an extension is a folder to make.
  const folder = isDir || !extension;
  const chosen: ExportFormat =
    (format as ExportFormat | undefined) ?? (folder ? undefined : byExtension) ?? (folder ? 'csv' : 'xlsx');
  if (chosen === 'xlsx') {
    return { format: chosen, path: { file: isDir || !extension ? join(out, 'catalog.xlsx') : out } };
  }
  if (!isDir && byExtension === chosen) {
    if (tables > 1) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--out ${out}: a single ${chosen.toUpperCase()} file holds one entity, and ${tables} are exported; name a folder instead`,
      );
    }
    return { format: chosen, path: { file: out } };
  }
  if (!isDir && extension && byExtension !== undefined) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `--out ${out} has the ${extension} extension but the format is ${chosen}: name a .${chosen} file or a folder`,
    );
  }
  return { format: chosen, path: { dir: out } };
}

export function openSink(target: ExportTarget, csv: CsvOptions): ExportSink {
  const where = target.path;
  if ('dir' in where) mkdirSync(where.dir, { recursive: true });
  else if (!where.direct) mkdirSync(join(where.file, '..'), { recursive: true });
  switch (target.format) {
    case 'xlsx':
      return createXlsxSink((where as { file: string }).file);
    case 'csv':
      return createCsvSink(where, csv);
    case 'ndjson':
      return createNdjsonSink(where);
  }
}

function isStdout(path: string): boolean {
  try {
    const named = statSync(path);
    const stdout = fstatSync(1);
    return named.dev === stdout.dev && named.ino === stdout.ino;
  } catch {
    return false;
  }
}

/** An existing device, pipe or socket (/dev/stdout, a named pipe): neither a file nor a folder. */
function isStream(path: string): boolean {
  try {
    const stats = statSync(path);
    return !stats.isFile() && !stats.isDirectory();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
