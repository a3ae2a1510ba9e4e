// CSV export: RFC 4180 (CRLF, quotes only where needed), UTF-8 with an optional BOM for Excel, one
// file per entity in a folder or one named file, and the spreadsheet-injection guard unless raw.
import { join } from 'node:path';
import Papa from 'papaparse';
import { CatalogIoError } from '../../errors.js';
import { FORMULA_TRIGGER } from './safety.js';
import { FileOut } from './stream.js';
import { type CsvOptions, type ExportColumn, type ExportSink, joinMulti, type TableWriter } from './types.js';

/** Rows are quoted in batches: fewer calls, same bytes. */
const BATCH_ROWS = 256;

export function createCsvSink(
  target: { dir: string } | { file: string },
  options: CsvOptions = {},
): ExportSink {
  const files: string[] = [];
  const open = new Set<FileOut>();
  const unparseConfig = {
    newline: '\r\n',
    delimiter: options.delimiter ?? ',',
    escapeFormulae: options.raw ? false : FORMULA_TRIGGER,
  };
  return {
    files,
    async table(name: string, columns: readonly ExportColumn[]): Promise<TableWriter> {
      if ('file' in target && files.length > 0) {
        throw new CatalogIoError(
          'CONFIG_INVALID',
          `A single CSV file holds one entity; name a folder with --out to export ${files.length + 1} entities`,
        );
      }
      const path = 'file' in target ? target.file : join(target.dir, `${safeFileName(name)}.csv`);
      files.push(path);
      const out = new FileOut(path);
      open.add(out);
      const head = Papa.unparse([columns.map((c) => c.header)], { ...unparseConfig, escapeFormulae: false });
      await out.write(`${options.bom ? '\uFEFF' : ''}${head}\r\n`);
      let batch: unknown[][] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const text = Papa.unparse(batch, unparseConfig);
        batch = [];
        await out.write(`${text}\r\n`);
      };
      return {
        async writeRow(values) {
          batch.push(values.map((v) => joinMulti(v) ?? null));
          if (batch.length >= BATCH_ROWS) await flush();
        },
        async close() {
          await flush();
          await out.end();
          open.delete(out);
        },
      };
    },
    async close() {},
    async abort() {
      for (const out of open) await out.abort();
      open.clear();
    },
  };
}

/** `custom:Store Locations` -> `custom-Store Locations`: safe on every file system. */
export function safeFileName(name: string): string {
  return name.replace(/[:/\\?*"<>|]/g, '-');
}
