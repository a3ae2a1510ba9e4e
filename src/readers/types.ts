// What every reader yields: one row of cells with a location a person can find in the file.

/** A cell as the source gave it: text, a number, a boolean, null, or (JSON) an array of scalars. */
export type Cell = string | number | boolean | null | Cell[];

export interface Location {
  /** `line 17` (CSV: the physical line the record starts on), `sheet Products row 17` (XLSX), `item 16` (JSON/NDJSON). */
  text: string;
  /** Source file or URL as given on the command line (credentials stripped from URLs). */
  source: string;
  /** CSV/NDJSON: 1-based line; XLSX: 1-based row; JSON array: 1-based item index. */
  line: number;
  /** XLSX only: the sheet's name. */
  sheet?: string;
}

export interface SourceRow {
  location: Location;
  /** Header -> cell, in header order. Built with a null prototype: `__proto__` is an ordinary key. */
  readonly cells: Record<string, Cell>;
  /** 1-based index of the data row within its source (or sheet). */
  index: number;
  /** A row-level problem found while reading (ragged row, ...): the row is still yielded for the report. */
  error?: { code: string; message: string };
  /**
   * Table sources (CSV, XLSX): the same cells by position, one per header, and the headers they line up
   * with (one array shared by every row of a sheet, so a consumer can work out its plan once per sheet).
   */
  readonly values?: readonly Cell[];
  readonly headers?: readonly string[];
  /**
   * CSV: the texts of the row's quoted cells that hold an escaped quote (`"12"" PAN"` gives `12" PAN`),
   * as read, before any trim: that quote is the file's own, not a stray one. Absent on most rows.
   */
  escapedQuotes?: readonly string[];
}

/**
 * A row of a table source. Its cells live in an array by header position; the by-name record is built
 * only when someone asks for it (the rejects file, a preview), because building a keyed record for
 * every row of a large file costs more than reading it.
 */
export class TableRow implements SourceRow {
  // Declared, not defined: set on few rows, they take no room in the others (a row of a large file is
  // made hundreds of thousands of times).
  declare error?: { code: string; message: string };
  declare escapedQuotes?: readonly string[];
  declare private named?: Record<string, Cell>;
  /**
   * Made when someone asks for it, for a CSV row (`line 17`): a large file's rows are mostly judged by
   * their line number alone (the duplicate check), and a string per row costs time.
   */
  private where: Location | undefined;
  /** CSV: the physical line the record starts on; XLSX: the row. */
  readonly line: number;
  private readonly source: string;
  /** The location is `line N` of the source (a CSV row): the duplicate check needs no text to place it. */
  readonly byLine: boolean;

  /** A row with its location, or (`location` undefined) a CSV row at `line` of `source`. */
  constructor(
    location: Location | undefined,
    readonly values: readonly Cell[],
    readonly headers: readonly string[],
    readonly index: number,
    line = location?.line ?? 0,
    source = location?.source ?? '',
  ) {
    this.where = location;
    this.line = line;
    this.source = source;
    this.byLine = location === undefined;
  }

  get location(): Location {
    this.where ??= { text: `line ${this.line}`, source: this.source, line: this.line };
    return this.where;
  }

  get cells(): Record<string, Cell> {
    if (this.named) return this.named;
    const named = Object.create(null) as Record<string, Cell>;
    for (let i = 0; i < this.headers.length; i++) named[this.headers[i]!] = this.values[i] ?? null;
    this.named = named;
    return named;
  }

  /** Plain data (tests and `--json` previews compare and print rows as records). */
  toJSON(): { location: Location; cells: Record<string, Cell>; index: number; error?: TableRow['error'] } {
    return {
      location: this.location,
      cells: this.cells,
      index: this.index,
      ...(this.error && { error: this.error }),
    };
  }
}

/**
 * A reader core that holds rows already read (NDJSON parses a chunk's lines together): the rows it
 * holds are taken without waiting, one promise per row fewer. Internal to the readers.
 */
export interface BufferedRows extends AsyncIterator<SourceRow> {
  /** The next row when it is already read, else undefined (then call `next()`). */
  takeBuffered(): SourceRow | undefined;
}
