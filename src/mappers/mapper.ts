// Source row -> entity drafts. The plan for each header is worked out once (lazily: JSON rows may bring new
// keys) and every row then runs the same small steps: fill down, command, cells -> values, fields rules,
// grouping of product columns shared by variant rows.
import { CatalogIoError } from '../errors.js';
import type { Cell, SourceRow } from '../readers/types.js';
import { isoDay } from '../schema/dates.js';
import { describeValue } from '../schema/messages.js';
import type { EntityModel, TenantModel } from '../schema/model.js';
import { unneutralise } from '../writers/export/safety.js';
import { readAssetValue } from './assets.js';
import { type CoerceType, coerce, plainNumber } from './coerce.js';
import { ProductGroups } from './grouping.js';
import { jsonPath } from './profile.js';
import type { ColumnRule, ConversionRule, FieldRule, Profile } from './profile-types.js';
import { resolveName, type Target, tenantCulture } from './targets.js';
import { COMMANDS, type Command, type Draft, type MappedRow, type RowIssue, type Value } from './types.js';

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

/** A column of a plain layout: where its value goes and how it is read. */
export interface PlainColumn {
  /** The API field; undefined for a link to other records. */
  field: string | undefined;
  /** A language other than the base language (multilingual fields). */
  culture: string | undefined;
  /** The column gives the entity's reference. */
  ref: boolean;
  multiple: boolean;
  separator: string;
  type: 'string' | 'number' | 'integer' | 'date';
}

/** Where a value goes and how it is read: worked out once per column, used for every cell of it. */
interface Placement {
  target: Target;
  rule: ConversionRule;
  /** Index of the target's entity in the row's parts (0: the profile's entity, 1: its variant). */
  part: number;
  multiple: boolean;
  type: CoerceType;
  /** Multilingual fields: the culture written (the base language when the profile names none). */
  culture: string | undefined;
  /** The write path recorded in `draft.source.columns`: `prod_title.fr`, or the field's name. */
  columnKey: string;
  /** The field's name for a field target (undefined for a link). */
  fieldName: string | undefined;
  /** A culture other than the base language: the value goes to `draft.cultures`. */
  otherCulture: string | undefined;
  /** Text cells need only a trim (and a split, for a list): no value table, default, enum or asset. */
  plain: boolean;
  /** The column the layout records for this placement: a row that took another one records its own. */
  column: string;
}

interface ColumnPlan extends Placement {
  header: string;
}

interface FieldPlan extends Placement {
  key: string;
  rule: FieldRule;
}

/** How the columns of one header list are read: a plan per position. */
interface Layout {
  headers: readonly string[];
  /** null: ignored (or the command / parent column). */
  plans: Array<ColumnPlan | null | 'unknown' | 'readonly'>;
  commandAt: number;
  parentAt: number;
  /** Positions filled from the row above when blank; undefined when none is. */
  fillDown: boolean[] | undefined;
  /** Header -> position, built when a field rule first names a column. */
  positions: Map<string, number> | undefined;
  /** The plain reading of this layout (see `Mapper.plain`); null when it has none; undefined: not worked out yet. */
  plain: Array<PlainColumn | null> | null | undefined;
  /**
   * Per part: write path -> the column it comes from, the same for every row of the layout (shared by
   * their drafts, never changed per row; a row whose field rule took another column gets its own).
   */
  columns: Array<Record<string, string>>;
}

/** A draft under construction for one entity of the row. */
interface Part {
  entity: EntityModel;
  draft: Draft;
  /** Some column gave this part a value. */
  touched: boolean;
}

export function createMapper(options: MapperOptions): Mapper {
  return new ProfileMapper(options);
}

class ProfileMapper implements Mapper {
  readonly warnings: string[] = [];
  private readonly model: TenantModel;
  private readonly profile: Profile;
  private readonly strict: boolean;
  private readonly main: EntityModel;
  private readonly variant: EntityModel | undefined;
  private readonly entities: EntityModel[];
  /** header -> plan; null: ignored; 'unknown' / 'readonly': reported as such. */
  private readonly plans = new Map<string, ColumnPlan | null | 'unknown' | 'readonly'>();
  private readonly fieldPlans: FieldPlan[];
  private readonly commandColumn: string;
  private readonly defaults: ConversionRule;
  private readonly fillDown: { all: boolean; headers: Set<string> };
  private readonly above = new Map<string, Cell>();
  private readonly unguardFormulas: boolean;
  private lastLayout: Layout | undefined;
  private readonly groups: ProductGroups | undefined;

