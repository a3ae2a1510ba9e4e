// The first half of validate and import, shared so both judge a row the same way: map the source
// row to drafts, validate every draft against the write-schemas, flag duplicate refs, and keep the
// counts of the most frequent problems in bounded memory.
import { createMapper, type Mapper, type PlainColumn } from '../mappers/mapper.js';
import type { Profile } from '../mappers/profile-types.js';
import type { Command, MappedRow, RowIssue, Value } from '../mappers/types.js';
import { paddedItems } from '../mappers/values.js';
import { type Cell, type SourceRow, TableRow } from '../readers/types.js';
import { describeValue, fullSentence } from '../schema/messages.js';
import type { TenantModel } from '../schema/model.js';
import { DraftValidator } from '../schema/validator.js';
import type { FieldCheck } from '../schema/write-schema.js';
import { EXCEL_CELL_CHARS } from '../writers/xlsx-text.js';
import { DEFAULT_REF_LIMIT, RefTracker } from './ref-tracker.js';

export interface CheckOptions {
  model: TenantModel;
  profile: Profile;
  strict?: boolean;
  /** Refs the duplicate check keeps in memory before it writes them to disk (default 1,000,000). */
  refLimit?: number;
  /** The command of rows without a `_command` cell (import `--mode`); default MERGE. */
  defaultCommand?: Command;
  /**
   * Read a text cell that starts with a quote before = + - @ (the CSV export's spreadsheet-injection
   * guard) as the text after the quote, so an exported CSV re-imports unchanged. On for CSV sources
   * unless `--raw`.
   */
  unguardFormulas?: boolean;
  /**
   * A double quote in a ref may be a stray one the file's quoting left (CSV): the row is warned. Off for
   * sources without quoting (XLSX, JSON), where a quote is the cell's own text. Default on.
   */
  strayQuotes?: boolean;
  /**
   * The plain lane keeps each row's links to other records (`quickLinks`) for validate's reference check.
   */
  collectLinks?: boolean;
  /**
   * Answers the duplicate check in place of the checker's own (validate's threads: a part of the file
   * checked on its own notes its refs for the thread that knows the whole file, which answers them).
   */
  duplicates?: DuplicateAnswers;
}

/** The duplicate check's question, asked in row order: where this ref was used first, or undefined. */
export type DuplicateAnswers = (entity: string, ref: string, line: number) => string | undefined;

/** A problem kind's count in a part of the file, and the first row that had it (see `RowChecker.takeKinds`). */
export type KindCount = [kind: string, count: number, first: string | undefined];

/**
 * What the plain lane (`RowChecker.quick`) says of a row: its one draft's entity and ref, and its errors.
 * One object, filled again for every row (read it before the next row is judged).
 */
export interface QuickChecked {
  entity: string;
  ref: string;
  /** Empty, or the duplicate reference (the only problem a plain row can still have). */
  errors: RowIssue[];
}

export interface CheckedRow {
  mapped: MappedRow;
  /** Problems that make the row invalid. */
  errors: RowIssue[];
  /** The row asks to be skipped (IGNORE, or blank). */
  skipped: boolean;
}

/** How many distinct problem kinds are counted; beyond, new kinds are not (memory stays bounded). */
const MAX_KINDS = 10_000;

const NO_ERRORS: RowIssue[] = [];

type FieldTest = FieldCheck['value'];

/** How the plain lane reads one layout: per position, the field's fast test and the verdicts kept. */
interface PlainLane {
  tests: Array<FieldTest | null>;
  verdicts: Array<VerdictMemory | undefined>;
  /** Per link column: the last text read, and its reading (`collectLinks`). */
  lastLinkText: Array<string | undefined>;
  lastLinkValue: Array<Value | Value[] | null | undefined>;
}

/**
 * The plain lane's verdicts on the texts of one column, in bounded memory: at most 4,096 texts, and
 * none once the column shows it rarely repeats (a name, a description), where keeping costs more than
 * it saves.
 */
class VerdictMemory {
  private readonly known = new Map<string, boolean>();
  private lookups = 0;
  private hits = 0;
  private off = false;

  get(text: string): boolean | undefined {
    if (this.off) return undefined;
    const known = this.known.get(text);
    if (known !== undefined) this.hits++;
    if (++this.lookups === 1024 && this.hits * 4 < this.lookups) {
      // After a thousand cells, fewer than one in four repeated: stop keeping.
      this.off = true;
      this.known.clear();
    }
    return known;
  }

