// The validate report's lines as text (CSV, JSON Lines), apart from the file writer: a part thread makes
// them without loading what writes files.
import { REPORT_CSV } from './csv.js';
import type { ReportLine } from './report.js';

/** The report's columns in order (`REPORT_COLUMNS`). */
const REPORT_KEYS: ReadonlyArray<keyof ReportLine> = [
  'location',
  'entity',
  'ref',
  'outcome',
  'field',
  'column',
  'value',
  'message',
  'warnings',
];

/**
 * A report's lines as text, for the line formats (CSV, JSON Lines): what `openReport` writes, so lines
 * made on another thread and written in bulk are the same bytes.
 */
export interface ReportText {
  line(line: ReportLine): string;
  valid(location: string, entity: string, ref: string): string;
}

export function reportText(format: 'csv' | 'jsonl'): ReportText {
  if (format === 'jsonl') {
    const keys = REPORT_KEYS as Array<keyof ReportLine>;
    const line = (record: ReportLine) => `${JSON.stringify(record, keys)}\n`;
    return {
      line,
      valid: (location, entity, ref) => line(validLine(location, entity, ref)),
    };
  }
  // The entity is the same for row after row: its field is kept.
  let entityName = '';
  let entityField = '';
  return {
    line: (record) => REPORT_CSV.record(record, REPORT_KEYS),
    valid(location, entity, ref) {
      if (entity !== entityName) {
        entityName = entity;
        entityField = REPORT_CSV.field(entity);
      }
      // The columns' order: location, entity, ref, outcome, then field, column, value, message, warnings empty.
      return `${REPORT_CSV.field(location)},${entityField},${REPORT_CSV.field(ref)},valid,,,,,\r\n`;
    },
  };
}

export function validLine(location: string, entity: string, ref: string): ReportLine {
  return {
    location,
    entity,
    ref,
    outcome: 'valid',
    field: '',
    column: '',
    value: '',
    message: '',
    warnings: '',
  };
}
