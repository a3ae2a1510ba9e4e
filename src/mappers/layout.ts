// Header resolution: what each column of a feed is for. The profile's columns and field rules are placed
// once (target field or link, type, culture, conversion rule); a header the profile does not name is placed
// by its own name (`autoColumns`). A header list then gets a `Layout`: one plan per position, worked out
// once per sheet and shared by every row of it.

import { CatalogIoError } from '../errors.js';
import type { EntityModel, TenantModel } from '../schema/model.js';
import { unneutralise } from '../writers/formula.js';
import { REJECTS_COLUMNS } from '../writers/rejects-text.js';
import { PathReader } from './category-path.js';
import type { CoerceType } from './coerce.js';
import type { PlainColumn } from './plain.js';
import { jsonPath } from './profile.js';
import type { ColumnRule, ConversionRule, FieldRule, Profile } from './profile-types.js';
import { resolveName, type Target, tenantCulture } from './targets.js';
import { fieldUnit, sameFamily, UNIT_NAMES, unitFactor, unitOf } from './units.js';

/** Where a value goes and how it is read: worked out once per column, used for every cell of it. */
export interface Placement {
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
  /** `unit`: the factor from the column's unit to the field's, and the field's unit (cells may name theirs). */
  unit: { from: string; to: string; factor: number } | undefined;
  /** A `categoryPath` column: how its cells are read as paths of category titles. */
  paths?: PathReader;
}

export interface ColumnPlan extends Placement {
  header: string;
}

export interface FieldPlan extends Placement {
  key: string;
  rule: FieldRule;
}

/** A column's plan; null: ignored (or the command / parent column); 'unknown' / 'readonly': reported as such. */
export type PositionPlan = ColumnPlan | null | 'unknown' | 'readonly';

/** How the columns of one header list are read: a plan per position. */
export interface Layout {
  headers: readonly string[];
  plans: PositionPlan[];
  commandAt: number;
  parentAt: number;
  /** Position of the profile's scope column, -1 when none. */
  scopeAt: number;
  /** Positions filled from the row above when blank; undefined when none is. */
  fillDown: boolean[] | undefined;
  /**
   * With `fillDown`: the position of the profile entity's reference (`prod_ref`), -1 when none. A row
   * that names another reference than the row above starts a record: nothing is filled into it.
   */
  keyAt: number;
  /** Header -> position, built when a field rule first names a column. */
  positions: Map<string, number> | undefined;
  /**
   * A column the profile names (in `columns`, a field rule's `from` or `template`) -> the position of
   * the header that differs from it only in letter case or surrounding spaces, when that header is the
   * only one (`Regular Price` for the profile's `Regular price`). Empty when every name is as written.
   */
  aliases: Map<string, number>;
  /**
   * A table's header (not a keyed record's, whose keys may leave out what another record has): the
   * profile's `columns` (those not `null`) it has neither as written nor loosely (`aliases`).
   */
  missing: string[];
  /** The plain reading of this layout (`plain.ts`); null when it has none; undefined: not worked out yet. */
  plain: Array<PlainColumn | null> | null | undefined;
  /**
   * Per part: write path -> the column it comes from, the same for every row of the layout (shared by
   * their drafts, never changed per row; a row whose field rule took another column gets its own).
   */
  columns: Array<Record<string, string>>;
}

/** Plans kept by header name; past this many (JSON records bringing new keys), new ones are not kept. */
const KEPT_PLANS = 200_000;
/** Columns a grouped warning names before it says how many more. */
const NAMED_IN_WARNING = 5;
/** Warnings about headers that differ from the profile's columns only by case, kept at most. */
const KEPT_NAME_WARNINGS = 20;

/** A column name as compared with the profile's when it is not written the same: case and surrounding spaces aside. */
const looseName = (name: string) => name.trim().toLowerCase();
const quoted = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(', ');

/**
 * Names of one kind (unknown columns, read-only columns) for one warning line: a count and the first
 * few, so a header of 500,000 columns (or a JSON record of a million keys) is one line, not one each.
 */
class NameTally {
  count = 0;
  readonly first: string[] = [];

  add(name: string): void {
    this.count += 1;
    if (this.first.length < NAMED_IN_WARNING) this.first.push(name);
  }

  /** `column "x" what` or `12 columns ("a", "b", ... and 7 more) what`; undefined when none. */
  line(one: (name: string) => string, many: (names: string) => string): string | undefined {
    if (this.count === 0) return undefined;
    if (this.count === 1) return one(this.first[0]!);
    const named = this.first.map((n) => JSON.stringify(n)).join(', ');
    const more = this.count - this.first.length;
    return many(`${this.count} columns (${named}${more > 0 ? ` and ${more} more` : ''})`);
  }
}