  remember(text: string, ok: boolean): void {
    if (!this.off && this.known.size < 4096) this.known.set(text, ok);
  }
}

/**
 * The links of the last row the plain lane judged (`collectLinks`): the columns' positions and values, in
 * arrays the checker reuses row after row (`count` of them hold this row's).
 */
export interface QuickLinks {
  count: number;
  at: number[];
  columns: PlainColumn[];
  values: Array<Value | Value[]>;
  /** The attribute set ids of the row (`typ_id`), `sets` of them in `setValues` (their columns at `setAt`). */
  sets: number;
  setAt: number[];
  setFields: string[];
  setValues: Value[];
}

/** A kind of problem of the summary: how many rows had it, and the first of them (`line 2`). */
export interface TopProblem {
  message: string;
  count: number;
  first?: string;
}

/**
 * A reference that holds a double quote: most likely a stray quote the file kept (eShopOnContainers'
 * `Roslyn Red T-Shirt",12`: a quote opens a quoted cell only at its start, elsewhere it is text). It is
 * written as given, with a warning on the row, once per column. Not for a CSV cell quoted as CSV quotes
 * a quote (`"12"" PAN"`, see `escapedInFile`): that quote is meant.
 */
/** The ref is a quoted CSV cell of the row whose quote was written `""`: the file's own quote. */
function escapedInFile(row: SourceRow, ref: string): boolean {
  const texts = row.escapedQuotes;
  return texts?.some((text) => text === ref || text.trim() === ref) === true;
}

function quotedRefWarning(mapped: MappedRow, draft: MappedRow['drafts'][number], model: TenantModel): void {
  const field = model.entity(draft.entity)?.refField ?? '';
  const column = draft.source.columns[field];
  const where = column === undefined ? '' : `column ${JSON.stringify(column)}: `;
  const message = `${where}the reference ${describeValue(draft.ref)} holds a double quote ("), kept as part of it: a stray quote in the file?`;
  if (mapped.issues.some((issue) => issue.message === message)) return;
  mapped.issues.push({
    code: 'MAP_COERCE',
    severity: 'warning',
    field,
    ...(column !== undefined && { column }),
    value: draft.ref,
    message,
    brief: message,
  });
}

/**
 * A text cell of an XLSX row exactly as long as Excel lets a cell be: Excel cuts a longer text to that
 * length when it saves the workbook, so the end of the value may be missing. Said, the row is read as is.
 */
function excelLimitWarnings(row: SourceRow, issues: RowIssue[]): void {
  const at = excelLimitCells(row);
  if (at === undefined) return;
  for (const i of at) {
    const column = row.headers?.[i];
    const message = `${column === undefined ? '' : `column ${JSON.stringify(column)}: `}the cell holds ${EXCEL_CELL_CHARS.toLocaleString('en')} characters, Excel's limit: it may have been cut`;
    issues.push({
      code: 'MAP_COERCE',
      severity: 'warning',
      ...(column !== undefined && { column }),
      message,
      brief: message,
    });
  }
}

/** The positions of an XLSX row's text cells of exactly EXCEL_CELL_CHARS characters, or undefined. */
function excelLimitCells(row: SourceRow): number[] | undefined {
  const { values } = row;
  // (A CSV row is placed by its line alone: its location is not made for this.)
  if (!values || (row instanceof TableRow && row.byLine) || row.location.sheet === undefined)
    return undefined;
  let at: number[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const cell = values[i];
    if (typeof cell !== 'string' || cell.length !== EXCEL_CELL_CHARS) continue;
    at ??= [];
    at.push(i);
  }
  return at;
}

/**
 * A row's warnings for its report line, the same in validate, plan and import: the mapper's (a value the
 * row's drafts leave out), then `more`. Most rows have none, and share the list they were given.
 */
/**
 * A row's location for `countKind`, asked for only when a problem kind is new. Made here, not by an
 * arrow where the row is checked: an arrow that names a row loop's `row` (or a per-row function's
 * parameter) makes V8 keep that row in an object of its own for every row, whether the arrow is made
 * or not (validate of 300k rows: 13 MB).
 */
export function whereOf(row: { readonly location: { readonly text: string } }): () => string {
  return () => row.location.text;
}