  constructor({ model, profile, strict = false, unguardFormulas = false }: MapperOptions) {
    this.unguardFormulas = unguardFormulas;
    this.model = model;
    this.profile = profile;
    this.strict = strict;
    const main = model.entity(profile.entity);
    if (!main) {
      throw new CatalogIoError(
        'SCHEMA_UNKNOWN_ENTITY',
        `Entity "${profile.entity}" is not in this tenant: it has ${model.entities.map((e) => e.name).join(', ')}`,
      );
    }
    this.main = main;
    if (profile.parentColumn && !profile.variants)
      throw profileError('$.parentColumn', 'needs "variants": true');
    if (profile.variants) {
      if (main.kind !== 'products') {
        throw profileError('$.variants', 'variant rows can only be grouped under products');
      }
      this.variant = model.entity('variants');
      if (!this.variant) throw profileError('$.variants', 'this tenant has no variants');
    }
    this.entities = this.variant ? [main, this.variant] : [main];
    this.commandColumn = profile.commandColumn ?? '_command';
    this.defaults = {
      trim: profile.trim ?? true,
      ...(profile.split !== undefined && { split: profile.split }),
      ...(profile.timezone !== undefined && { timezone: profile.timezone }),
      ...(profile.decimal !== undefined && { decimal: profile.decimal }),
      ...(profile.thousands !== undefined && { thousands: profile.thousands }),
      ...(profile.dateFormat !== undefined && { dateFormat: profile.dateFormat }),
    };
    for (const [header, rule] of Object.entries(profile.columns ?? {}))
      this.plans.set(header, this.planColumn(header, rule));
    this.fieldPlans = Object.entries(profile.fields ?? {}).map(([key, rule]) => this.planField(key, rule));
    this.fillDown = {
      all: profile.fillDown === true,
      headers: new Set(Array.isArray(profile.fillDown) ? profile.fillDown : []),
    };
    if (this.variant) this.groups = new ProductGroups(profile.groupWindow ?? 1000);
  }

