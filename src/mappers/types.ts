// What the mapper produces: entity drafts (one entity write-to-be each) and row problems, per source row.
// The import runner consumes the same `Draft` type; the validator checks drafts against write-schemas.
import type { Location, SourceRow } from '../readers/types.js';

/** Per-row instruction from the `_command` column. */
export type Command = 'MERGE' | 'NEW' | 'UPDATE' | 'DELETE' | 'IGNORE';
export const COMMANDS: readonly Command[] = ['MERGE', 'NEW', 'UPDATE', 'DELETE', 'IGNORE'];

/** A scalar written to the API after coercion. */
export type Value = string | number | boolean | null;
/** A field value: a scalar, or several for a multi-value field. */
export type FieldValue = Value | Value[];

/** An http(s) URL to register in the DAM before the draft is written; the field then holds `name`. */
export interface AssetRef {
  field: string;
  culture?: string;
  /** Absent when the source gave a plain DAM name (nothing to register). */
  url?: string;
  /** The DAM reference: the filename of the URL, or the name as given. */
  name: string;
  kind: 'image' | 'file';
  /**
   * Why the catalog refuses `name` in this field (`unusableName`, decided once when the reference is made
   * from the cell), or absent for a usable name. Such an asset is never looked up nor registered: the
   * row is written without it (validate says the same).
   */
  unusable?: string;
  /** DAM tags for the registration (the profile's `tags`). */
  tags?: string[];
}

/** References by ref, resolved to ids by the import. */
export interface DraftLinks {
  /** Variants: the owning product's `prod_ref` (resolved to `prod_id`). */
  productRef?: string;
  /** Categories: the parent's `cat_ref` (resolved to `cat_parent_id`). */
  parentRef?: string;
  /** Products: category refs (resolved to `cat_ids`). */
  categoryRefs?: string[];
  /**
   * Category paths (titles, root first) the draft needs to exist: from a `categoryPath` column. The
   * import finds or creates each path's categories, parents first, before the draft is written.
   */
  categoryPaths?: string[][];
  /** Any other `x-references` field, keyed by the id field it resolves to (e.g. `typ_id`). */
  byField?: Record<string, string | string[]>;
}

/** Where a draft came from, so every message can name the row and the column. */
export interface DraftSource {
  location: Location;
  /** The source row as read (the rejects file writes its cells back). */
  row: SourceRow;
  /** Write path (`prod_price`, `prod_title.fr`) -> the source column that gave it. */
  columns: Record<string, string>;
}

export interface Draft {
  /** `products`, `variants`, `categories` or `custom:<denominator>`. */
  entity: string;
  ref: string;
  command: Command;
  /** Writable fields in the base language (multilingual ones too). */
  fields: Record<string, FieldValue>;
  /** Other languages: culture -> field -> value. */
  cultures: Record<string, Record<string, FieldValue>>;
  assets: AssetRef[];
  links: DraftLinks;
  source: DraftSource;
  /**
   * Refs whose ends the trim took spaces off (a cell `"R1 "` read as `R1`), as the cell wrote them: `ref`
   * the draft's own, `links` its link refs (trimmed -> as written). A tenant may hold such a ref (made
   * outside this tool): the import uses the spelling as written when the tenant has a record of exactly
   * it, else the trimmed ref, with a warning (`runner/import/ref-spelling.ts`). Set by the mapper; the
   * import takes each off once it has chosen.
   */
  asWritten?: { ref?: string; links?: Record<string, string> };
  /** Warnings the import gives the row for this draft (a reference read trimmed). */
  warnings?: string[];
}

/** A problem with one row; `severity: 'warning'` never makes a row invalid. */
export interface RowIssue {
  code: 'MAP_COERCE' | 'MAP_UNKNOWN_COLUMN' | 'MAP_MISSING_COLUMN' | 'MAP_NOT_WRITTEN' | 'VALIDATION';
  severity: 'error' | 'warning';
  /** The API field concerned (with `.culture` for a language), when known. */
  field?: string;
  /** The source column concerned, when known. */
  column?: string;
  value?: unknown;
  /** A sentence a non-developer understands, without the location (the report has its own column). */
  message: string;
  /** The same sentence without the row's value, so equal problems can be counted together. */
  brief: string;
}

/** What one source row turned into. */
export interface MappedRow {
  location: Location;
  /** The source row as read. */
  row: SourceRow;
  /** The row has a `_command` cell (otherwise its command is the default). */
  commandGiven: boolean;
  /** Zero (skipped row), one, or two drafts (a product and its variant from the same row). */
  drafts: Draft[];
  issues: RowIssue[];
  /** The row asks to be skipped (`IGNORE`, or nothing in it). */
  skipped: boolean;
  /** Why a row is skipped when the row itself did not ask for it (a store view override). */
  skipReason?: string;
  /** A skipped row without drafts that still names its record (a store view's row): its entity and ref. */
  record?: { entity: string; ref: string };
}
