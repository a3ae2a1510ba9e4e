// Source row -> entity drafts. The plan for each header is worked out once (`layout.ts`; lazily: JSON rows
// may bring new keys) and every row then runs the same small steps: fill down, command (`commands.ts`),
// cells -> values (`values.ts`) into drafts (`drafts.ts`), field rules, grouping of product columns shared
// by variant rows. `plain.ts` is the validator's shortcut for rows of simple profiles.
import type { Cell, SourceRow } from '../readers/types.js';
import type { EntityModel, TenantModel } from '../schema/model.js';
import { unneutralise } from '../writers/formula.js';
import { collect, collectByParent, readCommand } from './commands.js';
import { assign, emptyDraft, type Part, refOf } from './drafts.js';
import { ProductGroups } from './grouping.js';
import { ColumnPlanner, type FieldPlan, type Layout } from './layout.js';
import { type PlainColumn, plainCell, plainLayout } from './plain.js';
import type { Profile } from './profile-types.js';
import type { MappedRow, RowIssue, Value } from './types.js';
import { isBlank } from './values.js';

export type { PlainColumn } from './plain.js';

export interface MapperOptions {
  model: TenantModel;
  profile: Profile;
  /** Unknown and read-only columns are row errors instead of warnings. */
  strict?: boolean;
  /**
   * Read a text cell that starts with a quote before = + - @ (the CSV export's spreadsheet-injection
   * guard) as the text after the quote, so an exported CSV re-imports unchanged.
   */
  unguardFormulas?: boolean;
}

export interface Mapper {
  map(row: SourceRow): MappedRow;
  /**
   * How a row is read when the plain rules alone are all it needs: a table row of a simple profile (no
   * variants, fill-down, field rules, value tables, defaults, enums or assets) without a command. One
   * array per header list (position -> column, null for a column the row does not use); undefined
   * when `map` must decide. With `plainCell`, it gives what `map` would put in the row's one draft.
   */
  plainColumns(row: SourceRow): ReadonlyArray<PlainColumn | null> | undefined;
  /**
   * One cell read by the plain rules: its value, null for a blank cell, undefined when only `map` can
   * say (a cell the one-pass readers do not settle). It never reports a problem itself.
   */
  plainCell(cell: Cell | undefined, column: PlainColumn): Value | Value[] | null | undefined;
  /** The profile's entity (the one plain rows write). */
  readonly entity: string;
  /** File-level notes (unknown or ignored columns), each once. */
  readonly warnings: string[];
}

export function createMapper(options: MapperOptions): Mapper {
  return new ProfileMapper(options);
}

class ProfileMapper implements Mapper {
  private readonly planner: ColumnPlanner;
  private readonly above = new Map<string, Cell>();
  /** The reference the rows above named last (`fillDown`): a row naming another starts a record. */
  private aboveKey: string | undefined;
  private readonly unguardFormulas: boolean;
  private readonly groups: ProductGroups | undefined;

  constructor({ model, profile, strict = false, unguardFormulas = false }: MapperOptions) {
    this.unguardFormulas = unguardFormulas;
    this.planner = new ColumnPlanner(model, profile, strict, unguardFormulas);
    if (this.planner.variant) this.groups = new ProductGroups(profile.groupWindow ?? 1000);
  }

  get entity(): string {
    return this.planner.main.name;
  }

  get warnings(): string[] {
    return this.planner.warnings;
  }

