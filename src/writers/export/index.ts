// Export sinks by format. The export runner picks one from --format and --out.

export { FORMULA_TRIGGER, unneutralise } from '../formula.js';
export { createCsvSink } from './csv.js';
export { createNdjsonSink } from './ndjson.js';
export type {
  ColumnKind,
  CsvOptions,
  EntityTableWriter,
  ExportColumn,
  ExportSink,
  ExportValue,
} from './types.js';
export { createXlsxSink } from './xlsx.js';
