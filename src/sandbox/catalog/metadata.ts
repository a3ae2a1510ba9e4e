// `$metadata` documents: JSON Schema (draft 2020-12) per resource, derived from the tenant schema,
// inside the spec's envelope `{ readLink: { uri }, value }`. The format is written down in
// docs/sandbox.md; the client reads everything about fields from here at run time.
import type { FieldDef, ResourceDef, TenantSchema } from './model.js';

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

export type JsonSchema = Record<string, unknown>;

export function metadataEnvelope(
  uri: string,
  value: JsonSchema,
): { readLink: { uri: string }; value: JsonSchema } {
  return { readLink: { uri }, value };
}

export function propertySchema(field: FieldDef, tenantLanguages: readonly string[]): JsonSchema {
  const item: JsonSchema = {
    type: field.type === 'date' || field.type === 'date-time' ? 'string' : field.type,
  };
  if (field.type === 'date' || field.type === 'date-time') item.format = field.type;
  if (field.maxLength !== undefined) item.maxLength = field.maxLength;
  if (field.enum) item.enum = [...field.enum];
  if (field.pattern) item.pattern = field.pattern;
  const schema: JsonSchema = field.multiple ? { type: 'array', items: item } : { ...item };
  if (field.description) schema.description = field.description;
  if (field.readOnly) schema.readOnly = true;
  if (field.immutable) schema['x-immutable'] = true;
  if (field.multilingual) {
    schema['x-multilingual'] = true;
    schema['x-languages'] = field.languages ? [...field.languages] : [...tenantLanguages];
  }
  if (field.asset) schema['x-asset'] = field.asset;
  if (field.multiple) schema['x-multiple'] = true;
  if (field.references) schema['x-references'] = field.references;
  return schema;
}

function objectSchema(
  id: string,
  title: string,
  key: string,
  ref: string,
  fields: FieldDef[],
  languages: readonly string[],
  relationships: Record<string, JsonSchema>,
  extra: JsonSchema = {},
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const f of fields) properties[f.name] = propertySchema(f, languages);
  return {
    $schema: DRAFT,
    $id: id,
    title,
    type: 'object',
    'x-languages': [...languages],
    'x-key': key,
    'x-reference': ref,
    ...extra,
    properties,
    required: fields.filter((f) => f.required).map((f) => f.name),
    'x-relationships': relationships,
  };
}

/** Relationships of each resource: embedded collections (expandable) and id links. */
function relationships(def: ResourceDef): Record<string, JsonSchema> {
  switch (def.kind) {
    case 'Product':
      return {
        Variants: { resource: 'Variant', kind: 'collection', foreignKey: 'prod_id', expandable: true },
        Categories: { resource: 'Category', kind: 'link', field: 'cat_ids', multiple: true },
        AttributeSet: { resource: 'AttributeSet', kind: 'link', field: 'typ_id' },
      };
    case 'Variant':
      return { Product: { resource: 'Product', kind: 'link', field: 'prod_id' } };
    case 'Category':
      return {
        Products: { resource: 'Product', kind: 'collection', foreignKey: 'cat_ids', expandable: true },
        Variants: { resource: 'Variant', kind: 'collection', via: 'Products', expandable: true },
        Parent: { resource: 'Category', kind: 'link', field: 'cat_parent_id' },
      };
    case 'CustomEntity':
      return {};
  }
}

export const ATTRIBUTE_SET_FIELDS: FieldDef[] = [
  { name: 'typ_id', type: 'integer', readOnly: true, description: 'Attribute set identifier' },
  { name: 'typ_title', type: 'string', maxLength: 255, description: 'Name' },
  { name: 'typ_stat', type: 'string', enum: ['active', 'archived'], description: 'Status' },
  { name: 'typ_default', type: 'boolean', readOnly: true, description: 'The tenant default set' },
];

export class MetadataDocuments {
  constructor(
    private readonly tenant: TenantSchema,
    private readonly catalogUrl: () => string,
  ) {}

  resource(def: ResourceDef): JsonSchema {
    const base = this.catalogUrl();
    if (def.kind === 'CustomEntity') {
      const denominator = def.title;
      return objectSchema(
        `${base}/CustomEntities('${encodeURIComponent(denominator)}')/$metadata`,
        denominator,
        def.key,
        def.ref,
        def.fields,
        this.tenant.languages,
        {},
        { 'x-denominator': denominator },
      );
    }
    return objectSchema(
      `${base}/${def.collection}/$metadata`,
      def.title,
      def.key,
      def.ref,
      def.fields,
      this.tenant.languages,
      relationships(def),
    );
  }

  attributeSet(): JsonSchema {
    return objectSchema(
      `${this.catalogUrl()}/AttributeSets/$metadata`,
      'AttributeSet',
      'typ_id',
      'typ_title',
      ATTRIBUTE_SET_FIELDS,
      this.tenant.languages,
      {
        Products: { resource: 'Product', kind: 'collection', foreignKey: 'typ_id', expandable: true },
        Variants: { resource: 'Variant', kind: 'association', via: 'Products' },
      },
    );
  }

  pointOfSale(): JsonSchema {
    const pos = this.tenant.pointOfSale;
    return objectSchema(
      `${this.catalogUrl()}/$metadata#PointOfSale`,
      pos.title,
      pos.key,
      pos.ref,
      pos.fields,
      this.tenant.languages,
      {},
    );
  }

  /** `/$metadata`: every resource under `$defs`, the tenant's languages and the relationships. */
  root(): JsonSchema {
    const t = this.tenant;
    const defs: Record<string, JsonSchema> = {
      Category: this.resource(t.category),
      AttributeSet: this.attributeSet(),
      Product: this.resource(t.product),
      Variant: this.resource(t.variant),
      PointOfSale: this.pointOfSale(),
    };
    const rels: Record<string, JsonSchema> = {};
    for (const [name, schema] of Object.entries(defs)) rels[name] = schema['x-relationships'] as JsonSchema;
    return {
      $schema: DRAFT,
      $id: `${this.catalogUrl()}/$metadata`,
      title: 'Catalog',
      'x-languages': [...t.languages],
      'x-collections': {
        Categories: 'Category',
        AttributeSets: 'AttributeSet',
        Products: 'Product',
        Variants: 'Variant',
      },
      $defs: defs,
      'x-relationships': rels,
    };
  }

  /** `/CustomEntities/$metadata`: the denominators and a `$defs` entry per custom entity. */
  customEntities(): JsonSchema {
    const defs: Record<string, JsonSchema> = {};
    for (const ce of this.tenant.customEntities) defs[ce.denominator] = this.resource(ce);
    return {
      $schema: DRAFT,
      $id: `${this.catalogUrl()}/CustomEntities/$metadata`,
      title: 'CustomEntities',
      'x-languages': [...this.tenant.languages],
      'x-denominators': this.tenant.customEntities.map((ce) => ce.denominator),
      $defs: defs,
      'x-relationships': {},
    };
  }
}