export function rowWarnings(issues: readonly RowIssue[], more: readonly string[]): readonly string[] {
  let said: string[] | undefined;
  for (const issue of issues) {
    if (issue.severity !== 'warning') continue;
    said ??= [];
    said.push(issue.message);
  }
  return said ? [...said, ...more] : more;
}

export class RowChecker {
  /** See QuickLinks: filled by `quick` when `collectLinks`. */
  readonly quickLinks: QuickLinks = {
    count: 0,
    at: [],
    columns: [],
    values: [],
    sets: 0,
    setAt: [],
    setFields: [],
    setValues: [],
  };
  /** What `quick` returns, filled again for every row: no object per row. */
  private readonly quickSaid: QuickChecked = { entity: '', ref: '', errors: NO_ERRORS };
  private readonly mapper: Mapper;
  private readonly validator: DraftValidator;
  private readonly refs: RefTracker;
  /** Problem kind -> how many rows, and where it was first met. */
  private readonly kinds = new Map<string, { count: number; first: string | undefined }>();
  private readonly lanes = new Map<ReadonlyArray<PlainColumn | null>, PlainLane | null>();
  private readonly commandColumn: string;

  constructor(private readonly options: CheckOptions) {
    this.mapper = createMapper({
      model: options.model,
      profile: options.profile,
      strict: options.strict ?? false,
      unguardFormulas: options.unguardFormulas ?? false,
    });
    this.validator = DraftValidator.for(options.model);
    this.refs = new RefTracker(options.refLimit ?? DEFAULT_REF_LIMIT);
    this.commandColumn = options.profile.commandColumn ?? '_command';
  }

