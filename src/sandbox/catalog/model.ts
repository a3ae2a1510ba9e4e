// How the sandbox describes a tenant's resources: one FieldDef per property, one ResourceDef per
// resource. $metadata, the OData query schema and write validation are all derived from these.

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'date-time';

export interface FieldDef {
  name: string;
  type: FieldType;
  description?: string;
  maxLength?: number;
  enum?: string[];
  pattern?: string;
  /** Server-owned: ids, derived refs, creation and modification dates. Writing it is a 400. */
  readOnly?: boolean;
  /** Settable on create only (refs). Sending it on PATCH is a 400. */
  immutable?: boolean;
  /** Required on create. */
  required?: boolean;
  /** One value per culture; read back as the value of the request's culture. */
  multilingual?: boolean;
  /** The cultures this field has, when fewer than the tenant's (default: all tenant languages). */
  languages?: string[];
  /** Holds DAM names. */
  asset?: 'image' | 'file';
  /** Several values (an array). */
  multiple?: boolean;
  /** Integer id link to another collection, e.g. `Categories`. */
  references?: string;
}

export type ResourceKind = 'Product' | 'Variant' | 'Category' | 'CustomEntity';

export interface ResourceDef {
  kind: ResourceKind;
  /** Schema title: `Product`, `Variant`, `Category`, or the custom entity's denominator. */
  title: string;
  /** Collection path segment: `Products`, `Variants`, `Categories`; custom entities: the denominator. */
  collection: string;
  key: string;
  ref: string;
  /** Server-stamped creation and modification dates (read-only fields of the resource). */
  createdField: string;
  modifiedField: string;
  fields: FieldDef[];
  /** Embedded collections that `$expand` accepts. */
  expandable: Array<'Products' | 'Variants'>;
}

export interface CustomEntityDef extends ResourceDef {
  kind: 'CustomEntity';
  denominator: string;
}

/** The tenant's configuration: languages (base first) and the definitions of every resource. */
export interface TenantSchema {
  languages: string[];
  product: ResourceDef;
  variant: ResourceDef;
  category: ResourceDef;
  customEntities: CustomEntityDef[];
  /** Point of Sale appears in `$metadata` only (the spec lists no endpoint for it). */
  pointOfSale: { title: string; key: string; ref: string; fields: FieldDef[] };
}

/** A stored record. Multilingual values are `{culture: value}` objects; multi-values are arrays. */
export type StoredRecord = Record<string, unknown>;

/** Form layout: `{sections: [{title, rows: [{fields: [...]}]}]}` (rows may carry further members). */
export interface Layout {
  sections: Array<{ title: string; rows: Array<{ fields: string[]; [member: string]: unknown }> }>;
}

export function fieldLanguages(field: FieldDef, tenantLanguages: readonly string[]): string[] {
  return field.languages ?? [...tenantLanguages];
}