/** The profile checked against the tenant, and the plan of every header seen so far. */
export class ColumnPlanner {
  private readonly unknownColumns = new NameTally();
  private readonly readOnlyColumns = new NameTally();
  readonly main: EntityModel;
  readonly variant: EntityModel | undefined;
  /** The entities of a row: the profile's, then its variant. */
  readonly entities: EntityModel[];
  readonly fieldPlans: FieldPlan[];
  readonly commandColumn: string;
  private readonly plans = new Map<string, PositionPlan>();
  /** The profile's `columns`, by their name as written: their plans (null: the column is ignored). */
  private readonly columnRules = new Map<string, ColumnPlan | null>();
  /** Every column the profile names (`columns`, `from`, `template`), by its loose name. */
  private readonly namedLoosely = new Map<string, string[]>();
  /** The profile's `columns` some header list had, as written or loosely. */
  private readonly columnsFound = new Set<string>();
  /** Header lists laid out so far: none, and no column is said to be missing. */
  private layoutsMade = 0;
  /** A table's header lacked a profile column (with --strict, its rows are invalid). */
  private tableMissing = false;
  /** Headers read as a profile column written otherwise, or not read as one: one warning each. */
  private readonly nameWarnings = new Set<string>();
  private readonly defaults: ConversionRule;
  private readonly fillDown: { all: boolean; headers: Set<string> };
  /**
   * The columns the profile's options name (`commandColumn`, `parentColumn`, `scopeColumn`, the lists of
   * `fillDown` and `ownVariant`): matched to a header list as the `columns` are (`matchLoosely`).
   * `given`: the profile names it (the default `_command` may be missing without a word).
   */
  private readonly optionColumns: Array<{ option: string; name: string; given: boolean }> = [];
  /** The option columns some header list had, as written or loosely. */
  private readonly optionsFound = new Set<string>();
  private lastLayout: Layout | undefined;

  /**
   * `unguard`: a header written with the formula guard's quote (`'=x`, by our CSV writers) is read as
   * the name after it, like the cells (see writers/formula.ts).
   */
  constructor(
    private readonly model: TenantModel,
    readonly profile: Profile,
    readonly strict: boolean,
    private readonly unguard = false,
  ) {
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
    if (profile.ownVariant && !profile.parentColumn)
      throw profileError('$.ownVariant', 'needs "parentColumn"');
    // With autoColumns off, the columns are all named here: a list naming another is a typo.
    if (Array.isArray(profile.ownVariant) && profile.autoColumns === false)
      for (const [i, column] of profile.ownVariant.entries())
        if (!(column in (profile.columns ?? {})))
          throw profileError(`$.ownVariant[${i}]`, `"${column}" is not one of the profile's columns`);
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
    for (const [header, rule] of Object.entries(profile.columns ?? {})) {
      const plan = this.planColumn(header, rule);
      this.plans.set(header, plan);
      this.columnRules.set(header, plan);
    }
    this.fieldPlans = Object.entries(profile.fields ?? {}).map(([key, rule]) => this.planField(key, rule));
    const named = new Set(this.columnRules.keys());
    for (const rule of Object.values(profile.fields ?? {})) {
      for (const column of rule.from ?? []) named.add(column);
      for (const m of (rule.template ?? '').matchAll(/\{([^{}]+)\}/g)) named.add(m[1]!);
    }
    this.optionColumns.push({
      option: 'commandColumn',
      name: this.commandColumn,
      given: profile.commandColumn !== undefined,
    });
    if (profile.parentColumn)
      this.optionColumns.push({ option: 'parentColumn', name: profile.parentColumn, given: true });
    if (profile.scopeColumn)
      this.optionColumns.push({ option: 'scopeColumn', name: profile.scopeColumn, given: true });
    for (const key of ['fillDown', 'ownVariant'] as const) {
      const list = profile[key];
      if (Array.isArray(list))
        for (const name of list) this.optionColumns.push({ option: key, name, given: true });
    }
    for (const { name } of this.optionColumns) named.add(name);
    for (const name of named) {
      const key = looseName(name);
      const same = this.namedLoosely.get(key);
      if (same) same.push(name);
      else this.namedLoosely.set(key, [name]);
    }
    this.fillDown = {
      all: profile.fillDown === true,
      headers: new Set(Array.isArray(profile.fillDown) ? profile.fillDown : []),
    };
  }

