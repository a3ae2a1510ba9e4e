// Source row -> entity drafts. The plan for each header is worked out once (lazily: JSON rows may bring new
// keys) and every row then runs the same small steps: fill down, command, cells -> values, fields rules,
// grouping of product columns shared by variant rows.
import { CatalogIoError } from '../errors.js';
import type { Cell, SourceRow } from '../readers/types.js';
import { describeValue } from '../schema/messages.js';
import type { EntityModel, TenantModel } from '../schema/model.js';
import { readAssetValue } from './assets.js';
import { type CoerceType, coerce } from './coerce.js';
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
}

export interface Mapper {
  map(row: SourceRow): MappedRow;
  /** File-level notes (unknown or ignored columns), each once. */
  readonly warnings: string[];
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
}

interface ColumnPlan extends Placement {
  header: string;
}

interface FieldPlan extends Placement {
  key: string;
  rule: FieldRule;
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
  private readonly groups: ProductGroups | undefined;

  constructor({ model, profile, strict = false }: MapperOptions) {
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
    const cells = this.fillDownCells(row.cells);
    const issues: RowIssue[] = [];
    if (row.error)
      issues.push({
        code: 'MAP_COERCE',
        severity: 'error',
        message: row.error.message,
        brief: row.error.message,
      });
    const command = this.readCommand(cells, issues);
    const result: MappedRow = {
      location: row.location,
      cells: row.cells,
      drafts: [],
      issues,
      skipped: false,
    };
    if (command === 'IGNORE') {
      result.skipped = true;
      return result;
    }
    const parts: Part[] = [];
    for (const entity of this.entities)
      parts.push({ entity, touched: false, draft: emptyDraft(entity, command, row, cells) });
    let blank = true;
    // for-in over the reader's null-prototype cells: no inherited keys, and no entry arrays per row.
    for (const header in cells) {
      const cell = cells[header]!;
      if (blank && !isBlank(row.cells[header])) blank = false;
      if (header === this.commandColumn || header === this.profile.parentColumn) continue;
      const plan = this.planFor(header);
      if (plan === null) continue;
      if (plan === 'unknown' || plan === 'readonly') {
        if (this.strict && !isBlank(cell)) issues.push(unknownColumnIssue(header, plan, this.main, cell));
        continue;
      }
      this.assign(parts, plan, cell, header, issues);
    }
    if (blank) {
      result.skipped = true;
      return result;
    }
    for (const plan of this.fieldPlans) this.applyFieldRule(parts, plan, cells, issues);
    for (const part of parts) part.draft.ref = refOf(part);
    if (this.profile.parentColumn) this.collectByParent(result, parts, cells);
    else this.collect(result, parts, command);
    return result;
  }