  map(row: SourceRow): MappedRow {
    // Table rows bring their cells by position and share one header list: the layout is worked out
    // once per sheet. Keyed rows (JSON) are laid out the same way, from their own keys.
    const layout =
      row.values && row.headers ? this.layoutFor(row.headers) : this.layoutFor(Object.keys(row.cells));
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
    const command = this.readCommand(commandCell, issues);
    const result: MappedRow = {
      location: row.location,
      row,
      drafts: [],
      issues,
      skipped: false,
      commandGiven: !isBlank(commandCell),
    };
    if (command === 'IGNORE') {
      result.skipped = true;
      return result;
    }
    const parts: Part[] = [];
    for (let i = 0; i < this.entities.length; i++) {
      const entity = this.entities[i]!;
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
        if (this.strict && !isBlank(cell))
          issues.push(unknownColumnIssue(headers[i]!, plan, this.main, cell));
        continue;
      }
      this.assign(parts, plan, cell, plan.header, issues);
    }
    if (blank) {
      result.skipped = true;
      return result;
    }
    for (const plan of this.fieldPlans) this.applyFieldRule(parts, plan, layout, cells, issues);
    for (const part of parts) part.draft.ref = refOf(part);
    if (layout.parentAt >= 0) this.collectByParent(result, parts, cells[layout.parentAt]);
    else this.collect(result, parts, command);
    return result;
  }

  /** The plan of each position of this header list; the last one is kept (every row of a sheet shares it). */
  private layoutFor(headers: readonly string[]): Layout {
    const last = this.lastLayout;
    if (last && (last.headers === headers || sameHeaders(last.headers, headers))) return last;
    const plans = headers.map((header) =>
      header === this.commandColumn || header === this.profile.parentColumn ? null : this.planFor(header),
    );
    const fills = headers.map((header) => this.fillsDown(header));
    const layout: Layout = {
      headers,
      plans,
      commandAt: headers.indexOf(this.commandColumn),
      parentAt: this.profile.parentColumn ? headers.indexOf(this.profile.parentColumn) : -1,
      fillDown: fills.some(Boolean) ? fills : undefined,
      positions: undefined,
      plain: undefined,
      columns: this.columnsOf(plans),
    };
    this.lastLayout = layout;
    return layout;
  }

  get entity(): string {
    return this.main.name;
  }

  plainColumns(row: SourceRow): ReadonlyArray<PlainColumn | null> | undefined {
    const { values, headers } = row;
    if (!values || !headers || row.error) return undefined;
    const layout = this.layoutFor(headers);
    if (layout.plain === undefined) layout.plain = this.plainLayout(layout);
    if (layout.plain === null) return undefined;
    if (layout.commandAt >= 0 && !isBlank(values[layout.commandAt])) return undefined;
    return layout.plain;
  }

  plainCell(cell: Cell | undefined, column: PlainColumn): Value | Value[] | null | undefined {
    if (typeof cell === 'string') {
      if (this.unguardFormulas && cell.charCodeAt(0) === 39 /* ' */) return undefined;
      const text = cell.trim();
      if (text === '') return null;
      return column.multiple ? plainList(text, column) : plainValue(text, column.type);
    }
    if (cell === null || cell === undefined) return null;
    if (typeof cell === 'number' && !column.multiple) {
      // Spreadsheet numbers: as the coercion reads them (text for a text field).
      if (column.type === 'string') return String(cell);
      if (column.type === 'number') return Number.isFinite(cell) ? cell : undefined;
      if (column.type === 'integer') return Number.isInteger(cell) ? cell : undefined;
    }
    return undefined;
  }

  /** The plain reading of a layout, or null when some part of the profile needs the full mapping. */
  private plainLayout(layout: Layout): Array<PlainColumn | null> | null {
    if (this.variant || this.profile.parentColumn || layout.fillDown || this.fieldPlans.length > 0)
      return null;
    const columns: Array<PlainColumn | null> = [];
    for (const plan of layout.plans) {
      if (plan === null) {
        columns.push(null);
        continue;
      }
      if (plan === 'unknown' || plan === 'readonly') {
        if (this.strict) return null;
        columns.push(null);
        continue;
      }
      const { type, target } = plan;
      if (!plan.plain || (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'date'))
        return null;
      const separator = plan.rule.split === undefined ? '|' : plan.rule.split;
      if (plan.multiple && (separator === false || separator === '')) return null;
      if (target.kind === 'link' && target.link === 'byField') return null;
      columns.push({
        field: plan.fieldName,
        culture: plan.otherCulture,
        ref: plan.fieldName === this.main.refField && plan.otherCulture === undefined,
        multiple: plan.multiple,
        separator: separator || '|', // a single value is never split
        type,
      });
    }
    return columns;
  }

  /** Where each part's write paths come from, for the messages: worked out once per layout. */
  private columnsOf(plans: Layout['plans']): Array<Record<string, string>> {
    const columns = this.entities.map(() => Object.create(null) as Record<string, string>);
    const record = (place: Placement) => {
      const into = columns[place.part]!;
      into[place.columnKey] ??= place.column;
      if (place.fieldName !== undefined) into[place.fieldName] ??= place.column;
    };
    for (const plan of plans) if (plan !== null && typeof plan === 'object') record(plan);
    for (const plan of this.fieldPlans) record(plan);
    const [main, variant] = columns;
    if (variant) {
      variant['link:productRef'] = this.profile.parentColumn ?? main![this.main.refField] ?? '';
    }
    return columns;
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
    for (let i = 0; i < out.length; i++) {
      if (!fills[i]) continue;
      const header = layout.headers[i]!;
      if (isBlank(out[i])) out[i] = this.above.get(header) ?? out[i]!;
      else this.above.set(header, out[i]!);
    }
    return out;
  }

  /** A cell of the row by its column name (field rules name their columns). */
  private cellNamed(layout: Layout, cells: readonly Cell[], name: string): Cell | undefined {
    layout.positions ??= new Map(layout.headers.map((header, i) => [header, i]));
    const at = layout.positions.get(name);
    return at === undefined ? undefined : cells[at];
  }

  /** Puts the row's parts into the result: a product once per group, its variant linked to it. */
  private collect(result: MappedRow, parts: Part[], command: Command): void {
    const [main, variant] = parts as [Part, Part | undefined];
    if (!variant || !this.groups) {
      result.drafts.push(main.draft);
      return;
    }
    if (variant.touched) variant.draft.links.productRef = main.draft.ref || variant.draft.links.productRef;
    const productOnly = !variant.touched;
    // A command applies to the most specific entity of the row: DELETE on a variant row deletes the variant.
    if (!productOnly && command !== 'MERGE') main.draft.command = 'MERGE';
    if (main.touched && (productOnly || command !== 'DELETE')) {
      const seen = this.groups.see(main.draft, result.location.text);
      if (seen.conflicts.length) result.issues.push(...seen.conflicts);
      if (seen.first) result.drafts.push(main.draft);
    }
    if (variant.touched) result.drafts.push(variant.draft);
  }

  /** Parent-column feeds: a row with a parent is that product's variant; a row without one is a product. */
  private collectByParent(result: MappedRow, parts: Part[], parent: Cell | undefined): void {
    const [main, variant] = parts as [Part, Part];
    if (isBlank(parent)) {
      result.drafts.push(main.draft);
      return;
    }
    variant.draft.links.productRef = String(parent).trim();
    result.drafts.push(variant.draft);
  }

  private readCommand(cell: Cell | undefined, issues: RowIssue[]): Command {
    if (isBlank(cell)) return 'MERGE';
    const text = String(cell).trim().toUpperCase();
    if ((COMMANDS as readonly string[]).includes(text)) return text as Command;
    issues.push({
      code: 'MAP_COERCE',
      severity: 'error',
      column: this.commandColumn,
      value: cell,
      message: `must be one of ${COMMANDS.join(', ')}, got ${describeValue(cell)}`,
      brief: `must be one of ${COMMANDS.join(', ')}`,
    });
    return 'MERGE';
  }

  private fillsDown(header: string): boolean {
    if (this.fillDown.headers.has(header)) return true;
    if (!this.fillDown.all) return false;
    const plan = this.planFor(header);
    // `true` fills the product columns (variant rows leave them blank); without variants, every column.
    return typeof plan === 'object' && plan !== null && (!this.variant || plan.target.entity === this.main);
  }

  private planFor(header: string): ColumnPlan | null | 'unknown' | 'readonly' {
    let plan = this.plans.get(header);
    if (plan !== undefined) return plan;
    plan = this.autoPlan(header);
    this.plans.set(header, plan);
    return plan;
  }

  private autoPlan(header: string): ColumnPlan | null | 'unknown' | 'readonly' {
    if (this.profile.autoColumns === false) return null;
    const target = resolveName(header.trim(), this.entities, this.model);
    if (!target) {
      this.warnings.push(
        `column "${header}" does not match a field of ${this.entities.map((e) => e.name).join(' or ')}: ${this.strict ? 'rows with a value in it are invalid' : 'ignored'}`,
      );
      return 'unknown';
    }
    if (
      target.kind === 'field' &&
      (target.field.readOnly || (target.field.immutable && target.field.name !== target.entity.refField))
    ) {
      this.warnings.push(
        `column "${header}" is the read-only field ${target.field.name}: ${this.strict ? 'rows with a value in it are invalid' : 'ignored'}`,
      );
      return 'readonly';
    }
    return { header, ...this.place(target, this.defaults, header) };
  }

  private planColumn(header: string, rule: string | ColumnRule | null): ColumnPlan | null {
    if (rule === null) return null;
    const path = jsonPath(`/columns/${escapePointer(header)}`);
    const spec: ColumnRule = typeof rule === 'string' ? { field: rule } : rule;
    const target = this.resolveTarget(spec.field, spec.culture, path);
    return { header, ...this.place(target, { ...this.defaults, ...spec }, header) };
  }

  private planField(key: string, rule: FieldRule): FieldPlan {
    const path = jsonPath(`/fields/${escapePointer(key)}`);
    const merged = { ...this.defaults, ...rule };
    // The column a message names: the constant, the template, or the columns a value is taken from.
    const column =
      rule.constant !== undefined
        ? `(constant ${key})`
        : rule.template !== undefined
          ? rule.template
          : (rule.from ?? []).join(' | ');
    const target = this.resolveTarget(key, rule.culture, path);
    return { key, ...this.place(target, merged, column), rule: merged };
  }

  private place(target: Target, rule: ConversionRule, column: string): Placement {
    const culture =
      target.kind === 'field' && target.field.multilingual
        ? (target.culture ?? this.model.baseLanguage)
        : undefined;
    // Links are recorded as `link:categoryRefs`, fields by their write path.
    const name = target.kind === 'field' ? target.field.name : `link:${target.link}`;
    const field = target.kind === 'field' ? target.field : undefined;
    return {
      target,
      rule,
      part: this.entities.indexOf(target.entity),
      multiple: target.kind === 'link' ? target.multiple : target.field.multiple,
      type: coerceTypeOf(target, rule),
      culture,
      columnKey: culture ? `${name}.${culture}` : name,
      fieldName: field?.name,
      otherCulture: culture && culture !== this.model.baseLanguage ? culture : undefined,
      plain:
        rule.trim !== false &&
        rule.map === undefined &&
        rule.default === undefined &&
        rule.join === undefined &&
        !field?.enum &&
        !field?.asset,
      column,
    };
  }

  private resolveTarget(name: string, culture: string | undefined, path: string): Target {
    const target = resolveName(name, this.entities, this.model);
    if (!target) {
      throw profileError(
        path,
        `"${name}" is not a field of ${this.entities.map((e) => e.name).join(' or ')}`,
      );
    }
    if (culture === undefined) return target;
    if (target.kind !== 'field' || !target.field.multilingual) {
      throw profileError(`${path}.culture`, `"${name}" is not multilingual: a culture does not apply`);
    }
    const known = tenantCulture(culture, this.model);
    if (!known) {
      throw profileError(
        `${path}.culture`,
        `"${culture}" is not a language of this tenant (${this.model.languages.join(', ')})`,
      );
    }
    return { ...target, culture: known };
  }

  private applyFieldRule(
    parts: Part[],
    plan: FieldPlan,
    layout: Layout,
    cells: readonly Cell[],
    issues: RowIssue[],
  ): void {
    const named = (name: string) => this.cellNamed(layout, cells, name);
    const { rule } = plan;
    if (rule.constant !== undefined) {
      this.assign(parts, plan, rule.constant, `(constant ${plan.key})`, issues);
    } else if (rule.template !== undefined) {
      let any = false;
      const text = rule.template.replace(/\{([^{}]+)\}/g, (_, name: string) => {
        const cell = named(name);
        if (isBlank(cell)) return '';
        any = true;
        return String(cell).trim();
      });
      this.assign(parts, plan, any ? text.trim() : '', rule.template, issues);
    } else if (rule.from) {
      const header = rule.from.find((h) => !isBlank(named(h)));
      this.assign(parts, plan, header ? named(header)! : '', header ?? rule.from.join(' | '), issues);
    }
  }

  /** Converts one cell for its target and stores it in the right part of the row. */
  private assign(parts: Part[], place: Placement, cell: Cell, column: string, issues: RowIssue[]): void {
    const part = parts[place.part]!;
    const values = this.toValues(cell, place, column, issues);
    if (values === undefined) return;
    part.touched = true;
    const { draft } = part;
    // A field rule that took one of several columns names that one (other rows share the layout's record).
    if (column !== place.column) {
      const own = Object.create(draft.source.columns) as Record<string, string>;
      own[place.columnKey] = column;
      if (place.fieldName !== undefined) own[place.fieldName] = column;
      draft.source.columns = own;
    }
    const { target } = place;
    if (target.kind === 'link') {
      const refs: string[] = [];
      if (!Array.isArray(values)) {
        if (values !== null) refs.push(String(values));
      } else for (const value of values) if (value !== null) refs.push(String(value));
      if (target.link === 'categoryRefs') draft.links.categoryRefs = refs;
      else if (target.link === 'byField') {
        draft.links.byField = {
          ...draft.links.byField,
          [target.idField.name]: target.multiple ? refs : (refs[0] ?? ''),
        };
      } else draft.links[target.link] = refs[0] ?? '';
      return;
    }
    const { field } = target;
    let stored: Value | Value[] | undefined = values;
    if (field.asset) stored = this.toAssets(values, field.asset, place, draft, column, issues);
    if (stored === undefined) return;
    const culture = place.otherCulture;
    if (culture) {
      const forCulture = draft.cultures[culture];
      if (forCulture) forCulture[field.name] = stored;
      else draft.cultures[culture] = { [field.name]: stored };
    } else {
      draft.fields[field.name] = stored;
    }
  }

  /** Cell -> one value or a list; undefined when there is nothing to write or it could not be read. */
  private toValues(
    cell: Cell,
    place: Placement,
    column: string,
    issues: RowIssue[],
  ): Value | Value[] | undefined {
    const { rule, multiple, target } = place;
    // The common cell: text that needs a trim, then its type (and a split, for a list).
    if (place.plain && typeof cell === 'string') {
      const text = cell.trim();
      if (text === '') return undefined;
      if (!multiple) return place.type === 'string' ? text : this.toValue(text, place, column, issues);
      const separator = rule.split === undefined ? '|' : rule.split;
      if (separator !== false) {
        const out: Value[] = [];
        for (const piece of text.split(separator)) {
          const item = piece.trim();
          if (item === '') continue;
          const converted = place.type === 'string' ? item : this.toValue(item, place, column, issues);
          if (converted === undefined) return undefined;
          out.push(converted);
        }
        return out;
      }
    }
    let items: Cell[];
    if (Array.isArray(cell) && !multiple && rule.join !== undefined) {
      cell = cell.map((item) => (item === null ? '' : String(item))).join(rule.join);
    }
    if (Array.isArray(cell)) {
      if (!multiple) {
        issues.push(coerceIssue(target, column, cell, 'a single value'));
        return undefined;
      }
      items = cell;
    } else {
      const trim = rule.trim !== false;
      let one: Cell = typeof cell === 'string' && trim ? cell.trim() : cell;
      if (trim && typeof one === 'string' ? one === '' : isBlank(one)) {
        if (rule.default === undefined) return undefined;
        one = rule.default;
      }
      if (!multiple) return this.toValue(one, place, column, issues);
      const separator = rule.split === undefined ? '|' : rule.split;
      items = typeof one === 'string' && separator !== false ? one.split(separator) : [one];
    }
    const out: Value[] = [];
    const trim = rule.trim !== false;
    for (const item of items) {
      const value = typeof item === 'string' && trim ? item.trim() : item;
      if (trim && typeof value === 'string' ? value === '' : isBlank(value)) continue;
      const converted = this.toValue(value, place, column, issues);
      if (converted === undefined) return undefined;
      out.push(converted);
    }
    return out;
  }

  /** One value: value table, then coercion to the target's type, then the enum's own spelling. */
  private toValue(item: Cell, place: Placement, column: string, issues: RowIssue[]): Value | undefined {
    const { rule, target } = place;
    if (Array.isArray(item)) {
      issues.push(coerceIssue(target, column, item, 'a single value in each list item'));
      return undefined;
    }
    let value: Exclude<Cell, Cell[]> = item;
    if (rule.map && value !== null) value = lookup(rule.map, String(value)) ?? value;
    if (value === null) return null;
    const enumValues = target.kind === 'field' ? target.field.enum : undefined;
    // Text needs no conversion: the most common cell skips the coercion's result object.
    if (place.type === 'string') return canonicalEnum(String(value), enumValues);
    const coerced = coerce(value, place.type, rule);
    if (!coerced.ok) {
      issues.push(coerceIssue(target, column, item, coerced.expected));
      return undefined;
    }
    return canonicalEnum(coerced.value, enumValues);
  }

  private toAssets(
    values: Value | Value[],
    kind: 'image' | 'file',
    place: Placement,
    draft: Draft,
    column: string,
    issues: RowIssue[],
  ): Value | Value[] | undefined {
    const names: Value[] = [];
    const field = place.target.kind === 'field' ? place.target.field.name : '';
    const { culture } = place;
    const tags = place.rule.tags;
    for (const value of Array.isArray(values) ? values : [values]) {
      if (value === null || value === '') {
        names.push(value);
        continue;
      }
      const asset = readAssetValue(String(value), kind);
      if (!asset.ok) {
        issues.push({
          code: 'MAP_COERCE',
          severity: 'error',
          field: culture ? `${field}.${culture}` : field,
          column,
          value,
          message: `must be ${asset.expected}, got ${describeValue(value)}`,
          brief: `must be ${asset.expected}`,
        });
        return undefined;
      }
      draft.assets.push({
        field,
        ...(culture && { culture }),
        ...(asset.url && { url: asset.url }),
        name: asset.name,
        kind,
        ...(tags && asset.url && { tags }),
      });
      names.push(asset.name);
    }
    return Array.isArray(values) ? names : names[0];
  }
}

