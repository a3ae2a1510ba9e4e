// CSV export: the project's one CSV writer (`../csv.ts`: RFC 4180, the formula guard unless raw), UTF-8
// with an optional BOM for Excel, one file per entity in a folder or one named file.
import { CsvFormat } from '../csv.js';
import { EntityFiles } from './stream.js';
import {
  type CsvOptions,
  type EntityTableWriter,
  type ExportColumn,
  type ExportSink,
  joinMulti,
} from './types.js';

/** Rows are gathered into chunks of about 64 KB: one stream write per row costs more than the row. */
const CHUNK_CHARS = 64 * 1024;

export function createCsvSink(
  target: { dir: string } | { file: string; direct?: boolean },
  options: CsvOptions = {},
): ExportSink {
  const entityFiles = new EntityFiles(target, 'csv', 'CSV');
  const csv = new CsvFormat({ delimiter: options.delimiter ?? ',', guard: !options.raw });
  return {
    files: entityFiles.files,
    async table(name: string, columns: readonly ExportColumn[]): Promise<EntityTableWriter> {
      const out = entityFiles.open(name);
      await out.write(`${options.bom ? '\uFEFF' : ''}${csv.header(columns.map((c) => c.header))}`);
      let pending = '';
      return {
        async writeRow(values) {
          pending += csv.line(columns.map((_, i) => joinMulti(values[i])));
          if (pending.length >= CHUNK_CHARS) {
            const chunk = pending;
            pending = '';
            await out.write(chunk);
          }
        },
        async close() {
          if (pending) await out.write(pending);
          pending = '';
          await out.end();
        },
      };
    },
    async close() {},
    abort: () => entityFiles.abort(),
  };
}
