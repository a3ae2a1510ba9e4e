// NDJSON export: one JSON object a line, keyed by the column headers, for loading elsewhere.
import { join } from 'node:path';
import { CatalogIoError } from '../../errors.js';
import { safeFileName } from './csv.js';
import { FileOut } from './stream.js';
import type { ExportColumn, ExportSink, TableWriter } from './types.js';

export function createNdjsonSink(target: { dir: string } | { file: string }): ExportSink {
  const files: string[] = [];
  const open = new Set<FileOut>();
  return {
    files,
    async table(name: string, columns: readonly ExportColumn[]): Promise<TableWriter> {
      if ('file' in target && files.length > 0) {
        throw new CatalogIoError(
          'CONFIG_INVALID',
          `A single NDJSON file holds one entity; name a folder with --out to export ${files.length + 1} entities`,
        );
      }
      const path = 'file' in target ? target.file : join(target.dir, `${safeFileName(name)}.ndjson`);
      files.push(path);
      const out = new FileOut(path);
      open.add(out);
      return {
        async writeRow(values) {
          const record: Record<string, unknown> = {};
          columns.forEach((c, i) => {
            const v = values[i];
            record[c.header] = v === undefined ? null : v;
          });
          await out.write(`${JSON.stringify(record)}\n`);
        },
        async close() {
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