  map(row: SourceRow): MappedRow {
    const { planner } = this;
    // Table rows bring their cells by position and share one header list: the layout is worked out
    // once per sheet. Keyed rows (JSON) are laid out the same way, from their own keys.
    const layout =
      row.values && row.headers
        ? planner.layoutFor(row.headers)
        : planner.layoutFor(Object.keys(row.cells), true);
    const read = row.values ?? layout.headers.map((header) => row.cells[header]!);
    const cells = this.prepare(read, layout);
    const issues: RowIssue[] = [];
    if (row.error)
      issues.push({
        code: 'MAP_COERCE',
        severity: 'error',
        message: row.error.message,
        brief: row.error.message,
      });
    const commandCell = layout.commandAt < 0 ? undefined : cells[layout.commandAt];
    // Messages name the profile's own columns as the file's header writes them.
    const command = readCommand(
      commandCell,
      headerAt(layout, layout.commandAt, planner.commandColumn),
      issues,
    );
    const result: MappedRow = {
      location: row.location,
      row,
      drafts: [],
      issues,
      skipped: false,
      commandGiven: !isBlank(commandCell),
    };
    const parts: Part[] = [];
    for (let i = 0; i < planner.entities.length; i++) {
      const entity = planner.entities[i]!;
      parts.push({ entity, touched: false, draft: emptyDraft(entity, command, row, layout.columns[i]!) });
    }
    let blank = true;
    const { plans, headers } = layout;
    for (let i = 0; i < plans.length; i++) {
      if (blank && !isBlank(read[i])) blank = false;
      const plan = plans[i];
      if (plan === null || plan === undefined) continue;
      const cell = cells[i]!;
      if (plan === 'unknown' || plan === 'readonly') {
        if (planner.strict && !isBlank(cell))
          issues.push(unknownColumnIssue(headers[i]!, plan, planner.main, cell));
        continue;
      }
      assign(parts, plan, cell, plan.header, issues);
    }
    if (blank) {
      result.skipped = true;
      return result;
    }
    // --strict: a profile column the table's header lacks leaves every row without what it maps.
    if (planner.strict && layout.missing.length > 0) issues.push(missingColumnIssue(layout.missing));
    for (const plan of planner.fieldPlans) this.applyFieldRule(parts, plan, layout, cells, issues);
    for (const part of parts) part.draft.ref = refOf(part);
    // Not written, nor its values judged; its line names its record, which a full sync then keeps.
    if (command === 'IGNORE') return skippedNaming(result, parts);
    if (layout.scopeAt >= 0 && !isBlank(cells[layout.scopeAt])) {
      // A store view's row: its report line names the record it overrides (the one its default row
      // writes last, as that row's line does).
      result.skipReason = scopeSkipReason(layout.headers[layout.scopeAt]!, cells[layout.scopeAt]);
      return skippedNaming(result, parts);
    }
    if (layout.parentAt >= 0) {
      const cellOf = (column: string) => cellNamed(layout, cells, column);
      const { ownVariant = false } = planner.profile;
      collectByParent(
        result,
        parts,
        cells[layout.parentAt],
        { parentColumn: layout.headers[layout.parentAt]!, ownVariant },
        cellOf,
      );
    } else collect(result, parts, command, this.groups);
    return result;
  }

  plainColumns(row: SourceRow): ReadonlyArray<PlainColumn | null> | undefined {
    const { values, headers } = row;
    if (!values || !headers || row.error) return undefined;
    const layout = this.planner.layoutFor(headers);
    if (layout.plain === undefined) layout.plain = plainLayout(layout, this.planner);
    if (layout.plain === null) return undefined;
    if (layout.commandAt >= 0 && !isBlank(values[layout.commandAt])) return undefined;
    return layout.plain;
  }

  plainCell(cell: Cell | undefined, column: PlainColumn): Value | Value[] | null | undefined {
    return plainCell(cell, column, this.unguardFormulas);
  }

  /**
   * The cells the row is mapped from: with the export's formula guard taken off (when asked) and blank
   * cells filled from the row above (`fillDown`). The row as read is left as it is, for the rejects file.
   */
  private prepare(read: readonly Cell[], layout: Layout): readonly Cell[] {
    let out: Cell[] | undefined;
    if (this.unguardFormulas) {
      for (let i = 0; i < read.length; i++) {
        const cell = read[i];
        if (typeof cell !== 'string' || cell.charCodeAt(0) !== 39 /* ' */) continue;
        const plain = unneutralise(cell);
        if (plain === cell) continue;
        out ??= read.slice();
        out[i] = plain;
      }
    }
    const fills = layout.fillDown;
    if (!fills) return out ?? read;
    out ??= read.slice();
    // A row naming another record than the row above starts it: its blank cells stay blank (and are
    // what the rows after it continue), never the previous record's values.
    const key = layout.keyAt >= 0 ? out[layout.keyAt] : undefined;
    const keyText = isBlank(key) ? undefined : String(key).trim();
    const starts = keyText !== undefined && keyText !== this.aboveKey;
    if (keyText !== undefined) this.aboveKey = keyText;
    for (let i = 0; i < out.length; i++) {
      if (!fills[i]) continue;
      const header = layout.headers[i]!;
      if (!isBlank(out[i])) this.above.set(header, out[i]!);
      else if (starts) this.above.delete(header);
      else out[i] = this.above.get(header) ?? out[i]!;
    }
    return out;
  }

