// `profile init`: a first profile drafted from a file's headers and sample values. A header is placed by
// its exact name, by a field's name or description, or by what feeds call that field in English, German,
// French, Spanish or Italian (`init/synonyms.ts`); a unit or currency (`Gewicht (kg)`, `Price (EUR)`) and a
// language (`Title (FR)`, `title_de`, `Name DE`) are read off the header first. The sample values choose
// between candidates (`Code` holding EAN-13s is a barcode) and set how numbers and dates are read
// (`12,50`, `31.12.2026`). A header left over gets did-you-mean suggestions by edit distance.
import type { EntityModel, FieldModel, TenantModel } from '../schema/model.js';
import { editDistance, headerParts } from './init/header.js';
import { normalise, SYNONYMS, VARIANT_WORDS } from './init/synonyms.js';
import { columnShape, fits, type ValueShape } from './init/values.js';
import type { ColumnRule, ConversionRule, Profile } from './profile-types.js';
import { resolveName, tenantCulture } from './targets.js';

export interface HeaderNote {
  header: string;
  /** Where the header went (absent: not placed). */
  field?: string;
  culture?: string;
  /** A unit or currency the header names (`kg`, `eur`). */
  unit?: string;
  /** Something to check by hand: a unit that differs from the field's, a language the tenant lacks. */
  warning?: string;
  /** Not placed: the closest field names (did you mean). */
  suggestions?: string[];
  /** Not placed: a few of the column's values. */
  samples?: string[];
}

export interface DraftedProfile {
  profile: Profile;
  /** Headers that matched no field (they are written as `null`: ignored until someone maps them). */
  unplaced: string[];
  /** One note per header, in header order. */
  notes: HeaderNote[];
}

/** A column the draft may map to: a writable field, or a link column (`cat_refs`, a variant's `prod_ref`). */
interface Target {
  /** The profile's column target: a field name or a link column. */
  name: string;
  entity: EntityModel;
  field: FieldModel;
  /** The field (or link) names and description, normalised. */
  names: string[];
  /** Synonym concepts (`title`, `ref`, `categories`, ...). */
  concepts: string[];
  /** A link column: its values are refs (text), whatever the id field's type. */
  link: boolean;
}

export function draftProfile(
  headers: readonly string[],
  model: TenantModel,
  entityName: string,
  withVariants = false,
  samples: ReadonlyMap<string, readonly string[]> = new Map(),
): DraftedProfile {
  const main = model.entity(entityName);
  const entities = [main, withVariants ? model.entity('variants') : undefined].filter(
    (e): e is EntityModel => e !== undefined,
  );
  const targets = targetsOf(entities, model);
  // A feed with a column for the product (`Handle`, `Parent`) uses its SKU column for the variant.
  const hasProductColumn =
    withVariants && headers.some((h) => SYNONYMS.get('product')!.includes(normalise(h)));
  const columns: Record<string, string | ColumnRule | null> = {};
  const unplaced: string[] = [];
  const notes: HeaderNote[] = [];
  const taken = new Set<string>();
  for (const header of headers) {
    const values = samples.get(header) ?? [];
    const shape = columnShape(values);
    const found =
      exactMatch(header, entities, model) ??
      byName(header, { targets, model, taken, shape, hasProductColumn, withVariants }) ??
      byValues(shape, targets, taken);
    if (!found?.target || taken.has(key(found.target, found.culture))) {
      columns[header] = null;
      unplaced.push(header);
      notes.push({
        header,
        ...(found?.warning && { warning: found.warning }),
        suggestions: suggestions(header, targets),
        samples: values.slice(0, 3),
      });
      continue;
    }
    taken.add(key(found.target, found.culture));
    const rule: ColumnRule = { field: found.target, ...(found.culture && { culture: found.culture }) };
    Object.assign(rule, found.field ? conversionFor(found.field, values) : {});
    columns[header] = Object.keys(rule).length === 1 ? found.target : rule;
    const unit = headerParts(header).unit;
    const warning = found.warning ?? (unit && found.field ? unitWarning(unit, found.field) : undefined);
    notes.push({
      header,
      field: found.target,
      ...(found.culture && { culture: found.culture }),
      ...(unit && { unit }),
      ...(warning && { warning }),
    });
  }
  const profile: Profile = { entity: entityName, ...(withVariants && { variants: true }), columns };
  return { profile, unplaced, notes };
}

interface Found {
  /** Empty when the header must not be placed (see `warning`). */
  target: string;
  field?: FieldModel;
  culture?: string;
  /** Set when nothing may be placed: why. */
  warning?: string;
}

