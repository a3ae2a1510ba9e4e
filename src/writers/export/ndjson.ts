// NDJSON export: one JSON object a line, keyed by the column headers, for loading elsewhere.
import { EntityFiles } from './stream.js';
import type { EntityTableWriter, ExportColumn, ExportSink } from './types.js';

export function createNdjsonSink(target: { dir: string } | { file: string; direct?: boolean }): ExportSink {
  const entityFiles = new EntityFiles(target, 'ndjson', 'NDJSON');
  return {
    files: entityFiles.files,
    async table(name: string, columns: readonly ExportColumn[]): Promise<EntityTableWriter> {
      const out = entityFiles.open(name);
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
        },
      };
    },
    async close() {},
    abort: () => entityFiles.abort(),
  };
}
