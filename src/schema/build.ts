// Builds the TenantModel from the raw `$metadata` documents. Everything about fields is read from the
// schemas; where a tenant's schema lacks one of the extensions, the builder falls back to what plain
// JSON Schema says (a multilingual value given as `[{culture, value}]` or as `oneOf` string/object,
// a multi-value field as `type: array`, key and reference fields from the resource prefix).
import { customEntityPath } from '../api/url.js';
import type { EntityKind, EntityModel, FieldModel, FieldType, TenantModel } from './model.js';
import type { RawSchemas } from './raw.js';

type Json = Record<string, unknown>;

interface StandardEntity {
  name: 'products' | 'variants' | 'categories';
  kind: EntityKind;
  collection: 'Products' | 'Variants' | 'Categories';
  /** Name under `$defs` of `/$metadata`. */
  def: string;
  prefix: string;
}

const STANDARD: StandardEntity[] = [
  { name: 'products', kind: 'products', collection: 'Products', def: 'Product', prefix: 'prod' },
  { name: 'variants', kind: 'variants', collection: 'Variants', def: 'Variant', prefix: 'frmt' },
  { name: 'categories', kind: 'categories', collection: 'Categories', def: 'Category', prefix: 'cat' },
];

/**
 * Whether `/$metadata` holds a standard collection's schema under `$defs` (with its properties): then
 * the model needs no per-resource document for it.
 */
export function catalogDefines(catalog: RawSchemas['catalog'], collection: string): boolean {
  const s = STANDARD.find((e) => e.collection === collection);
  return s !== undefined && findDef(obj(obj(catalog?.value).$defs), [s.def, s.collection]) !== undefined;
}

/** The model names of the standard entities (`products`, `variants`, `categories`). */
export const STANDARD_ENTITIES: readonly string[] = STANDARD.map((s) => s.name);

export function buildTenantModel(raw: RawSchemas): TenantModel {
  const root = obj(raw.catalog?.value);
  const defs = obj(root.$defs);
  const schemas: Array<{
    spec: Omit<EntityModel, 'fields' | 'field' | 'idField' | 'refField'>;
    schema: Json;
    prefix?: string;
  }> = [];
  for (const s of STANDARD) {
    const schema = obj(raw.resources[s.collection]?.value);
    const chosen = hasProperties(schema) ? schema : findDef(defs, [s.def, s.collection]);
    if (!chosen) continue;
    schemas.push({
      spec: { name: s.name, kind: s.kind, path: `/${s.collection}` },
      schema: chosen,
      prefix: s.prefix,
    });
  }
  const customList = obj(raw.customEntities?.value);
  const customDefs = obj(customList.$defs);
  const denominators = stringList(customList['x-denominators']) ?? Object.keys(customDefs);
  for (const denominator of denominators) {
    const own = obj(raw.custom[denominator]?.value);
    const chosen = hasProperties(own) ? own : findDef(customDefs, [denominator]);
    if (!chosen) continue;
    schemas.push({
      spec: {
        name: `custom:${denominator}`,
        kind: 'custom',
        denominator,
        path: customEntityPath(denominator),
      },
      schema: chosen,
    });
  }

  const languages = tenantLanguages(root, [customList, ...schemas.map((s) => s.schema)]);
  const entities = schemas.map(({ spec, schema, prefix }) => entityModel(spec, schema, prefix, languages));
  return {
    languages,
    baseLanguage: languages[0] ?? 'en',
    entities,
    entity: (name: string) => findEntity(entities, name),
    fetchedAt: raw.fetchedAt,
  };
}

/** Finds an entity by its model name (`products`, `custom:Store Locations`), a collection name or a denominator. */
export function findEntity(entities: readonly EntityModel[], name: string): EntityModel | undefined {
  const exact = entities.find((e) => e.name === name || e.denominator === name || e.path === `/${name}`);
  if (exact) return exact;
  const lower = name.toLowerCase();
  return entities.find(
    (e) =>
      e.name.toLowerCase() === lower ||
      e.denominator?.toLowerCase() === lower ||
      e.path.toLowerCase() === `/${lower}`,
  );
}

function entityModel(
  spec: Omit<EntityModel, 'fields' | 'field' | 'idField' | 'refField'>,
  schema: Json,
  prefix: string | undefined,
  languages: string[],
): EntityModel {
  const properties = obj(schema.properties);
  const required = new Set(stringList(schema.required) ?? []);
  const names = Object.keys(properties);
  const idField =
    str(schema['x-key']) ??
    (prefix && names.includes(`${prefix}_id`) ? `${prefix}_id` : undefined) ??
    names.find((n) => obj(properties[n]).readOnly === true && typeOf(obj(properties[n])) === 'integer') ??
    names.find((n) => n.endsWith('_id')) ??
    'id';
  const refField =
    str(schema['x-reference']) ??
    (prefix && names.includes(`${prefix}_ref`) ? `${prefix}_ref` : undefined) ??
    names.find((n) => obj(properties[n])['x-immutable'] === true) ??
    names.find((n) => n.endsWith('_ref')) ??
    'ref';
  const fields = names.map((name) =>
    fieldModel(name, obj(properties[name]), required.has(name), languages, name === refField),
  );
  const byName = new Map(fields.map((f) => [f.name, f]));
  return {
    ...spec,
    idField,
    refField,
    fields,
    field: (name: string) => byName.get(name),
    schema,
  };
}

