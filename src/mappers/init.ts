// `profile init`: a first profile drafted from a file's headers and sample values. A header is placed by
// its exact name, by a field's name or description, or by what feeds call that field in English, German,
// French, Spanish or Italian (`init/synonyms.ts`); a unit or currency (`Gewicht (kg)`, `Price (EUR)`) and a
// language (`Title (FR)`, `title_de`, `Name DE`) are read off the header first. The sample values choose
// between candidates (`Code` holding EAN-13s is a barcode) and set how numbers and dates are read
// (`12,50`, `31.12.2026`), lists and their separators, category paths, units to convert, and the image
// columns (`init/candidates.ts`, `init/rules.ts`). The rows show the variant structure: a parent column,
// a column naming each row's product, rows continuing the product above (`init/structure.ts`). Headers
// are assigned best candidate first. A header left over gets did-you-mean suggestions by edit distance.
import type { EntityModel, FieldModel, TenantModel } from '../schema/model.js';
import {
  type Candidate,
  type CandidateContext,
  candidatesFor,
  emptyStructure,
  key,
  type Target,
  targetsOf,
} from './init/candidates.js';
import { editDistance, headerParts } from './init/header.js';
import { columnRules } from './init/rules.js';
import { readStructure, type Structure } from './init/structure.js';
import { normalise, SYNONYMS } from './init/synonyms.js';
import { emptySample, type FeedSample } from './init/values.js';
import { variantImageColumn } from './init/variant-image.js';
import type { ColumnRule, FieldRule, Profile } from './profile-types.js';

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
  /** The column says how rows relate (a parent, the kind of row): not a field. */
  structure?: string;
}

export interface DraftedProfile {
  profile: Profile;
  /** Headers that matched no field (they are written as `null`: ignored until someone maps them). */
  unplaced: string[];
  /** One note per header, in header order. */
  notes: HeaderNote[];
}

/** Sample values per column (the older, simpler evidence) or a whole feed sample. */
export type DraftEvidence = FeedSample | ReadonlyMap<string, readonly string[]>;

/**
 * `withVariants`: `true` places variant fields too, `'auto'` does when the feed shows variants (a parent
 * column, rows that continue a product) or has variant values (price, stock) for a tenant that keeps them
 * on variants; `false` never.
 */
