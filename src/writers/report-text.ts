// The validate report's lines as text (CSV, JSON Lines), apart from the file writer: a part thread makes
// them without loading what writes files.
import { REPORT_CSV } from './csv.js';
import type { ReportLine } from './report.js';

/** The report's columns in order: the one list, for its text lines here and its table (report.ts). */
export const REPORT_KEYS: ReadonlyArray<keyof ReportLine> = [
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
  /**
   * CSV: the line of a valid row at `line N` written into `chunk` from `at` (at most `validRoom` bytes);
   * returns where it ended. The same bytes as `valid`, with no string made for the line.
   */
  validAt?(chunk: Buffer, at: number, line: number, entity: string, ref: string): number;
  /** The most bytes `validAt` writes for this ref. */
  validRoom?(ref: string): number;
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
  // The entity is the same for row after row: its field is kept, as text and as bytes (`,products,`).
  let entityName = '';
  let entityField = '';
  let entityBytes = Buffer.alloc(0);
  const valid = (location: string, entity: string, ref: string) => {
    if (entity !== entityName) {
      entityName = entity;
      entityField = REPORT_CSV.field(entity);
      entityBytes = Buffer.from(`,${entityField},`);
    }
    // The columns' order: location, entity, ref, outcome, then field, column, value, message, warnings empty.
    return `${REPORT_CSV.field(location)},${entityField},${REPORT_CSV.field(ref)},valid,,,,,\r\n`;
  };
  return {
    line: (record) => REPORT_CSV.record(record, REPORT_KEYS),
    valid,
    validRoom: (ref) => VALID_ROOM + 3 * entityBytes.length + 6 * ref.length,
    validAt(chunk, at, line, entity, ref) {
      if (entity !== entityName) valid('', entity, '');
      const end = validBytes(chunk, at, line, entityBytes, ref);
      // A ref to quote, guard or encode: the text line, the same bytes.
      return end >= 0 ? end : at + chunk.write(valid(`line ${line}`, entity, ref), at);
    },
  };
}

/** `validRoom` beyond the entity and the ref: `line `, ten digits, `,valid,,,,,\r\n`, quotes (3 bytes a unit). */
const VALID_ROOM = 120;

/**
 * `line N<entity>ref,valid,,,,,\r\n` as bytes, `entity` with its commas; -1 (nothing counted as written)
 * when the ref is not plain ASCII that CSV writes as it is: a quote, comma, line break, an edge space, a
 * formula's first character (csv.ts, formula.ts) or a character past 127. The fixed texts are stored byte
 * by byte: a loop over a constant array costs a third more, and this runs for every valid row.
 */
function validBytes(chunk: Buffer, at: number, line: number, entity: Buffer, ref: string): number {
  const n = ref.length;
  if (n > 0) {
    const first = ref.charCodeAt(0);
    if (
      first === 32 ||
      first === 61 ||
      first === 43 ||
      first === 45 ||
      first === 64 ||
      first === 9 ||
      first === 13 ||
      first === 39
    )
      return -1;
    if (ref.charCodeAt(n - 1) === 32) return -1;
  }
  let p = at;
  // `line `
  chunk[p++] = 108;
  chunk[p++] = 105;
  chunk[p++] = 110;
  chunk[p++] = 101;
  chunk[p++] = 32;
  p += digitCount(line);
  for (let rest = line, q = p; ; ) {
    const tens = (rest / 10) | 0;
    chunk[--q] = 48 + rest - tens * 10;
    if (tens === 0) break;
    rest = tens;
  }
  for (let i = 0; i < entity.length; i++) chunk[p++] = entity[i]!;
  for (let i = 0; i < n; i++) {
    const c = ref.charCodeAt(i);
    if (c > 127 || c === 34 || c === 44 || c === 10 || c === 13) return -1;
    chunk[p++] = c;
  }
  // `,valid,,,,,\r\n`
  chunk[p++] = 44;
  chunk[p++] = 118;
  chunk[p++] = 97;
  chunk[p++] = 108;
  chunk[p++] = 105;
  chunk[p++] = 100;
  for (let i = 0; i < 5; i++) chunk[p++] = 44;
  chunk[p++] = 13;
  chunk[p++] = 10;
  return p;
}

/** How many digits a line number (a whole number from 0, below 2^31) is written with. */
function digitCount(line: number): number {
  let digits = 1;
  for (let rest = line; rest >= 10; rest = (rest / 10) | 0) digits++;
  return digits;
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
