// CSV export: RFC 4180 (CRLF, quotes only where needed), UTF-8 with an optional BOM for Excel, one
// file per entity in a folder or one named file, and the spreadsheet-injection guard unless raw.
import Papa from 'papaparse';
import { FORMULA_TRIGGER } from './safety.js';
import { EntityFiles } from './stream.js';
import {
  type CsvOptions,
  type EntityTableWriter,
  type ExportColumn,
  type ExportSink,
  joinMulti,
} from './types.js';

/** Rows are quoted in batches: fewer calls, same bytes. */
const BATCH_ROWS = 256;

export function createCsvSink(
  target: { dir: string } | { file: string },
  options: CsvOptions = {},
): ExportSink {
  const entityFiles = new EntityFiles(target, 'csv', 'CSV');
  const unparseConfig = {
    newline: '\r\n',
    delimiter: options.delimiter ?? ',',
    escapeFormulae: options.raw ? false : FORMULA_TRIGGER,
  };
  return {
    files: entityFiles.files,
    async table(name: string, columns: readonly ExportColumn[]): Promise<EntityTableWriter> {
      const out = entityFiles.open(name);
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
        },
      };
    },
    async close() {},
    abort: () => entityFiles.abort(),
  };
}