  /** File-level notes: the columns that match no field, and those of read-only fields, one line each kind. */
  get warnings(): string[] {
    const entities = this.entities.map((e) => e.name).join(' or ');
    const then = this.strict ? 'rows with a value in it are invalid' : 'ignored';
    const thenMany = this.strict ? 'rows with a value in them are invalid' : 'ignored';
    const lines = [
      this.unknownColumns.line(
        (name) => `column ${JSON.stringify(name)} does not match a field of ${entities}: ${then}`,
        (names) => `${names} do not match a field of ${entities}: ${thenMany}`,
      ),
      this.readOnlyColumns.line(
        (name) => `column ${JSON.stringify(name)} is the read-only field ${this.readOnlyField}: ${then}`,
        (names) => `${names} are read-only fields: ${thenMany}`,
      ),
    ];
    const missing = this.layoutsMade === 0 ? [] : this.missingColumns();
    const strictly = this.strict && this.tableMissing ? ' (--strict: the rows are invalid)' : '';
    if (missing.length > 0) {
      // Each with the field its rule names, as the profile writes it.
      const named = missing.map((c) => {
        const rule = this.profile.columns![c]!;
        return `${JSON.stringify(c)} (${typeof rule === 'string' ? rule : rule.field})`;
      });
      lines.push(
        missing.length === 1
          ? `the profile's column ${named[0]} is not in the file: nothing is read for it${strictly}`
          : `the profile's columns ${named.join(', ')} are not in the file: nothing is read for them${strictly}`,
      );
    }
    // The columns the profile's options name, said as its `columns` are: the option then does nothing.
    if (this.layoutsMade > 0)
      for (const { option, name } of this.missingOptions())
        lines.push(
          `the profile's ${option} ${JSON.stringify(name)} is not in the file: the option does nothing${strictly}`,
        );
    return [...this.nameWarnings, ...lines.filter((l): l is string => l !== undefined)];
  }

  /** The profile's `columns` (not `null`) that no header list had, as written or loosely. */
  private missingColumns(): string[] {
    const missing: string[] = [];
    for (const [column, plan] of this.columnRules)
      if (plan !== null && !this.columnsFound.has(column)) missing.push(column);
    return missing;
  }

  /** The option columns the profile gives that no header list had (one a column missing is not named twice). */
  private missingOptions(): Array<{ option: string; name: string }> {
    const out: Array<{ option: string; name: string }> = [];
    const said = new Set<string>();
    for (const { option, name, given } of this.optionColumns) {
      if (!given || this.optionsFound.has(name) || this.columnRules.get(name)) continue;
      const key = `${option}\u0000${name}`;
      if (said.has(key)) continue;
      said.add(key);
      out.push({ option, name });
    }
    return out;
  }

  private warnOnce(line: string): void {
    if (this.nameWarnings.size < KEPT_NAME_WARNINGS) this.nameWarnings.add(line);
  }

  /**
   * The headers that name a profile column otherwise than it is written: letter case and surrounding
   * spaces aside. A header that is the only one for a profile column the list does not have as written
   * is read as it (a warning says so); several headers for one column, or one header for several
   * columns, are read as none of them (said too): which one was meant cannot be told.
   */
  private matchLoosely(names: readonly string[]): { aliases: Map<string, number>; missing: string[] } {
    const aliases = new Map<string, number>();
    const asWritten = new Set<string>();
    const near = new Map<string, number[]>();
    if (this.namedLoosely.size > 0) {
      for (const [i, name] of names.entries()) {
        if (this.namedLoosely.get(looseName(name))?.includes(name)) {
          asWritten.add(name);
          continue;
        }
        const key = looseName(name);
        if (!this.namedLoosely.has(key)) continue;
        const at = near.get(key);
        if (at) at.push(i);
        else near.set(key, [i]);
      }
    }
    for (const [key, at] of near) {
      const headers = at.map((i) => names[i]!);
      const wanted = this.namedLoosely.get(key)!.filter((name) => !asWritten.has(name));
      const written = this.namedLoosely.get(key)!.filter((name) => asWritten.has(name));
      if (wanted.length === 1 && at.length === 1) {
        aliases.set(wanted[0]!, at[0]!);
        this.warnOnce(
          `column ${JSON.stringify(headers[0])} read as the profile's ${JSON.stringify(wanted[0])} (the names differ only in letter case or surrounding spaces)`,
        );
      } else if (wanted.length === 0) {
        this.warnOnce(
          `${headers.length === 1 ? 'column' : 'columns'} ${quoted(headers)} not read as the profile's ${quoted(written)}: the file has ${written.length === 1 ? 'that column' : 'those columns'} as written too`,
        );
      } else {
        this.warnOnce(
          `${headers.length === 1 ? 'column' : 'columns'} ${quoted(headers)} and the profile's ${quoted(wanted)} differ only in letter case or surrounding spaces, and which is meant cannot be told: none is read as the profile's (name the column exactly as the file does in the profile)`,
        );
      }
    }
    const missing: string[] = [];
    for (const [column, plan] of this.columnRules) {
      if (asWritten.has(column) || aliases.has(column)) this.columnsFound.add(column);
      else if (plan !== null) missing.push(column);
    }
    for (const { name, given } of this.optionColumns) {
      if (asWritten.has(name) || aliases.has(name)) this.optionsFound.add(name);
      else if (given && !missing.includes(name)) missing.push(name);
    }
    return { aliases, missing };
  }