const key = (target: string, culture: string | undefined) => `${target}\u0000${culture ?? ''}`;

/** The header is already a field or link name (`prod_title`, `prod_title_fr`, `cat_refs`). */
function exactMatch(header: string, entities: EntityModel[], model: TenantModel): Found | undefined {
  const exact = resolveName(header, entities, model);
  if (!exact) return undefined;
  if (exact.kind === 'link') return { target: header };
  if (exact.field.readOnly) return undefined;
  return exact.culture
    ? { target: exact.field.name, field: exact.field, culture: exact.culture }
    : { target: header, field: exact.field };
}

function targetsOf(entities: EntityModel[], model: TenantModel): Target[] {
  const out: Target[] = [];
  for (const entity of entities) {
    for (const field of entity.fields) {
      if (field.name === entity.idField) continue;
      const link = linkName(field);
      const resolved = link ? resolveName(link, entities, model) : undefined;
      const target = resolved?.kind === 'link' ? link : undefined;
      if (link && !target) {
        // A variant's `prod_ref` is the same column as the product's ref: that one gains the `product` words.
        const same = out.find((t) => t.name === link);
        if (same && resolved) same.concepts.push(conceptOf(entity, field, link));
        continue;
      }
      if (!link && field.readOnly) continue;
      const name = target ?? field.name;
      const concepts = [conceptOf(entity, field, name)];
      const known = out.find((t) => t.name === name);
      if (known) known.concepts.push(...concepts);
      else {
        // A link's bare name (`ref` of `typ_ref`) says nothing: only its full name counts.
        const names = target ? [normalise(name)] : [normalise(name), normalise(bare(name))];
        if (field.description) names.push(normalise(field.description));
        out.push({ name, entity, field, names, concepts, link: target !== undefined });
      }
    }
  }
  return out;
}

/** `cat_ids` -> `cat_refs`, `cat_parent_id` -> `cat_parent_ref`, a variant's `prod_id` -> `prod_ref`. */
function linkName(field: FieldModel): string | undefined {
  const m = /^(.+)_(ids|id)$/.exec(field.name);
  if (!m) return undefined;
  return `${m[1]}_${m[2] === 'ids' ? 'refs' : 'ref'}`;
}

function conceptOf(entity: EntityModel, field: FieldModel, name: string): string {
  if (name === entity.refField) return 'ref';
  if (field.references === 'Categories' && field.multiple) return 'categories';
  if (entity.kind === 'categories' && name === 'cat_parent_ref') return 'parent';
  if (entity.kind === 'variants' && name === 'prod_ref') return 'product';
  if (name !== field.name) return name;
  const concept = bare(name);
  return concept === 'image' ? 'images' : concept;
}

/** A field's name without its entity prefix: `prod_title` -> `title`, `frmt_ean` -> `ean`. */
function bare(name: string): string {
  return name.replace(/^[a-z]+_/, '');
}

interface ByNameContext {
  targets: Target[];
  model: TenantModel;
  taken: Set<string>;
  shape: ValueShape | undefined;
  hasProductColumn: boolean;
  withVariants: boolean;
}

/** Candidates by name and synonym, the header as it is first, then without its unit and language. */
function byName(header: string, c: ByNameContext): Found | undefined {
  const whole = byWords(normalise(header), undefined, c);
  if (whole) return whole;
  const parts = headerParts(header);
  if (parts.base === header.trim()) return undefined;
  let culture: string | undefined;
  if (parts.language) {
    culture = tenantCulture(parts.language, c.model);
    if (!culture) {
      return {
        target: '',
        warning: `"${parts.language}" is not one of the tenant's languages (${c.model.languages.join(', ')})`,
      };
    }
  }
  return byWords(normalise(parts.base), culture, c);
}