function emptyDraft(
  entity: EntityModel,
  command: Command,
  row: SourceRow,
  columns: Record<string, string>,
): Draft {
  return {
    entity: entity.name,
    ref: '',
    command,
    fields: {},
    cultures: {},
    assets: [],
    links: {},
    source: { location: row.location, row, columns },
  };
}

function refOf(part: Part): string {
  const value = part.draft.fields[part.entity.refField];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

function coerceTypeOf(target: Target, rule: ConversionRule): CoerceType {
  if (rule.type) return rule.type;
  if (target.kind === 'link') return 'string';
  const { type } = target.field;
  return type === 'object' || type === 'array' || type === 'unknown' ? 'string' : type;
}

/** Exact key first, then case-insensitive. */
function lookup(table: Record<string, Value>, key: string): Value | undefined {
  if (Object.hasOwn(table, key)) return table[key];
  const lower = key.toLowerCase();
  for (const [k, v] of Object.entries(table)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** `in stock` -> `In Stock` when the enum has it in another case; anything else is left for the validator. */
function canonicalEnum(value: Value, allowed: Array<string | number> | undefined): Value {
  if (!allowed || typeof value !== 'string' || allowed.includes(value)) return value;
  const lower = value.toLowerCase();
  const match = allowed.find((a) => String(a).toLowerCase() === lower);
  return match === undefined ? value : match;
}

/** One text value by the one-pass readers; undefined when only the full coercion can say. */
function plainValue(text: string, type: PlainColumn['type']): Value | undefined {
  if (type === 'string') return text;
  if (type === 'date') return isoDay(text) === true ? text : undefined;
  const value = plainNumber(text);
  if (value === undefined || !Number.isFinite(value)) return undefined;
  return type === 'integer' && !Number.isInteger(value) ? undefined : value;
}

/** A list cell: split, trimmed, blanks dropped, each item read as one value. */
function plainList(text: string, column: PlainColumn): Value[] | undefined {
  if (!text.includes(column.separator)) {
    // One item (the text is already trimmed and not blank).
    const value = plainValue(text, column.type);
    return value === undefined ? undefined : [value];
  }
  const out: Value[] = [];
  for (const piece of text.split(column.separator)) {
    const item = piece.trim();
    if (item === '') continue;
    const value = plainValue(item, column.type);
    if (value === undefined) return undefined;
    out.push(value);
  }
  return out;
}

function sameHeaders(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function isBlank(cell: Cell | undefined): boolean {
  return (
    cell === undefined ||
    cell === null ||
    (typeof cell === 'string' && cell.trim() === '') ||
    (Array.isArray(cell) && cell.length === 0)
  );
}

function coerceIssue(target: Target, column: string, value: Cell, expected: string): RowIssue {
  const field =
    target.kind === 'link'
      ? `${target.idField.name}`
      : target.culture
        ? `${target.field.name}.${target.culture}`
        : target.field.name;
  return {
    code: 'MAP_COERCE',
    severity: 'error',
    field,
    column,
    value,
    message: `must be ${expected}, got ${describeValue(value)}`,
    brief: `must be ${expected}`,
  };
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

function profileError(path: string, what: string): CatalogIoError {
  return new CatalogIoError('PROFILE_INVALID', `Profile is not valid: ${path} ${what}`, { path });
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
