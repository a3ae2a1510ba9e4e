// The one CSV writer of the project: report, rejects and export files are written by it. RFC 4180 (CRLF,
// a field quoted only when it holds the delimiter, a quote, CR/LF or edge spaces), any one-character
// delimiter, and the formula guard on text (`formula.ts`) unless the caller asks for raw cells.
import { guardFormula } from './formula.js';

export type CsvValue = string | number | boolean | null | undefined;

export interface CsvDialect {
  /** Default `,`. */
  delimiter?: string;
  /** Prefix text that a spreadsheet would run as a formula (default true). */
  guard?: boolean;
}

export class CsvFormat {
  readonly delimiter: string;
  private readonly guard: boolean;
  private readonly delimiterCode: number;

  constructor(dialect: CsvDialect = {}) {
    this.delimiter = dialect.delimiter ?? ',';
    this.guard = dialect.guard ?? true;
    this.delimiterCode = this.delimiter.length === 1 ? this.delimiter.charCodeAt(0) : -1;
  }

  /** One field: text guarded and quoted when it must be; numbers and booleans as they print; null empty. */
  field(value: CsvValue): string {
    if (value === null || value === undefined) return '';
    if (typeof value !== 'string') return String(value);
    return this.quoted(this.guard ? guardFormula(value) : value);
  }

  /**
   * A header: its names guarded like any text (a rejects file copies the source's header, which may
   * hold `=HYPERLINK(...)`); the import reads a guarded name back as the name it was.
   */
  header(names: ReadonlyArray<string>): string {
    let line = '';
    for (let i = 0; i < names.length; i += 1) {
      if (i > 0) line += this.delimiter;
      line += this.field(names[i]!);
    }
    return `${line}\r\n`;
  }

  /** One record, with its line end. */
  line(values: ReadonlyArray<CsvValue>): string {
    let line = '';
    for (let i = 0; i < values.length; i += 1) {
      if (i > 0) line += this.delimiter;
      line += this.field(values[i]);
    }
    return `${line}\r\n`;
  }

  /** The same record from named values, in the order of `keys` (no array of values per line). */
  record<K extends string>(record: Record<K, CsvValue>, keys: ReadonlyArray<K>): string {
    let line = '';
    for (let i = 0; i < keys.length; i += 1) {
      if (i > 0) line += this.delimiter;
      line += this.field(record[keys[i]!]);
    }
    return `${line}\r\n`;
  }

  /** Quotes a text when it must be. One pass over the characters: this runs for every cell. */
  private quoted(v: string): string {
    if (v.length === 0) return v;
    let quote = v.charCodeAt(0) === 32 || v.charCodeAt(v.length - 1) === 32;
    if (this.delimiterCode === -1) quote ||= v.includes(this.delimiter);
    const d = this.delimiterCode;
    for (let i = 0; !quote && i < v.length; i += 1) {
      const c = v.charCodeAt(i);
      quote = c === 34 || c === 10 || c === 13 || c === d;
    }
    return quote ? `"${v.replace(/"/g, '""')}"` : v;
  }
}

/** The format of reports: comma-separated, guarded. */
export const REPORT_CSV = new CsvFormat();
