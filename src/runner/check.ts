// The first half of validate and import, shared so both judge a row the same way: map the source
// row to drafts, validate every draft against the write-schemas, flag duplicate refs, and keep the
// counts of the most frequent problems in bounded memory.
import { createMapper, type Mapper, type PlainRow } from '../mappers/mapper.js';
import type { Profile } from '../mappers/profile-types.js';
import type { Command, MappedRow, RowIssue } from '../mappers/types.js';
import type { SourceRow } from '../readers/types.js';
import { describeValue, fullSentence } from '../schema/messages.js';
import type { TenantModel } from '../schema/model.js';
import { DraftValidator } from '../schema/validator.js';
import type { FieldCheck } from '../schema/write-schema.js';
import { DEFAULT_REF_LIMIT, RefTracker } from './ref-tracker.js';

export interface CheckOptions {
  model: TenantModel;
  profile: Profile;
  strict?: boolean;
  /** Refs remembered for the duplicate check (default 1,000,000). */
  refLimit?: number;
  /** The command of rows without a `_command` cell (import `--mode`); default MERGE. */
  defaultCommand?: Command;
  /**
   * Read a text cell that starts with a quote before = + - @ (the CSV export's spreadsheet-injection
   * guard) as the text after the quote, so an exported CSV re-imports unchanged. On for CSV sources
   * unless `--raw`.
   */
  unguardFormulas?: boolean;
}

/** What the plain lane (`RowChecker.quick`) says of a row: its one draft's entity and ref, and its errors. */
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

export class RowChecker {
  private readonly mapper: Mapper;
  private readonly validator: DraftValidator;
  private readonly refs: RefTracker;
  private readonly kinds = new Map<string, number>();
  private readonly plainTests = new Map<PlainRow['columns'], Array<FieldCheck['value'] | null> | null>();
  private readonly commandColumn: string;

  constructor(private readonly options: CheckOptions) {
    this.mapper = createMapper({
      model: options.model,
      profile: options.profile,
      strict: options.strict ?? false,
      unguardFormulas: options.unguardFormulas ?? false,
    });
    this.validator = new DraftValidator(options.model);
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
    const plain = this.mapper.plain(row);
    if (!plain) return undefined;
    const tests = this.quickTests(plain);
    if (!tests) return undefined;
    const { values } = plain;
    for (let i = 0; i < tests.length; i++) {
      const test = tests[i];
      const value = values[i];
      if (test && value !== undefined && !test(value)) return undefined;
    }
    let errors = NO_ERRORS;
    const first = this.refs.check(plain.entity, plain.ref, row.location.text, row.location.line);
    if (first !== undefined) {
      const at = plain.columns.findIndex((column) => column?.ref);
      errors = [this.duplicateIssue(plain.entity, plain.ref, first, row.headers?.[at])];
      this.countKind(fullSentence(undefined, errors[0]!.column, errors[0]!.brief));
    }
    return { entity: plain.entity, ref: plain.ref, errors };
  }

  /** Per plain layout: each column's value test (null: nothing to test), or null when a field is left to Ajv. */
  private quickTests(plain: PlainRow): Array<FieldCheck['value'] | null> | null {
    let tests = this.plainTests.get(plain.columns);
    if (tests !== undefined) return tests;
    tests = [];
    for (const column of plain.columns) {
      if (!column || column.field === undefined) {
        tests.push(null);
        continue;
      }
      const test = this.validator.fieldCheck(plain.entity, column.field, column.culture);
      if (!test) {
        tests = null;
        break;
      }
      tests.push(test);
    }
    this.plainTests.set(plain.columns, tests);
    return tests;
  }

  private duplicateIssue(entity: string, ref: string, first: string, column: string | undefined): RowIssue {
    const field = this.options.model.entity(entity)?.refField ?? '';
    const brief = `duplicate reference: already used by ${first}`;
    return {
      code: 'VALIDATION',
      severity: 'error',
      field,
      ...(column !== undefined && { column }),
      value: ref,
      brief,
      message: `${brief} (${describeValue(ref)})`,
    };
  }

  check(row: SourceRow): CheckedRow {
    const mapped = this.mapper.map(row);
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
    const explicit = mapped.commandGiven;
    // Products of a one-row-per-variant feed repeat by design: the grouping checks them instead.
    const groupedProducts = profile.variants === true && !profile.parentColumn;
    for (const draft of mapped.drafts) {
      if (defaultCommand && !explicit && draft.command === 'MERGE') draft.command = defaultCommand;
      for (const issue of this.validator.validate(draft)) add(issue);
      if (!draft.ref || (groupedProducts && draft.entity === profile.entity)) continue;
      const first = this.refs.check(draft.entity, draft.ref, row.location.text, row.location.line);
      if (first !== undefined) {
        const field = model.entity(draft.entity)?.refField ?? '';
        add(this.duplicateIssue(draft.entity, draft.ref, first, draft.source.columns[field]));
      }
    }
    for (const issue of errors) this.countKind(fullSentence(undefined, issue.column, issue.brief));
    return { mapped, errors, skipped: errors.length === 0 && mapped.skipped };
  }

  /** Counts a problem kind for the summary's most frequent problems. */
  countKind(kind: string): void {
    const count = this.kinds.get(kind);
    if (count !== undefined) this.kinds.set(kind, count + 1);
    else if (this.kinds.size < MAX_KINDS) this.kinds.set(kind, 1);
  }

  topErrors(top = 10): Array<{ message: string; count: number }> {
    return [...this.kinds.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([message, count]) => ({ message, count }));
  }

  /** File-level notes: unknown or ignored columns, and a duplicate check that stopped at its limit. */
  warnings(): string[] {
    const warnings = [...this.mapper.warnings];
    if (this.refs.overflowed) {
      warnings.push(
        `more than ${this.options.refLimit ?? DEFAULT_REF_LIMIT} references: duplicates were checked for the first ones only`,
      );
    }
    return warnings;
  }
}