function byWords(word: string, culture: string | undefined, c: ByNameContext): Found | undefined {
  if (!word) return undefined;
  let variantHint = false;
  let bareWord = word;
  const prefix = c.withVariants
    ? VARIANT_WORDS.find((v) => word.startsWith(v) && word.length > v.length)
    : undefined;
  if (prefix) {
    variantHint = true;
    bareWord = word.slice(prefix.length);
  }
  const scored: Array<{ target: Target; score: number }> = [];
  for (const target of c.targets) {
    const byOwnName = target.names.includes(word) || target.names.includes(bareWord);
    const bySynonym = target.concepts.some((k) => SYNONYMS.get(k)?.includes(bareWord));
    if (!byOwnName && !bySynonym) continue;
    const field = target.field;
    if (culture && !(field.multilingual && (!field.languages || field.languages.includes(culture)))) continue;
    const fieldCulture = field.multilingual ? culture : undefined;
    if (c.taken.has(key(target.name, fieldCulture))) continue;
    if (!target.link && !fits(c.shape, field)) continue;
    let score = byOwnName ? 4 : 2;
    if (preferred(c.shape, field)) score += 2;
    if (variantHint && target.entity.kind === 'variants') score += 3;
    // With a product column, the SKU names the variant.
    if (c.hasProductColumn && target.concepts.includes('ref') && target.entity.kind === 'variants')
      score += 1;
    scored.push({ target, score });
  }
  if (scored.length === 0) return undefined;
  // Stable: among equals, the main entity's field and the schema's order win.
  scored.sort((a, b) => b.score - a.score);
  const best = scored[0]!.target;
  if (best.link) return { target: best.name };
  const fieldCulture = best.field.multilingual ? culture : undefined;
  return { target: best.name, field: best.field, ...(fieldCulture && { culture: fieldCulture }) };
}

/** Values that point at one kind of field: EAN-13s at a barcode field, URLs at an image field. */
function preferred(shape: ValueShape | undefined, field: FieldModel): boolean {
  if (shape === 'ean') return field.pattern === '^[0-9]{13}$';
  if (shape === 'url') return field.asset !== undefined;
  return false;
}

/** A header that says nothing known, but whose values do: valid EAN-13s, or image URLs. */
function byValues(shape: ValueShape | undefined, targets: Target[], taken: Set<string>): Found | undefined {
  if (shape !== 'ean' && shape !== 'url') return undefined;
  const free = targets.filter(
    (t) =>
      !t.link &&
      preferred(shape, t.field) &&
      (shape !== 'url' || t.field.asset === 'image') &&
      !taken.has(key(t.name, undefined)),
  );
  const target = free[0];
  return target && { target: target.name, field: target.field };
}

/** How to read the column's numbers and dates, when its values show it (`12,50`, `31.12.2026`). */
function conversionFor(field: FieldModel, values: readonly string[]): ConversionRule {
  const rule: ConversionRule = {};
  const filled = values.map((v) => v.trim()).filter((v) => v !== '');
  if (filled.length === 0) return rule;
  if (field.type === 'number') {
    const comma = filled.some((v) => /,\d{1,2}$|,\d{4,}$/.test(v) || /\.\d{3},/.test(v));
    if (comma) rule.decimal = ',';
    if (filled.some((v) => /\d\.\d{3},/.test(v))) rule.thousands = '.';
    else if (!comma && filled.some((v) => /\d,\d{3}\./.test(v))) rule.thousands = ',';
  }
  if (field.type === 'date' || field.type === 'date-time') {
    const m = /^\d{1,2}([./])\d{1,2}\1\d{4}$/.exec(filled[0]!);
    if (m) rule.dateFormat = `DD${m[1]}MM${m[1]}YYYY`;
  }
  return rule;
}

const WEIGHT_UNITS = ['kg', 'g', 'gr', 'mg', 'lb', 'lbs', 'oz', 't'];
const LENGTH_UNITS = ['mm', 'cm', 'm', 'in', 'inch', 'ft'];

/** `Gewicht (g)` into a field described "Weight in kg": the values need converting. */
function unitWarning(unit: string, field: FieldModel): string | undefined {
  const words = (field.description ?? '').toLowerCase().split(/[^a-z]+/);
  for (const family of [WEIGHT_UNITS, LENGTH_UNITS]) {
    if (!family.includes(unit)) continue;
    const fieldUnit = words.find((w) => family.includes(w));
    if (fieldUnit && fieldUnit !== unit) return `the header says ${unit}, ${field.name} holds ${fieldUnit}`;
  }
  return undefined;
}

/** The field names closest to the header by edit distance (its synonyms count as the field's names). */
function suggestions(header: string, targets: Target[]): string[] {
  const word = normalise(headerParts(header).base) || normalise(header);
  if (!word) return [];
  const limit = Math.max(2, Math.floor(word.length / 3));
  const ranked: Array<{ name: string; distance: number }> = [];
  for (const target of targets) {
    const words = [...target.names, ...target.concepts.flatMap((k) => SYNONYMS.get(k) ?? [])];
    let distance = limit + 1;
    for (const w of words) distance = Math.min(distance, editDistance(word, w, limit));
    if (distance <= limit) ranked.push({ name: target.name, distance });
  }
  ranked.sort((a, b) => a.distance - b.distance);
  return ranked.slice(0, 3).map((r) => r.name);
}