export function draftProfile(
  headers: readonly string[],
  model: TenantModel,
  entityName: string,
  withVariants: boolean | 'auto' = false,
  evidence: DraftEvidence = new Map(),
): DraftedProfile {
  const sample: FeedSample =
    evidence instanceof Map
      ? { ...emptySample(), values: evidence as Map<string, string[]> }
      : (evidence as FeedSample);
  const main = model.entity(entityName);
  const variantEntity =
    withVariants !== false && main?.kind === 'products' ? model.entity('variants') : undefined;
  const entities = [main, variantEntity].filter((e): e is EntityModel => e !== undefined);
  const targets = targetsOf(entities, model);
  const products = main?.kind === 'products';
  const titleHeaders = headers.filter((h) => SYNONYMS.get('title')!.includes(normalise(headerParts(h).base)));
  const structure = products ? readStructure(headers, sample, titleHeaders) : emptyStructure();
  // A feed with a column for the product (`Handle`) uses its SKU column for the variant.
  const hasProductColumn =
    variantEntity !== undefined &&
    headers.some(
      (h) =>
        !structure.emptyParents.has(h) && SYNONYMS.get('product')!.includes(normalise(headerParts(h).base)),
    );
  const context: CandidateContext = {
    targets,
    model,
    sample,
    structure,
    hasProductColumn,
    variants: variantEntity !== undefined,
  };
  const perHeader = headers.map((header) => candidatesFor(header, context, entities));
  // `id` and `slug` name the ref only in a feed without a SKU-like column (or the product of variant rows).
  const strongRef = perHeader.some((c) => c.list.some((x) => x.concept === 'ref' && !x.weak));
  const ranked: Array<{ at: number; candidate: Candidate }> = [];
  perHeader.forEach((c, at) => {
    for (const candidate of c.list) {
      // With variant rows that continue a product, `slug` may be the product's ref, never the variant's.
      const productOfRows = structure.continuation && candidate.entity === main;
      if (candidate.weak && candidate.concept === 'ref' && strongRef && !productOfRows) continue;
      ranked.push({ at, candidate });
    }
  });
  ranked.sort(
    (a, b) => b.candidate.score - a.candidate.score || a.at - b.at || a.candidate.order - b.candidate.order,
  );
  const chosen = new Map<number, Candidate>();
  const taken = new Set<string>();
  reserveStructure(structure, headers, targets, entities, chosen, taken);
  for (const { at, candidate } of ranked) {
    if (chosen.has(at) || taken.has(key(candidate.target, candidate.culture))) continue;
    chosen.set(at, candidate);
    taken.add(key(candidate.target, candidate.culture));
  }
  // Without a variant value, `auto` drafts products alone.
  const variantPlaced = [...chosen.values()].some(
    (c) => c.entity === variantEntity && c.concept !== 'ref' && c.concept !== 'product',
  );
  const useVariants =
    variantEntity !== undefined &&
    withVariants !== false &&
    (withVariants === true ||
      variantPlaced ||
      structure.parentColumn !== undefined ||
      structure.groupColumn !== undefined ||
      structure.continuation);
  // Without variants, the headers are placed again on the product's fields alone.
  if (variantEntity && !useVariants) return draftProfile(headers, model, entityName, false, evidence);
  const columns: Record<string, string | ColumnRule | null> = {};
  const unplaced: string[] = [];
  const notes: HeaderNote[] = [];
  headers.forEach((header, at) => {
    const values = sample.values.get(header) ?? [];
    const found = chosen.get(at);
    if (header === structure.parentColumn && useVariants) {
      columns[header] = null;
      notes.push({ header, structure: 'parent: a row with a value here is a variant of that product' });
      return;
    }
    if (header === structure.scopeColumn) {
      columns[header] = null;
      notes.push({
        header,
        structure:
          'store view: a row with a value here overrides its product for that store view; the tenant keeps values per language, not per store view, so such rows are skipped (reported with the reason)',
      });
      return;
    }
    if (!found) {
      columns[header] = null;
      unplaced.push(header);
      const reason = perHeader[at]!.warning;
      notes.push({
        header,
        ...(reason && { warning: reason }),
        ...(structure.kinds.has(header) && { structure: 'the kind of row (simple, variation, ...)' }),
        ...(header === structure.childrenColumn && {
          warning:
            'a parent lists its children here; a profile cannot link children listed by a later row: each row is drafted as a product',
        }),
        suggestions: suggestions(header, targets),
        samples: values.slice(0, 3).map((v) => (v.length > 60 ? `${v.slice(0, 57)}...` : v)),
      });
      return;
    }
    const rule: ColumnRule & Record<string, unknown> = {
      field: found.target,
      ...(found.culture && { culture: found.culture }),
    };
    const target = targets.find((t) => t.name === found.target);
    const extra = columnRules(
      header,
      {
        target: found.target,
        ...(found.field && { field: found.field }),
        ...(target?.link && { linkField: target.field }),
      },
      sample,
      headers,
    );
    // The API's own `cat_refs` header holds refs, not paths.
    if (found.concept === 'exact') delete extra.rule.categoryPath;
    Object.assign(rule, extra.rule);
    columns[header] = Object.keys(rule).length === 1 ? found.target : rule;
    const unit = headerParts(header).unit;
    const warning =
      extra.warning ?? (unit && found.field && !rule.unit ? unitWarning(unit, found.field) : undefined);
    notes.push({
      header,
      field: found.target,
      ...(found.culture && { culture: found.culture }),
      ...(unit && { unit }),
      ...(warning && { warning }),
    });
  });
  const profile: Profile = {
    entity: entityName,
    ...(useVariants && { variants: true }),
    ...(structure.scopeColumn && { scopeColumn: structure.scopeColumn }),
    columns,
  };
  if (useVariants && main && variantEntity)
    completeVariants(profile, main, variantEntity, headers, chosen, structure, sample, notes);
  else if (main && !headers.some((_, at) => chosen.get(at)?.target === main.refField))
    refFromTitle(profile, main, headers, chosen, notes);
  return { profile, unplaced, notes };
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

/** The parent's ref column and the group column take the refs before any header is placed by name. */
function reserveStructure(
  structure: Structure,
  headers: readonly string[],
  targets: Target[],
  entities: EntityModel[],
  chosen: Map<number, Candidate>,
  taken: Set<string>,
): void {
  const [main, variant] = entities;
  if (!main || !variant) return;
  const place = (header: string | undefined, entity: EntityModel) => {
    const at = header === undefined ? -1 : headers.indexOf(header);
    const order = targets.findIndex((t) => t.name === entity.refField);
    const target = targets[order];
    if (at < 0 || !target) return;
    chosen.set(at, {
      target: target.name,
      entity,
      field: target.field,
      concept: 'ref',
      weak: false,
      score: 99,
      order,
    });
  };
  if (structure.groupColumn && structure.refColumn) {
    place(structure.groupColumn, main);
    place(structure.refColumn, variant);
  } else if (structure.parentColumn && structure.refColumn) {
    place(structure.refColumn, variant);
  } else return;
  // The product's ref comes from the same column (a field rule), never from another header.
  taken.add(key(main.refField, undefined));
  taken.add(key(variant.refField, undefined));
}

/** The variant mapping: the parent column, fill-down, and the refs a row lacks taken from the other one. */
function completeVariants(
  profile: Profile,
  main: EntityModel,
  variant: EntityModel,
  headers: readonly string[],
  chosen: Map<number, Candidate>,
  structure: Structure,
  sample: FeedSample,
  notes: HeaderNote[],
): void {
  const columnOf = (target: string) => headers.find((_, at) => chosen.get(at)?.target === target);
  const fields: Record<string, FieldRule> = {};
  if (structure.parentColumn) profile.parentColumn = structure.parentColumn;
  if (structure.continuation) profile.fillDown = true;
  const productRef = columnOf(main.refField);
  const variantRef = columnOf(variant.refField);
  const title = titleColumn(headers, chosen);
  if (productRef && title && sample.rows.length > 0 && !sample.values.has(productRef)) {
    // A product ref column that is blank on every sampled row (Vendure's `slug`): the title stands in.
    profile.columns![productRef] = null;
    fields[main.refField] = { from: [productRef, title] };
    const note = notes.find((n) => n.header === productRef);
    if (note) {
      delete note.field;
      note.warning = `blank on every sampled row: ${main.refField} is taken from it, else from "${title}" (fields)`;
    }
  }
  if (fields[main.refField]) {
    if (!variantRef) fields[variant.refField] = { from: [productRef!] };
  } else if (productRef && !variantRef) fields[variant.refField] = { from: [productRef] };
  else if (variantRef && !productRef) fields[main.refField] = { from: [variantRef] };
  else if (!productRef && !variantRef) {
    if (title) {
      fields[main.refField] = { from: [title] };
      fields[variant.refField] = { from: [title] };
      warnOn(
        notes,
        title,
        `no column holds a reference: ${main.refField} and ${variant.refField} are taken from "${title}"`,
      );
    }
  }
  variantImage(profile, main, variant, headers, chosen, structure, sample, fields, notes);
  if (structure.parentColumn)
    ownVariant(profile, variant, headers, chosen, structure.parentColumn, sample, notes);
  if (!structure.parentColumn && productRef && variantRef)
    ownVariantImage(profile, main, variant, headers, chosen, sample, productRef, fields, notes);
  if (Object.keys(fields).length > 0) profile.fields = fields;
}

/**
 * With a parent column, a row without a parent is a product; when some such sampled rows give variant
 * values of their own (WooCommerce's and Bagisto's simple products and their `Regular price`), each also
 * drafts its own variant, or those values would not be written (`ownVariant`).
 */
function ownVariant(
  profile: Profile,
  variant: EntityModel,
  headers: readonly string[],
  chosen: Map<number, Candidate>,
  parent: string,
  sample: FeedSample,
  notes: HeaderNote[],
): void {
  const values = headers.filter((_, at) => {
    const c = chosen.get(at);
    return c?.entity === variant && c.target !== variant.refField;
  });
  const rows = sample.rows.filter((row) => !row.has(parent) && values.some((column) => row.has(column)));
  if (rows.length === 0) return;
  profile.ownVariant = true;
  const named = values.filter((column) => rows.some((row) => row.has(column)));
  const said = `${rows.length} sampled rows without one give variant values (${named.map((c) => `"${c}"`).join(', ')}): such a row drafts its product and a variant of it (ownVariant)`;
  const note = notes.find((n) => n.header === parent);
  if (note?.structure) note.structure = `${note.structure}; ${said}`;
  else notes.push({ header: parent, structure: said });
}

/**
 * With a parent column, a variant row's product columns are not read: its own image (WooCommerce's
 * `Images` on a variation row) would be lost. When the sampled variant rows hold one image each in the
 * column placed on the product's images, the variant's image field takes it from there too.
 */
function variantImage(
  profile: Profile,
  main: EntityModel,
  variant: EntityModel,
  headers: readonly string[],
  chosen: Map<number, Candidate>,
  structure: Structure,
  sample: FeedSample,
  fields: Record<string, FieldRule>,
  notes: HeaderNote[],
): void {
  const parent = structure.parentColumn;
  if (!parent) return;
  const field = variant.fields.find((f) => f.asset === 'image' && !f.multilingual);
  if (!field || fields[field.name] || [...chosen.values()].some((c) => c.target === field.name)) return;
  const column = productImageColumn(headers, chosen, main);
  if (!column) return;
  const rule = profile.columns?.[column];
  const split =
    typeof rule === 'object' && rule !== null && typeof rule.split === 'string' ? rule.split : '|';
  const images = sample.rows.filter((row) => row.has(parent)).map((row) => row.get(column));
  const held = images.filter((v): v is string => v !== undefined);
  // One image per variant row that has one, and some have one; several would not fit one field.
  if (held.length === 0 || held.some((v) => v.includes(split.trim() || split))) return;
  fields[field.name] = { from: [column] };
  const note = notes.find((n) => n.header === column);
  if (note) note.structure = `on a variant row, the variant's ${field.name} (fields)`;
}

/** One row per variant, an image column that differs between rows of a product: the variant's image. */
function ownVariantImage(
  profile: Profile,
  main: EntityModel,
  variant: EntityModel,
  headers: readonly string[],
  chosen: Map<number, Candidate>,
  sample: FeedSample,
  productRef: string,
  fields: Record<string, FieldRule>,
  notes: HeaderNote[],
): void {
  const taken = new Set([...chosen.values()].map((c) => c.target));
  const free = (field: string) => !taken.has(field) && !fields[field];
  const column = productImageColumn(headers, chosen, main, { multiple: true });
  if (!column) return;
  const move = variantImageColumn(variant, free, productRef, column, profile.columns?.[column], sample);
  if (!move) return;
  profile.columns![column] = move.rule;
  const note = notes.find((n) => n.header === column);
  if (note) {
    note.field = move.rule.field;
    note.structure = `differs between rows of one product: the variant's ${move.rule.field}${move.rule.first ? ' (the first image of a cell)' : ''}`;
  }
}

/** The header placed on one of the product's image fields (with `multiple`: a field of several). */
function productImageColumn(
  headers: readonly string[],
  chosen: Map<number, Candidate>,
  main: EntityModel,
  options: { multiple?: boolean } = {},
): string | undefined {
  return headers.find((_, at) => {
    const c = chosen.get(at);
    return c?.entity === main && c.field?.asset === 'image' && (!options.multiple || c.field.multiple);
  });
}

/** A feed without a ref column (eShopOnContainers): the title is the ref. */
function refFromTitle(
  profile: Profile,
  main: EntityModel,
  headers: readonly string[],
  chosen: Map<number, Candidate>,
  notes: HeaderNote[],
): void {
  const title = titleColumn(headers, chosen);
  if (!title) return;
  profile.fields = { [main.refField]: { from: [title] } };
  warnOn(notes, title, `no column holds a reference: ${main.refField} is taken from "${title}"`);
}

/**
 * A warning on a placed header's own note (the title, when it is also the ref): a note of its own, with
 * no field, would read "not placed".
 */
function warnOn(notes: HeaderNote[], header: string, warning: string): void {
  const note = notes.find((n) => n.header === header);
  if (!note) notes.push({ header, warning });
  else note.warning = note.warning ? `${note.warning}; ${warning}` : warning;
}

function titleColumn(headers: readonly string[], chosen: Map<number, Candidate>): string | undefined {
  return headers.find((_, at) => {
    const c = chosen.get(at);
    return c?.field?.name.endsWith('_title') && (!c.culture || c.culture === 'en');
  });
}
