// Tenant structure: the v2 attribute sets and the form layouts, as documents a file or a copy carries.
// Few and small (a handful of sets, one layout per category or custom-entity type), so they are held
// whole, unlike records.

/** A form layout: `{ sections: [{ title, rows: [{ fields: [...] }] }] }`, kept as the service gave it. */
export type LayoutDocument = Record<string, unknown>;

/** One v2 attribute set, keyed by its name (ids differ between tenants). */
export interface AttributeSetDoc {
  name: string;
  /** The tenant's default set: matched with the target's default (`/v2/AttributeSets(default)`), whatever its name. */
  isDefault: boolean;
  /** Undefined: leave the target's as it is. */
  productLayout?: LayoutDocument;
  variantLayout?: LayoutDocument;
  /** The source's id, for reading only (another tenant numbers its sets itself). */
  identifier?: number;
  /** Where it came from (`sheet attribute-sets row 3`, `attribute set 'Apparel'`). */
  location: string;
}

/** The layout of categories or of one custom-entity type. */
export interface LayoutDoc {
  /** `categories` or `custom:<denominator>`. */
  target: string;
  document: LayoutDocument;
  location: string;
}

export interface Structure {
  attributeSets: AttributeSetDoc[];
  layouts: LayoutDoc[];
}

export type StructureOutcome =
  | 'created'
  | 'updated'
  | 'unchanged'
  | 'failed'
  | 'invalid'
  | 'would-create'
  | 'would-update';

/** What happened to one attribute set or layout: a report line. */
export interface StructureResult {
  location: string;
  /** `attribute-sets` or `layouts`. */
  entity: string;
  /** The set's name, or the layout's target. */
  ref: string;
  outcome: StructureOutcome;
  id?: number;
  status?: number;
  /** What differs: `ProductLayout`, or in a plan `ProductLayout.sections[0].title: "A" -> "B"`. */
  changed: string[];
  message?: string;
}

/** Names of the two tables (sheets, files) that carry the structure next to the data. */
export const ATTRIBUTE_SETS_TABLE = 'attribute-sets';
export const LAYOUTS_TABLE = 'layouts';
export type StructureTable = typeof ATTRIBUTE_SETS_TABLE | typeof LAYOUTS_TABLE;

/**
 * Each table's columns as the export writes them (export/structure.ts), and those a header must have
 * to be taken for the table when its sheet or file is named otherwise (one of `anyOf`, all of `allOf`).
 */
export const STRUCTURE_COLUMNS: Record<
  StructureTable,
  { columns: readonly string[]; allOf: readonly string[]; anyOf: readonly string[] }
> = {
  [ATTRIBUTE_SETS_TABLE]: {
    columns: ['name', 'default', 'identifier', 'ProductLayout', 'VariantLayout'],
    allOf: ['name'],
    anyOf: ['ProductLayout', 'VariantLayout'],
  },
  [LAYOUTS_TABLE]: { columns: ['layout', 'document'], allOf: ['layout', 'document'], anyOf: [] },
};
