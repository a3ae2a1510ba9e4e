// The mapping profile: a small declarative vocabulary (no code evaluation) that turns source columns into
// API fields. Its JSON Schema ships as `schemas/profile.schema.json`; `loadProfile` checks files against it.
import type { Value } from './types.js';

/** How one value is converted before it is written. Every key is optional; defaults come from the field's type. */
export interface ConversionRule {
  /** Coerce as this type instead of the field's schema type. */
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'date-time';
  /** Separator for multi-value fields (default `|`); `false`: never split. */
  split?: string | false;
  /** Trim spaces around the value (default true). */
  trim?: boolean;
  /** Used when the cell is empty. */
  default?: Value;
  /** Value table applied before coercion (exact match, then case-insensitive): `{"Y": true, "N": false}`. */
  map?: Record<string, Value>;
  /** IANA time zone of local dates and times in the cell (default: the profile's, else UTC). */
  timezone?: string;
  /** Decimal separator: `.` or `,` (default: either, when the number has only one kind of mark). */
  decimal?: '.' | ',';
  /** Thousands separator allowed in numbers (default: none; a number with one is refused). */
  thousands?: ',' | '.' | ' ' | "'";
  /** A list value (JSON array) for a single-value field is joined with this text (default: refused). */
  join?: string;
  /**
   * A single-value field takes the first item of a cell that lists several (split by `split`, default `|`)
   * or of a list value: a PrestaShop combination's own images, for the variant's one image.
   */
  first?: true;
  /** Date layout of the cell when it is not ISO 8601: tokens `YYYY MM DD HH mm ss`, e.g. `DD/MM/YYYY HH:mm`. */
  dateFormat?: string;
  /**
   * Unit the numbers are written in (`lb`, `g`, `in`, `oz`, ...): they are converted to the unit the field
   * holds (its description names it: `Weight in kg`). A cell may name its own unit (`12 kg`, `500 g`).
   */
  unit?: string;
  /** Image/file fields: DAM tags given to the assets this column's URLs register (`["supplier-x"]`). */
  tags?: string[];
}

/** A source column mapped to a field (and a language for a multilingual field). */
export interface ColumnRule extends ConversionRule {
  field: string;
  culture?: string;
  /**
   * The cell names categories by their titles, as a path (`Clothing > Hoodies`): the import links the
   * category of each path, creating the missing ones parents first. `true`: the separator is found in
   * the file (the first of ` > `, `/`, `|` a cell holds); `split` separates several paths in one cell.
   * On a product's category link (`cat_refs`); on categories, on `cat_ref` (the row's own path) or
   * `cat_parent_ref` (its parent's path).
   */
  categoryPath?: true | { separator?: string };
}

/** A field filled from something other than one column. */
export interface FieldRule extends ConversionRule {
  culture?: string;
  /** The same value on every row. */
  constant?: Value | Value[];
  /** Joins columns: `"{Brand} {Name}"`. Empty when every named column is empty. */
  template?: string;
  /** The first non-empty of these columns. */
  from?: string[];
}

export interface Profile {
  $schema?: string;
  /** `products`, `variants`, `categories` or `custom:<denominator>`. */
  entity: string;
  /**
   * Workbooks imported whole: sheet name -> entity, for sheets whose name or header does not say it
   * (`{"Artikel": "products"}`). Sheets of the profile's entity are read with this profile.
   */
  sheets?: Record<string, string>;
  /** Rows also carry variant columns (one row per variant): products are grouped by reference. */
  variants?: boolean;
  /** Source header -> field name (`prod_title_fr` works for a language), a rule, or `null` to ignore. */
  columns?: Record<string, string | ColumnRule | null>;
  /** Field name -> constant, template or first-of rule. */
  fields?: Record<string, FieldRule>;
  /** Headers not listed in `columns` map to the field of the same name (default true). */
  autoColumns?: boolean;
  /** Blank cells take the value of the row above: `true` for every product column, or a list of headers. */
  fillDown?: boolean | string[];
  /**
   * Column that names a row's parent product (WooCommerce `Parent`, Bagisto `parent_sku`): a row with a value
   * there is a variant of that product (its product columns are ignored); a row without one is a product.
   */
  parentColumn?: string;
  /**
   * With `parentColumn`: a row without a parent that gives a variant value of its own (a price, a stock:
   * WooCommerce's and Bagisto's simple products) drafts its product and a variant of it, the variant's ref
   * from the row's variant ref column. Without it, such values are not written, and each is a warning.
   * A list of columns: only a value in one of them makes the variant (Bagisto's `price`, while its
   * `status`, given on every row, does not: a configurable or grouped product has no variant of its own).
   */
  ownVariant?: boolean | string[];
  /**
   * Column naming the scope a row belongs to (Magento `store_view_code`): a row with a value there
   * overrides its product's default row for one store view, its empty cells meaning "inherit". The
   * tenant keeps values per language, not per store view, so such a row is skipped, with the reason in
   * the report; the default row (the cell empty) is imported.
   */
  scopeColumn?: string;
  /** How many recent product refs are remembered to group non-consecutive rows (default 1000). */
  groupWindow?: number;
  /** Column holding MERGE / NEW / UPDATE / DELETE / IGNORE (default `_command`). */
  commandColumn?: string;
  /** Defaults for every column. */
  split?: string;
  trim?: boolean;
  timezone?: string;
  decimal?: '.' | ',';
  thousands?: ',' | '.' | ' ' | "'";
  dateFormat?: string;
}