  /** A field rule: a constant, a template of columns, or the first of several columns with a value. */
  private applyFieldRule(
    parts: Part[],
    plan: FieldPlan,
    layout: Layout,
    cells: readonly Cell[],
    issues: RowIssue[],
  ): void {
    const named = (name: string) => cellNamed(layout, cells, name);
    const { rule } = plan;
    if (rule.constant !== undefined) {
      assign(parts, plan, rule.constant, `(constant ${plan.key})`, issues);
    } else if (rule.template !== undefined) {
      let any = false;
      const text = rule.template.replace(/\{([^{}]+)\}/g, (_, name: string) => {
        const cell = named(name);
        if (isBlank(cell)) return '';
        any = true;
        // A list (a JSON array) reads as its column joins it (`join`), else as `a, b`.
        if (Array.isArray(cell)) return cell.filter((c) => !isBlank(c)).join(joinOf(layout, name) ?? ', ');
        return String(cell).trim();
      });
      assign(parts, plan, any ? text.trim() : '', rule.template, issues);
    } else if (rule.from) {
      const header = rule.from.find((h) => !isBlank(named(h)));
      assign(parts, plan, header ? named(header)! : '', header ?? rule.from.join(' | '), issues);
    }
  }
}

/** A row that is skipped, its issues dropped, and its record named: the last part that has a ref. */
function skippedNaming(result: MappedRow, parts: readonly Part[]): MappedRow {
  result.skipped = true;
  result.issues.length = 0;
  const named = parts.findLast((part) => part.draft.ref !== '');
  if (named) result.record = { entity: named.entity.name, ref: named.draft.ref };
  return result;
}

/** The `join` of the column `name`'s own rule, if it has one. */
function joinOf(layout: Layout, name: string): string | undefined {
  const at = positionOf(layout, name);
  const plan = at === undefined ? undefined : layout.plans[at];
  return typeof plan === 'object' && plan !== null ? plan.rule.join : undefined;
}

/** The header at a position (the profile's `name` when the file has none there). */
function headerAt(layout: Layout, at: number, name: string): string {
  return at < 0 ? name : layout.headers[at]!;
}

/** A cell of the row by its column name (field rules name their columns). */
function cellNamed(layout: Layout, cells: readonly Cell[], name: string): Cell | undefined {
  const at = positionOf(layout, name);
  return at === undefined ? undefined : cells[at];
}

/** Where the column a profile names is: as written, else the header that differs only in case (`aliases`). */
function positionOf(layout: Layout, name: string): number | undefined {
  layout.positions ??= new Map(layout.headers.map((header, i) => [header, i]));
  return layout.positions.get(name) ?? layout.aliases.get(name);
}

/** --strict: the profile's columns the table's header lacks (one: named as the issue's column). */
function missingColumnIssue(columns: readonly string[]): RowIssue {
  if (columns.length === 1) {
    const message = "the profile names it and the file's header does not have it (--strict)";
    return { code: 'MAP_MISSING_COLUMN', severity: 'error', column: columns[0]!, message, brief: message };
  }
  const message = `the profile's columns ${columns.map((c) => JSON.stringify(c)).join(', ')} are not in the file's header (--strict)`;
  return { code: 'MAP_MISSING_COLUMN', severity: 'error', message, brief: message };
}

function unknownColumnIssue(
  header: string,
  plan: 'unknown' | 'readonly',
  entity: EntityModel,
  cell: Cell,
): RowIssue {
  const why =
    plan === 'readonly' ? 'is a read-only field: leave it out' : `does not match a field of ${entity.name}`;
  return {
    code: 'MAP_UNKNOWN_COLUMN',
    severity: 'error',
    column: header,
    value: cell,
    message: why,
    brief: why,
  };
}

/** A store view's row overrides the default row: the tenant has languages, not store views. */
function scopeSkipReason(column: string, cell: Cell | undefined): string {
  return `column "${column}": a row for store view "${String(cell).trim()}" overrides the product's default row for that store view; the tenant keeps no values per store view, so it is skipped (the default row, with "${column}" empty, is imported)`;
}
