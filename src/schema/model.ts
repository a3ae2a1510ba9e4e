// The tenant's data model as the client understands it, built from `$metadata` at run time.
// Nothing about fields is hard-coded: everything below is read from the tenant's schemas.

export type FieldType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'date'
  | 'date-time'
  | 'object'
  | 'array'
  | 'unknown';

export interface FieldModel {
  name: string;
  /** Scalar type of one value (for a multi-value field, the type of each element). */
  type: FieldType;
  /** JSON Schema `format`, when given. */
  format?: string;
  maxLength?: number;
  pattern?: string;
  enum?: Array<string | number>;
  /** Not sent on writes (server-owned: ids, dates the server stamps). */
  readOnly: boolean;
  /** Settable on create only (refs). */
  immutable: boolean;
  multilingual: boolean;
  /** Image/file fields hold DAM names. */
  asset?: 'image' | 'file';
  /** Several values (an array on read and write). */
  multiple: boolean;
  /** Integer id link to another resource: e.g. `Categories`. */
  references?: string;
  required: boolean;
  description?: string;
  /** Multilingual fields that have only some of the tenant's languages: those (else absent: all of them). */
  languages?: string[];
}

export type EntityKind = 'products' | 'variants' | 'categories' | 'custom';

export interface EntityModel {
  /** `products`, `variants`, `categories` or `custom:<denominator>`. */
  name: string;
  kind: EntityKind;
  /** Custom entities only: the denominator exactly as the tenant lists it. */
  denominator?: string;
  /** Collection path below the catalog URL: `/Products`, `/CustomEntities('Store Locations')`. */
  path: string;
  /** `prod_id`, `frmt_id`, `cat_id`, or the custom entity's id field. */
  idField: string;
  /** `prod_ref`, `frmt_ref`, `cat_ref`, or the custom entity's reference field. */
  refField: string;
  /** Fields in the schema's order. */
  fields: FieldModel[];
  field(name: string): FieldModel | undefined;
  /** The resource's JSON Schema as `$metadata` gave it (for tools that need more than the model holds). */
  schema?: Record<string, unknown>;
}

export interface TenantModel {
  /** Tenant languages, base language first (e.g. `['en', 'fr', 'es']`). */
  languages: string[];
  baseLanguage: string;
  entities: EntityModel[];
  entity(name: string): EntityModel | undefined;
  /** When the schemas were fetched (ISO). */
  fetchedAt: string;
}

/** The entity a field's `references` names (`Products`, `categories`, ...), if the model has it. */
export function referencedEntity(
  model: TenantModel,
  references: string | undefined,
): EntityModel | undefined {
  if (!references) return undefined;
  const kind = references.toLowerCase();
  return model.entities.find((e) => e.kind === kind || e.name === kind);
}