export function fieldModel(
  name: string,
  prop: Json,
  required: boolean,
  tenantLanguages: string[],
  isRef = false,
): FieldModel {
  const shape = multilingualShape(prop);
  const multilingual = prop['x-multilingual'] === true || shape !== undefined;
  const valueSchema = shape?.value ?? prop;
  const isArray = typeOf(valueSchema) === 'array';
  const multiple = prop['x-multiple'] === true || isArray;
  const element = multiple && isArray ? obj(valueSchema.items) : valueSchema;
  const format = str(element.format);
  const enumValues = Array.isArray(element.enum)
    ? element.enum.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
    : undefined;
  const asset = prop['x-asset'] === 'image' || prop['x-asset'] === 'file' ? prop['x-asset'] : undefined;
  const references = str(prop['x-references']);
  const fieldLanguages = stringList(prop['x-languages']) ?? shape?.languages;
  const description = str(prop.description) ?? str(element.description);
  const model: FieldModel = {
    name,
    type: fieldType(element),
    readOnly: prop.readOnly === true,
    immutable: prop['x-immutable'] === true || isRef,
    multilingual,
    multiple,
    required,
  };
  if (format) model.format = format;
  if (typeof element.maxLength === 'number') model.maxLength = element.maxLength;
  if (typeof element.pattern === 'string') model.pattern = element.pattern;
  if (enumValues && enumValues.length > 0) model.enum = enumValues;
  if (asset) model.asset = asset;
  if (references) model.references = references;
  if (description) model.description = description;
  if (multilingual && fieldLanguages && !sameList(fieldLanguages, tenantLanguages))
    model.languages = fieldLanguages;
  return model;
}

/**
 * A multilingual value written without the `x-multilingual` extension:
 *   `{type: array, items: {properties: {culture, value}}}`, or `oneOf`/`anyOf` of a value and an object
 *   keyed by culture. Returns the schema of one value, and the cultures when the schema names them.
 */
function multilingualShape(prop: Json): { value: Json; languages?: string[] } | undefined {
  if (typeOf(prop) === 'array') {
    const item = obj(prop.items);
    const itemProps = obj(item.properties);
    if ('culture' in itemProps && 'value' in itemProps) {
      const cultures = stringList(obj(itemProps.culture).enum);
      return cultures
        ? { value: obj(itemProps.value), languages: cultures }
        : { value: obj(itemProps.value) };
    }
  }
  const alternatives = Array.isArray(prop.oneOf)
    ? prop.oneOf
    : Array.isArray(prop.anyOf)
      ? prop.anyOf
      : undefined;
  if (alternatives) {
    const options = alternatives.map(obj);
    const byCulture = options.find((o) => typeOf(o) === 'object');
    const value = options.find((o) => typeOf(o) !== 'object' && typeOf(o) !== 'null');
    if (byCulture && value) {
      const named = Object.keys(obj(byCulture.properties));
      return named.length > 0 ? { value, languages: named } : { value };
    }
  }
  return undefined;
}

function fieldType(schema: Json): FieldType {
  const t = typeOf(schema);
  const format = str(schema.format);
  if (t === 'string' && (format === 'date' || format === 'date-time')) return format;
  switch (t) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
    case 'object':
    case 'array':
      return t;
    default:
      return 'unknown';
  }
}

/** The JSON type, ignoring `null` in a type list (`["string", "null"]` is a nullable string). */
function typeOf(schema: Json): string | undefined {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === 'string' && x !== 'null');
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

/** Languages: the catalog's `x-languages` (base first); otherwise the first resource that lists them. */
function tenantLanguages(root: Json, others: Json[]): string[] {
  const own = stringList(root['x-languages']);
  if (own && own.length > 0) return own;
  for (const s of others) {
    const listed = stringList(s['x-languages']);
    if (listed && listed.length > 0) return listed;
  }
  // No list anywhere: gather the cultures multilingual fields name, in the order met.
  const found: string[] = [];
  for (const s of others) {
    for (const prop of Object.values(obj(s.properties))) {
      const shape = multilingualShape(obj(prop));
      for (const l of shape?.languages ?? stringList(obj(prop)['x-languages']) ?? [])
        if (!found.includes(l)) found.push(l);
    }
  }
  return found;
}

function findDef(defs: Json, names: string[]): Json | undefined {
  for (const n of names) {
    const d = obj(defs[n]);
    if (hasProperties(d)) return d;
  }
  return undefined;
}

function hasProperties(schema: Json): boolean {
  return Object.keys(obj(schema.properties)).length > 0;
}

function obj(v: unknown): Json {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A model as plain data (its lookups left out): what a worker thread is given to rebuild it. */
export type ModelData = Omit<TenantModel, 'entity' | 'entities'> & {
  entities: Array<Omit<EntityModel, 'field'>>;
};

export function modelData(model: TenantModel): ModelData {
  return {
    languages: model.languages,
    baseLanguage: model.baseLanguage,
    fetchedAt: model.fetchedAt,
    entities: model.entities.map(({ field: _, ...entity }) => entity),
  };
}

/** The model again from `modelData`, with its lookups. */
export function modelFromData(data: ModelData): TenantModel {
  const entities: EntityModel[] = data.entities.map((entity) => {
    const byName = new Map(entity.fields.map((f) => [f.name, f]));
    return { ...entity, field: (name: string) => byName.get(name) };
  });
  return { ...data, entities, entity: (name: string) => findEntity(entities, name) };
}