  /** The read-only field the one read-only column names (for its warning). */
  private readOnlyField = '';

  /**
   * The plan of each position of this header list; the last one is kept (every row of a sheet shares
   * it). `keyed`: the keys of one record (JSON), not a table's header.
   */
  layoutFor(headers: readonly string[], keyed = false): Layout {
    const last = this.lastLayout;
    if (last && (last.headers === headers || sameHeaders(last.headers, headers))) return last;
    this.layoutsMade++;
    const names = headers.map((h) => this.nameOf(h));
    const { aliases, missing } = this.matchLoosely(names);
    if (!keyed && missing.length > 0) this.tableMissing = true;
    // A header read as a profile column written otherwise takes that column's rule, under its own name.
    const loose = new Map<number, PositionPlan>();
    for (const [column, at] of aliases) {
      if (!this.columnRules.has(column)) continue;
      const rule = this.columnRules.get(column)!;
      const header = this.nameOf(headers[at]!);
      loose.set(at, rule && { ...rule, header, column: header });
    }
    // The columns the options name, found as the `columns` are: as written, else loosely.
    const at = (name: string | undefined) => (name ? columnAt(names, aliases, name) : -1);
    const commandAt = at(this.commandColumn);
    const parentAt = at(this.profile.parentColumn);
    const scopeAt = at(this.profile.scopeColumn);
    const filled = new Set([...this.fillDown.headers].map(at));
    const plans = headers.map((header, i) =>
      i === commandAt || i === parentAt || i === scopeAt
        ? null
        : loose.has(i)
          ? loose.get(i)!
          : this.planFor(header),
    );
    // The command, parent and scope columns are the profile's own: never filled, never a field.
    const fills = headers.map((header, i) => plans[i] !== null && (filled.has(i) || this.fillsAll(header)));
    const keyAt = plans.findIndex(
      (plan) =>
        typeof plan === 'object' &&
        plan !== null &&
        plan.target.kind === 'field' &&
        plan.target.entity === this.main &&
        plan.target.field.name === this.main.refField,
    );
    const layout: Layout = {
      headers,
      plans,
      commandAt,
      parentAt,
      scopeAt,
      fillDown: fills.some(Boolean) ? fills : undefined,
      keyAt,
      positions: undefined,
      aliases,
      missing: keyed ? [] : missing,
      plain: undefined,
      columns: this.columnsOf(plans, parentAt < 0 ? undefined : headers[parentAt]),
    };
    this.lastLayout = layout;
    return layout;
  }