  /** Puts the row's parts into the result: a product once per group, its variant linked to it. */
  private collect(result: MappedRow, parts: Part[], command: Command): void {
    const [main, variant] = parts as [Part, Part | undefined];
    if (!variant || !this.groups) {
      result.drafts.push(main.draft);
      return;
    }
    if (variant.touched) {
      variant.draft.links.productRef = main.draft.ref || variant.draft.links.productRef;
      if (main.draft.ref)
        variant.draft.source.columns['link:productRef'] =
          main.draft.source.columns[main.entity.refField] ?? '';
    }
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
  private collectByParent(result: MappedRow, parts: Part[], cells: Record<string, Cell>): void {
    const [main, variant] = parts as [Part, Part];
    const column = this.profile.parentColumn!;
    const parent = cells[column];
    if (isBlank(parent)) {
      result.drafts.push(main.draft);
      return;
    }
    variant.draft.links.productRef = String(parent).trim();
    variant.draft.source.columns['link:productRef'] = column;
    result.drafts.push(variant.draft);
  }

  private readCommand(cells: Record<string, Cell>, issues: RowIssue[]): Command {
    const cell = cells[this.commandColumn];
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

  private fillDownCells(cells: Record<string, Cell>): Record<string, Cell> {
    if (!this.fillDown.all && this.fillDown.headers.size === 0) return cells;
    const out: Record<string, Cell> = Object.create(null);
    for (const [header, cell] of Object.entries(cells)) {
      let value = cell;
      if (this.fillsDown(header)) {
        if (isBlank(cell)) value = this.above.get(header) ?? cell;
        else this.above.set(header, cell);
      }
      out[header] = value;
    }
    return out;
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
    return { header, ...this.place(target, this.defaults) };
  }

  private planColumn(header: string, rule: string | ColumnRule | null): ColumnPlan | null {
    if (rule === null) return null;
    const path = jsonPath(`/columns/${escapePointer(header)}`);
    const spec: ColumnRule = typeof rule === 'string' ? { field: rule } : rule;
    const target = this.resolveTarget(spec.field, spec.culture, path);
    return { header, ...this.place(target, { ...this.defaults, ...spec }) };
  }

  private planField(key: string, rule: FieldRule): FieldPlan {
    const path = jsonPath(`/fields/${escapePointer(key)}`);
    const merged = { ...this.defaults, ...rule };
    return { key, ...this.place(this.resolveTarget(key, rule.culture, path), merged), rule: merged };
  }

  private place(target: Target, rule: ConversionRule): Placement {
    const culture =
      target.kind === 'field' && target.field.multilingual
        ? (target.culture ?? this.model.baseLanguage)
        : undefined;
    // Links are recorded as `link:categoryRefs`, fields by their write path.
    const name = target.kind === 'field' ? target.field.name : `link:${target.link}`;
    return {
      target,
      rule,
      part: this.entities.indexOf(target.entity),
      multiple: target.kind === 'link' ? target.multiple : target.field.multiple,
      type: coerceTypeOf(target, rule),
      culture,
      columnKey: culture ? `${name}.${culture}` : name,
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
    cells: Record<string, Cell>,
    issues: RowIssue[],
  ): void {
    const { rule } = plan;
    if (rule.constant !== undefined) {
      this.assign(parts, plan, rule.constant, `(constant ${plan.key})`, issues);
    } else if (rule.template !== undefined) {
      let any = false;
      const text = rule.template.replace(/\{([^{}]+)\}/g, (_, name: string) => {
        const cell = cells[name];
        if (isBlank(cell)) return '';
        any = true;
        return String(cell).trim();
      });
      this.assign(parts, plan, any ? text.trim() : '', rule.template, issues);
    } else if (rule.from) {
      const header = rule.from.find((h) => !isBlank(cells[h]));
      this.assign(parts, plan, header ? cells[header]! : '', header ?? rule.from.join(' | '), issues);
    }
  }

  /** Converts one cell for its target and stores it in the right part of the row. */
  private assign(parts: Part[], place: Placement, cell: Cell, column: string, issues: RowIssue[]): void {
    const { target } = place;
    const part = parts[place.part]!;
    const values = this.toValues(cell, place, column, issues);
    if (values === undefined) return;
    part.touched = true;
    const { draft } = part;
    if (target.kind === 'link') {
      const refs: string[] = [];
      if (!Array.isArray(values)) {
        if (values !== null) refs.push(String(values));
      } else for (const value of values) if (value !== null) refs.push(String(value));
      draft.source.columns[place.columnKey] = column;
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
    const { culture } = place;
    let stored: Value | Value[] | undefined = values;
    if (field.asset) stored = this.toAssets(values, field.asset, place, draft, column, issues);
    if (stored === undefined) return;
    if (culture && culture !== this.model.baseLanguage) {
      const forCulture = draft.cultures[culture];
      if (forCulture) forCulture[field.name] = stored;
      else draft.cultures[culture] = { [field.name]: stored };
    } else {
      draft.fields[field.name] = stored;
    }
    draft.source.columns[place.columnKey] = column;
    draft.source.columns[field.name] ??= column;
  }

  /** Cell -> one value or a list; undefined when there is nothing to write or it could not be read. */
  private toValues(
    cell: Cell,
    place: Placement,
    column: string,
    issues: RowIssue[],
  ): Value | Value[] | undefined {
    const { rule, multiple, target } = place;
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
  cells: Record<string, Cell>,
): Draft {
  return {
    entity: entity.name,
    ref: '',
    command,
    fields: {},
    cultures: {},
    assets: [],
    links: {},
    source: { location: row.location, cells: row.cells === cells ? row.cells : cells, columns: {} },
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
