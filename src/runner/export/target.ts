// Where an export goes and in which format: `--format`, else the `--out` extension, else CSV for a
// folder (one file per entity, as the help says). XLSX is one workbook (a sheet per entity; in a folder,
// `catalog.xlsx`); CSV and NDJSON are one file per entity in a folder, or the single file named when one
// entity is exported.
import { mkdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { CatalogIoError } from '../../errors.js';
import {
  type CsvOptions,
  createCsvSink,
  createNdjsonSink,
  createXlsxSink,
  type ExportSink,
} from '../../writers/export/index.js';

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
  /** A single file, or a folder that gets one file per entity. */
  path: { file: string } | { dir: string };
}

/** Works out the target before any request, so a wrong `--out` costs nothing. */
export function resolveTarget(out: string, format: string | undefined, tables: number): ExportTarget {
  if (format !== undefined && !(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new CatalogIoError('CONFIG_INVALID', `--format ${format}: use ${EXPORT_FORMATS.join(', ')}`);
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
  const folder = 'dir' in where ? where.dir : undefined;
  if (folder) mkdirSync(folder, { recursive: true });
  else mkdirSync(join((where as { file: string }).file, '..'), { recursive: true });
  switch (target.format) {
    case 'xlsx':
      return createXlsxSink((where as { file: string }).file);
    case 'csv':
      return createCsvSink(where, csv);
    case 'ndjson':
      return createNdjsonSink(where);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