  /** Where each part's write paths come from, for the messages: worked out once per layout. */
  private columnsOf(plans: Layout['plans'], parentHeader: string | undefined): Array<Record<string, string>> {
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
      variant['link:productRef'] =
        parentHeader ?? this.profile.parentColumn ?? main![this.main.refField] ?? '';
    }
    return columns;
  }

  /** `fillDown: true`: whether this header's column is filled (the listed ones are found by name). */
  private fillsAll(header: string): boolean {
    if (!this.fillDown.all) return false;
    const plan = this.planFor(header);
    // `true` fills the product columns (variant rows leave them blank); without variants, every column.
    return typeof plan === 'object' && plan !== null && (!this.variant || plan.target.entity === this.main);
  }

  /** A header as the profile names it: without the formula guard's quote, when asked (`unguard`). */
  private nameOf(written: string): string {
    return this.unguard && written.charCodeAt(0) === 39 /* ' */ ? unneutralise(written) : written;
  }

  private planFor(written: string): PositionPlan {
    const header = this.nameOf(written);
    let plan = this.plans.get(header);
    if (plan !== undefined) return plan;
    plan = this.autoPlan(header);
    if (this.plans.size < KEPT_PLANS) this.plans.set(header, plan);
    return plan;
  }

  private autoPlan(header: string): PositionPlan {
    // A rejects file's `_error` and `_source` say what went wrong and where: it imports as it is.
    if (this.profile.autoColumns === false || REJECTS_COLUMNS.has(header)) return null;
    const target = resolveName(header.trim(), this.entities, this.model);
    // Named once each while plans are kept (beyond that, a header may be counted again).
    if (!target) {
      this.unknownColumns.add(header);
      return 'unknown';
    }
    if (
      target.kind === 'field' &&
      (target.field.readOnly || (target.field.immutable && target.field.name !== target.entity.refField))
    ) {
      if (this.readOnlyColumns.count === 0) this.readOnlyField = target.field.name;
      this.readOnlyColumns.add(header);
      return 'readonly';
    }
    return { header, ...this.place(target, this.defaults, header) };
  }

  private planColumn(header: string, rule: string | ColumnRule | null): ColumnPlan | null {
    if (rule === null) return null;
    const path = jsonPath(`/columns/${escapePointer(header)}`);
    const spec: ColumnRule = typeof rule === 'string' ? { field: rule } : rule;
    const target = this.resolveTarget(spec.field, spec.culture, path);
    const placement = this.place(target, { ...this.defaults, ...spec }, header, path);
    if (spec.categoryPath === undefined) return { header, ...placement };
    if (!isPathTarget(target)) {
      throw profileError(
        `${path}.categoryPath`,
        'applies to a category link (cat_refs of products) or, on categories, to cat_ref or cat_parent_ref',
      );
    }
    const separator = spec.categoryPath === true ? undefined : spec.categoryPath.separator;
    const list = placement.multiple && typeof spec.split === 'string' ? spec.split : undefined;
    return { header, ...placement, plain: false, paths: new PathReader(separator, list) };
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
    return { key, ...this.place(target, merged, column, path), rule: merged };
  }

  private place(target: Target, rule: ConversionRule, column: string, path = ''): Placement {
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
        rule.first === undefined &&
        !field?.enum &&
        !field?.asset &&
        rule.unit === undefined,
      column,
      unit: rule.unit === undefined ? undefined : unitPlan(rule.unit, target, path),
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
}

/** A `unit` rule: the field must hold numbers in a unit of the same kind (its description names it). */
function unitPlan(unit: string, target: Target, path: string): Placement['unit'] {
  const from = unitOf(unit);
  if (!from) throw profileError(`${path}.unit`, `"${unit}" is not a unit (${UNIT_NAMES.join(', ')})`);
  const field = target.kind === 'field' ? target.field : undefined;
  if (!field || (field.type !== 'number' && field.type !== 'integer'))
    throw profileError(`${path}.unit`, 'applies to number fields only');
  const to = fieldUnit(field);
  if (!to) {
    throw profileError(
      `${path}.unit`,
      `${field.name} names no unit to convert to (its description: "${field.description ?? ''}")`,
    );
  }
  if (!sameFamily(from, to))
    throw profileError(`${path}.unit`, `${unit} cannot be converted to ${to}, the unit ${field.name} holds`);
  return { from, to, factor: unitFactor(from, to) };
}

/** Where a path of category titles can go: a product's category link, a category's own ref or its parent. */
function isPathTarget(target: Target): boolean {
  if (target.kind === 'link') return target.link === 'categoryRefs' || target.link === 'parentRef';
  return target.entity.kind === 'categories' && target.field.name === target.entity.refField;
}

function coerceTypeOf(target: Target, rule: ConversionRule): CoerceType {
  if (rule.type) return rule.type;
  if (target.kind === 'link') return 'string';
  const { type } = target.field;
  return type === 'object' || type === 'array' || type === 'unknown' ? 'string' : type;
}

/**
 * Where a column the profile names is in a header list (`names`, as the profile would name them): as
 * written, else the one header that differs from it only in letter case or surrounding spaces
 * (`aliases`, from `matchLoosely`, which also said so); -1 when neither.
 */
function columnAt(names: readonly string[], aliases: ReadonlyMap<string, number>, name: string): number {
  const at = names.indexOf(name);
  return at >= 0 ? at : (aliases.get(name) ?? -1);
}

function sameHeaders(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function profileError(path: string, what: string): CatalogIoError {
  return new CatalogIoError('PROFILE_INVALID', `Profile is not valid: ${path} ${what}`, { path });
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
