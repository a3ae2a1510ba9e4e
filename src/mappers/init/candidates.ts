// The candidates of one header: every field it could go to, scored by how the header names it (own name,
// synonym, weak word, variant prefix) and how its sampled values fit (shape, enum, images, lists, refs
// filled on every row). `init.ts` assigns them, best first.
import type { EntityModel, FieldModel, TenantModel } from '../../schema/model.js';
import { resolveName, tenantCulture } from '../targets.js';
import { headerParts } from './header.js';
import { categoryCells, type UrlList, urlList } from './lists.js';
import type { Structure } from './structure.js';
import { ENTITY_WORDS, normalise, PARENT_WORDS, SYNONYMS, VARIANT_WORDS, WEAK_SYNONYMS } from './synonyms.js';
import { columnShape, type FeedSample, fits, type ValueShape } from './values.js';

/** A column the draft may map to: a writable field, or a link column (`cat_refs`, a variant's `prod_ref`). */
export interface Target {
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

export interface Candidate {
  /** The profile's column target: a field name or a link column. */
  target: string;
  entity: EntityModel;
  /** Absent for a link column. */
  field?: FieldModel;
  culture?: string;
  /** The synonym concept that matched (`ref`, `title`, ...), `exact`, or `values`. */
  concept: string;
  /** Matched by a weak word only (`id`, `slug`, `supplier`). */
  weak: boolean;
  score: number;
  /** The target's place in the schema: among equals, the main entity's field and the schema's order win. */
  order: number;
}

export interface CandidateContext {
  targets: Target[];
  model: TenantModel;
  sample: FeedSample;
  structure: Structure;
  hasProductColumn: boolean;
  variants: boolean;
}

export interface HeaderCandidates {
  list: Candidate[];
  /** Why nothing may be placed (a language the tenant lacks, values no field takes). */
  warning?: string;
}

export const key = (target: string, culture: string | undefined) => `${target}\u0000${culture ?? ''}`;

export function emptyStructure(): Structure {
  return { kinds: new Set(), emptyParents: new Set(), continuation: false };
}

/** Every field a header could go to, scored by how it was named and how its values fit. */
export function candidatesFor(
  header: string,
  c: CandidateContext,
  entities: EntityModel[],
): HeaderCandidates {
  const { structure } = c;
  const isProducts = entities[0]?.kind === 'products';
  if (structure.kinds.has(header) || header === structure.childrenColumn || header === structure.scopeColumn)
    return { list: [] };
  if (isProducts && PARENT_WORDS.has(normalise(headerParts(header).base))) return { list: [] };
  if (header === structure.groupColumn || header === structure.refColumn) return { list: [] };
  const values = valuesOf(header, c.sample);
  const exact = exactMatch(header, entities, c.model);
  if (exact) {
    const target = c.targets.find((t) => t.name === exact.target || t.field === exact.field);
    const order = target ? c.targets.indexOf(target) : 0;
    return {
      list: [
        { ...exact, entity: target?.entity ?? entities[0]!, concept: 'exact', weak: false, score: 10, order },
      ],
    };
  }
  const parts = headerParts(header);
  let culture: string | undefined;
  if (parts.language) {
    culture = tenantCulture(parts.language, c.model);
    if (!culture && normalise(parts.base) !== normalise(header)) {
      return {
        list: [],
        warning: `"${parts.language}" is not one of the tenant's languages (${c.model.languages.join(', ')})`,
      };
    }
  }
  const list: Candidate[] = [];
  const misfits: string[] = [];
  for (const form of wordForms(header, parts.base)) {
    const formCulture = form.whole ? undefined : culture;
    for (const candidate of byWord(form.word, formCulture, values, c, misfits)) {
      candidate.score -= form.penalty;
      list.push(candidate);
    }
  }
  list.push(...byValues(values, c));
  const warning = list.length === 0 && misfits.length > 0 ? misfits[0] : undefined;
  return { list, ...(warning && { warning }) };
}

/** The ways a header may name a field: as it is, without its unit and language, its last dotted part, ... */
function wordForms(header: string, base: string): Array<{ word: string; penalty: number; whole?: boolean }> {
  const forms: Array<{ word: string; penalty: number; whole?: boolean }> = [
    { word: normalise(header), penalty: 0, whole: true },
    { word: normalise(base), penalty: 0 },
  ];
  // `Image 1 Url`: a number that counts columns says nothing.
  const counted = base.replace(/(^|\s)\d+(\s|$)/g, ' ');
  if (counted !== base) forms.push({ word: normalise(counted), penalty: 0 });
  // Vendure's `product:keywords`: the product's own column (its `variant:` columns are the variant's).
  const unprefixed = base.replace(/^product:/i, '');
  if (unprefixed !== base) forms.push({ word: normalise(unprefixed), penalty: 0.5 });
  // `content.productName`, `price.price`, `packageWeight.value`: the last part, else the one before.
  const dotted = base.split('.').filter((p) => p !== '');
  const last = dotted.length > 1 ? dotted[dotted.length - 1]! : base;
  if (dotted.length > 1) {
    forms.push({ word: normalise(last), penalty: 0.5 });
    forms.push({ word: normalise(dotted[dotted.length - 2]!), penalty: 1 });
  }
  // `Product Title`, `CatalogBrandName`, `productImages`: the record's name in front says nothing.
  const words = last
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((w) => w !== '');
  if (words.length > 1 && ENTITY_WORDS.includes(normalise(words[0]!)))
    forms.push({ word: normalise(words.slice(1).join(' ')), penalty: 0.5 });
  return forms.filter((f) => f.word !== '');
}

/** What a column's sampled values look like, worked out once per header. */
interface ColumnValues {
  header: string;
  values: readonly string[];
  shape: ValueShape | undefined;
  /** URLs or image files listed in one cell. */
  urls: UrlList | undefined;
  /** JSON lists: the most items one cell held. */
  listItems: number;
  filledEveryRow: boolean;
}

function valuesOf(header: string, sample: FeedSample): ColumnValues {
  const values = sample.values.get(header) ?? [];
  let shape = columnShape(values);
  const urls = shape === 'text' ? urlList(values) : undefined;
  if (urls) shape = urls.shape;
  let listItems = 0;
  if (sample.lists.has(header)) {
    for (const row of sample.rows) {
      const cell = row.get(header);
      if (cell === undefined) continue;
      try {
        const items = JSON.parse(cell) as unknown;
        listItems = Math.max(listItems, Array.isArray(items) ? items.length : 1);
      } catch {
        listItems = Math.max(listItems, 2);
      }
    }
    if (sample.rows.length === 0) listItems = 2;
  }
  const rows = sample.rows;
  const filledEveryRow = rows.length > 0 && rows.every((row) => row.has(header));
  return { header, values, shape, urls, listItems, filledEveryRow };
}

function byWord(
  word: string,
  culture: string | undefined,
  values: ColumnValues,
  c: CandidateContext,
  misfits: string[],
): Candidate[] {
  let variantHint = false;
  let bareWord = word;
  const prefix = c.variants
    ? VARIANT_WORDS.find((v) => word.startsWith(v) && word.length > v.length)
    : undefined;
  if (prefix) {
    variantHint = true;
    bareWord = word.slice(prefix.length);
  }
  const out: Candidate[] = [];
  c.targets.forEach((target, order) => {
    const byOwnName = target.names.includes(word) || target.names.includes(bareWord);
    const strong = target.concepts.find((k) => SYNONYMS.get(k)?.includes(bareWord));
    const weak = strong ? undefined : target.concepts.find((k) => WEAK_SYNONYMS.get(k)?.includes(bareWord));
    if (!byOwnName && !strong && !weak) return;
    // `Variant Title`, `variant:weight`: about the variant, so never the product's field.
    if (variantHint && target.entity.kind !== 'variants') return;
    const field = target.field;
    let fieldCulture: string | undefined;
    let penalty = 0;
    if (culture) {
      if (field.multilingual && (!field.languages || field.languages.includes(culture)))
        fieldCulture = culture;
      else if (!target.link && !field.multilingual && culture === c.model.baseLanguage) penalty = 1;
      else return;
    }
    const why = misfit(target, values, c);
    if (why) {
      misfits.push(why);
      return;
    }
    let score = byOwnName ? 4 : strong ? 2 : 1;
    score -= penalty;
    if (preferred(values, target)) score += 2;
    // Many distinct images beat one repeated file.
    if (target.field.asset && repeated(values, c)) score -= 3;
    if (variantHint && target.entity.kind === 'variants') score += 3;
    const concept = strong ?? weak ?? target.concepts[0] ?? target.name;
    const isRef = target.name === target.entity.refField || (concept === 'ref' && !target.link);
    if (isRef) {
      // With a product column, the SKU names the variant.
      if (c.hasProductColumn && target.entity.kind === 'variants') score += 1;
      if (values.filledEveryRow) score += 1;
      if (c.structure.continuation && c.sample.rows.length > 0) {
        const productRef = target.entity.kind !== 'variants';
        if (productRef !== values.filledEveryRow) score += 3;
      }
    }
    out.push({
      target: target.name,
      entity: target.entity,
      ...(!target.link && { field }),
      ...(fieldCulture && { culture: fieldCulture }),
      concept,
      weak: !byOwnName && !strong,
      score,
      order,
    });
  });
  return out;
}

/** Why a column's values cannot fill the target; undefined when they can (or nothing is known). */
function misfit(target: Target, values: ColumnValues, c: CandidateContext): string | undefined {
  const field = target.field;
  const sample = values.values;
  if (sample.length === 0) return undefined;
  if (target.link) {
    if (field.references === 'Categories' && field.multiple && categoryCells(sample, undefined).ids)
      return 'the values are ids of the source system, not category names or paths';
    return undefined;
  }
  if (field.asset) {
    if (values.shape !== 'url' && values.shape !== 'image')
      return `values are not ${field.asset} URLs or names`;
    const pieces = values.urls
      ? sample.flatMap((v) => v.split(values.urls!.separator).map((p) => p.trim()))
      : sample;
    if (pieces.some((p) => p.includes('/') && !/^https?:\/\//i.test(p)))
      return 'values are paths relative to the source shop, which the DAM cannot fetch';
    if (pieces.every((p) => !/^https?:\/\//i.test(p)))
      return 'values are file names, not URLs: the DAM has them only if they were uploaded first (then map the column)';
    if (field.asset === 'image' && pieces.filter((p) => IMAGE_PATH.test(p)).length < pieces.length / 2)
      return 'values are URLs of pages, not images';
    if (repeated(values, c) && c.sample.rows.length >= 20)
      return 'the same file on every row: not an image of the product';
    if (!field.multiple && ((values.urls?.most ?? 1) > 1 || values.listItems > 1))
      return `several files in a cell for the single ${field.name}`;
    return undefined;
  }
  if (!fits(values.shape, field)) return `values do not fit ${field.name} (${field.type})`;
  if (field.enum) {
    const allowed = field.enum.map((e) => String(e).toLowerCase());
    const known = sample.filter((v) => allowed.includes(v.trim().toLowerCase())).length;
    if (known < sample.length / 2) return `values are not ${field.enum.join(', ')}`;
  }
  if (field.multiple && field.type === 'string' && sample.every((v) => /^\d+$/.test(v.trim())))
    return 'values are numbers, not words';
  if (!field.multiple && values.listItems > 1) return `several values in a cell for the single ${field.name}`;
  return undefined;
}

/** One file on every sampled row (a logo, a QR code) of a feed of several rows. */
function repeated(values: ColumnValues, c: CandidateContext): boolean {
  return (c.sample.distinct.get(values.header) ?? 0) === 1 && c.sample.rows.length >= 5;
}

const IMAGE_PATH = /\.(?:jpe?g|png|gif|tiff?|webp|psd)(?:[?#].*)?$/i;

/** Values that point at one kind of field: EAN-13s at a barcode field, image URLs at an image field. */
function preferred(values: ColumnValues, target: Target): boolean {
  if (target.link) return false;
  const field = target.field;
  if (values.shape === 'ean') return field.pattern === '^[0-9]{13}$';
  if (values.shape === 'url' || values.shape === 'image') return field.asset !== undefined;
  return false;
}

/** A header that says nothing known, but whose values do: valid EAN-13s, or image URLs. */
function byValues(values: ColumnValues, c: CandidateContext): Candidate[] {
  if (values.shape !== 'ean' && values.shape !== 'url') return [];
  const out: Candidate[] = [];
  c.targets.forEach((target, order) => {
    if (target.link || !preferred(values, target)) return;
    // Only the product's own images: a URL column of unknown name is not a variant's one image.
    if (values.shape === 'url' && (target.field.asset !== 'image' || !target.field.multiple)) return;
    if (misfit(target, values, c)) return;
    out.push({
      target: target.name,
      entity: target.entity,
      field: target.field,
      concept: 'values',
      weak: true,
      score: 1,
      order,
    });
  });
  return out;
}
/** The header is already a field or link name (`prod_title`, `prod_title_fr`, `cat_refs`). */
function exactMatch(
  header: string,
  entities: EntityModel[],
  model: TenantModel,
): { target: string; field?: FieldModel; culture?: string } | undefined {
  const exact = resolveName(header, entities, model);
  if (!exact) return undefined;
  if (exact.kind === 'link') return { target: header };
  if (exact.field.readOnly) return undefined;
  return exact.culture
    ? { target: exact.field.name, field: exact.field, culture: exact.culture }
    : { target: header, field: exact.field };
}

export function targetsOf(entities: EntityModel[], model: TenantModel): Target[] {
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