  /**
   * The plain lane, for validate: a row the mapper reads by its plain rules alone and whose every value
   * the write-schema's fast check accepts is judged here without drafts; undefined sends the row to
   * `check`, which judges everything else (and alone writes messages other than a duplicate's). Both
   * give the same verdict: a property test holds them to it.
   */
  quick(row: SourceRow): QuickChecked | undefined {
    if (this.options.defaultCommand !== undefined) return undefined;
    const columns = this.mapper.plainColumns(row);
    if (!columns) return undefined;
    const lane = this.laneFor(columns);
    if (!lane) return undefined;
    // A cell Excel may have cut is a warning only the full check writes.
    if (excelLimitCells(row) !== undefined) return undefined;
    const values = row.values!;
    let ref: string | undefined;
    let refAt = -1;
    const links = this.quickLinks;
    links.count = 0;
    links.sets = 0;
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i];
      if (!column) continue;
      const cell = values[i];
      if (column.attributeSet && this.options.collectLinks) {
        // An attribute set's id: the reference check asks the tenant's sets for it.
        const value = this.mapper.plainCell(cell, column);
        if (value === undefined || Array.isArray(value)) return undefined;
        if (value === null) continue;
        if (!this.passes(lane.tests[i], value)) return undefined;
        const n = links.sets++;
        links.setAt[n] = i;
        links.setFields[n] = column.field!;
        links.setValues[n] = value;
        continue;
      }
      if (column.link !== undefined && this.options.collectLinks) {
        // Links repeat row after row (a category, a product's variants): the last cell's reading is kept.
        let value: Value | Value[] | null | undefined;
        if (typeof cell === 'string' && lane.lastLinkText[i] === cell) value = lane.lastLinkValue[i];
        else {
          value = this.mapper.plainCell(cell, column);
          // A ref with spaces at its ends: the full check gives the reference check its spelling as written.
          if (typeof cell === 'string' && paddedItems(cell, column.multiple && column.separator))
            value = undefined;
          if (typeof cell === 'string') {
            lane.lastLinkText[i] = cell;
            lane.lastLinkValue[i] = value;
          }
        }
        if (value === undefined) return undefined;
        if (value === null) continue;
        const n = links.count++;
        links.at[n] = i;
        links.columns[n] = column;
        links.values[n] = value;
        continue;
      }
      if (column.ref) {
        const value = this.mapper.plainCell(cell, column);
        if (value === undefined || value === null) return undefined;
        if (!this.passes(lane.tests[i], value)) return undefined;
        ref = String(value);
        // A quote in a ref is a warning only the full check writes; a ref with spaces at its ends is
        // asked of the tenant as written too (the reference check, from the full check's drafts).
        if (ref.includes('"')) return undefined;
        if (this.options.collectLinks && typeof cell === 'string' && cell !== ref) return undefined;
        refAt = i;
        continue;
      }
      // A column's cells often repeat (a category, a size, a date): the verdict on a text is kept.
      const verdicts = lane.verdicts[i];
      if (verdicts && typeof cell === 'string') {
        const known = verdicts.get(cell);
        if (known === undefined) {
          const ok = this.plainOk(cell, column, lane.tests[i]);
          verdicts.remember(cell, ok);
          if (!ok) return undefined;
        } else if (!known) return undefined;
        continue;
      }
      if (!this.plainOk(cell, column, lane.tests[i])) return undefined;
    }
    if (!ref) return undefined;
    const entity = this.mapper.entity;
    let errors = NO_ERRORS;
    const first = this.firstUse(entity, ref, row);
    if (first !== undefined) {
      errors = [this.duplicateIssue(entity, ref, first, row.headers?.[refAt])];
      this.countKind(fullSentence(undefined, errors[0]!.column, errors[0]!.brief), whereOf(row));
    }
    const said = this.quickSaid;
    said.entity = entity;
    said.ref = ref;
    said.errors = errors;
    return said;
  }

  /** The cell's plain reading is settled and its value (if any) passes the field's fast test. */
  private plainOk(cell: Cell | undefined, column: PlainColumn, test: FieldTest | null): boolean {
    const value = this.mapper.plainCell(cell, column);
    return value !== undefined && (value === null || this.passes(test, value));
  }

  private passes(test: FieldTest | null, value: Value | Value[]): boolean {
    return test === null || test(value);
  }

  /** Per plain layout: each column's fast test and verdict memory; null when a field is left to Ajv. */
  private laneFor(columns: ReadonlyArray<PlainColumn | null>): PlainLane | null {
    let lane = this.lanes.get(columns);
    if (lane !== undefined) return lane;
    const tests: Array<FieldTest | null> = [];
    const verdicts: Array<VerdictMemory | undefined> = [];
    lane = { tests, verdicts, lastLinkText: [], lastLinkValue: [] };
    for (const column of columns) {
      // Texts, integers and dates are read and tested in about the time a lookup takes: only lists (split)
      // and decimal numbers (a decimal comma is rewritten) are kept.
      const costly = column !== null && !column.ref && (column.multiple || column.type === 'number');
      verdicts.push(costly ? new VerdictMemory() : undefined);
      if (!column) {
        tests.push(null);
        continue;
      }
      if (column.field === undefined) {
        // A link to other records.
        tests.push(null);
        continue;
      }
      // A date or date-time read by the plain rules is in its canonical form: its format is settled.
      const settled = column.type === 'date' || column.type === 'date-time' ? column.type : undefined;
      const test = this.validator.fieldCheck(this.mapper.entity, column.field, column.culture, settled);
      if (!test) {
        lane = null;
        break;
      }
      tests.push(test);
    }
    this.lanes.set(columns, lane);
    return lane;
  }

  private duplicateIssue(entity: string, ref: string, first: string, column: string | undefined): RowIssue {
    const field = this.options.model.entity(entity)?.refField ?? '';
    // Said from the row's side: the earlier row has the ref, this one repeats it.
    return {
      code: 'VALIDATION',
      severity: 'error',
      field,
      ...(column !== undefined && { column }),
      value: ref,
      brief: `duplicate reference: first used on ${first}`,
      message: `duplicate reference: ${describeValue(ref)} was first used on ${first}`,
    };
  }

  check(row: SourceRow): CheckedRow {
    const mapped = this.mapper.map(row);
    excelLimitWarnings(row, mapped.issues);
    // Only errors make a row invalid: they are gathered in the order the problems were found. Most rows
    // have none, and share one empty list.
    let errors: RowIssue[] = NO_ERRORS;
    const add = (issue: RowIssue) => {
      if (issue.severity !== 'error') return;
      if (errors === NO_ERRORS) errors = [];
      errors.push(issue);
    };
    for (const issue of mapped.issues) add(issue);
    const { model, profile, defaultCommand } = this.options;
    const strayQuotes = this.options.strayQuotes !== false;
    const explicit = mapped.commandGiven;
    // Products of a one-row-per-variant feed repeat by design: the grouping checks them instead.
    const groupedProducts = profile.variants === true && !profile.parentColumn;
    for (const draft of mapped.drafts) {
      if (defaultCommand && !explicit && draft.command === 'MERGE') draft.command = defaultCommand;
      if (strayQuotes && draft.ref.includes('"') && !escapedInFile(row, draft.ref))
        quotedRefWarning(mapped, draft, model);
      for (const issue of this.validator.validate(draft)) add(issue);
      if (!draft.ref || (groupedProducts && draft.entity === profile.entity)) continue;
      const first = this.firstUse(draft.entity, draft.ref, row);
      if (first !== undefined) {
        const field = model.entity(draft.entity)?.refField ?? '';
        add(this.duplicateIssue(draft.entity, draft.ref, first, draft.source.columns[field]));
      }
    }
    for (const issue of errors)
      this.countKind(fullSentence(undefined, issue.column, issue.brief), whereOf(row));
    return { mapped, errors, skipped: errors.length === 0 && mapped.skipped };
  }

  /**
   * Where this ref was used first, or undefined: the duplicate check. A CSV row is placed by its line
   * alone (its location text is made only if someone asks for it).
   */
  private firstUse(entity: string, ref: string, row: SourceRow): string | undefined {
    const answers = this.options.duplicates;
    if (answers) return answers(entity, ref, row instanceof TableRow ? row.line : row.location.line);
    if (row instanceof TableRow && row.byLine) return this.refs.checkLine(entity, ref, row.line);
    return this.refs.check(entity, ref, row.location.text, row.location.line);
  }

  /** Where the file first gave this ref (any row read so far, valid or not), or undefined. */
  firstLocation(entity: string, ref: string): string | undefined {
    return this.refs.firstLocation(entity, ref);
  }

  /** About how many rows the source holds in all (from its size): the duplicate check makes room at once. */
  expectRows(rows: number): void {
    this.refs.reserve(rows);
  }

  /**
   * Counts a problem kind (a sentence without the row's value: its column and what is wrong) for the
   * summary's most frequent problems; `where` names the row, asked for the first row of a kind only.
   */
  countKind(kind: string, where?: () => string): void {
    const known = this.kinds.get(kind);
    if (known !== undefined) known.count += 1;
    else if (this.kinds.size < MAX_KINDS) this.kinds.set(kind, { count: 1, first: where?.() });
  }

  /** The problem kinds counted so far, in the order first met; the count starts again from none. */
  takeKinds(): KindCount[] {
    const taken: KindCount[] = [];
    for (const [kind, { count, first }] of this.kinds) taken.push([kind, count, first]);
    this.kinds.clear();
    return taken;
  }

  /** Kinds counted elsewhere (a later part of the file), as if counted here row after row. */
  addKinds(kinds: readonly KindCount[]): void {
    for (const [kind, count, first] of kinds) {
      const known = this.kinds.get(kind);
      if (known !== undefined) known.count += count;
      else if (this.kinds.size < MAX_KINDS) this.kinds.set(kind, { count, first });
    }
  }

  /** Answers the duplicate check from the checker's own refs, as `check` does (see CheckOptions.duplicates). */
  firstUseOfLine(entity: string, ref: string, line: number): string | undefined {
    return this.refs.checkLine(entity, ref, line);
  }

  /** No ref so far came out of order (the duplicate check only logs them). */
  get refsInOrder(): boolean {
    return this.refs.inOrder;
  }

  /** The duplicate check of a part's refs read on another thread (RefTracker.checkPart). */
  checkPart(
    hashes: Int32Array,
    lines: Int32Array,
    run: { entity: string; first: string; last: string } | undefined,
  ): Array<string | undefined> | undefined {
    return this.refs.checkPart(hashes, lines, run);
  }

  topErrors(top = 10): TopProblem[] {
    return [...this.kinds.entries()]
      .sort((a, b) => b[1].count - a[1].count)
      .slice(0, top)
      .map(([message, { count, first }]) =>
        first === undefined ? { message, count } : { message, count, first },
      );
  }

  /** File-level notes: unknown or ignored columns. */
  warnings(): string[] {
    return [...this.mapper.warnings];
  }

  /** Lets go of what the duplicate check put on disk (a file of more than `refLimit` refs). */
  close(): void {
    this.refs.close();
  }
}
