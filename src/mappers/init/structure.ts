// How a feed's rows relate to each other, read off the sampled rows: a column that names the parent
// (WooCommerce `Parent`, Bagisto `parent_sku`, Shopware `parent_id`), a column every row uses to name
// its product (Shopware 5 `mainnumber`), variant rows that leave the product columns blank (Vendure,
// commercetools), a column of row kinds (`simple`, `variation`, `configurable`), and parents that list
// their children (Magento `configurable_variations`), which a profile cannot follow, and a column naming
// the store view a row overrides its product for (Magento `store_view_code`).
import { normalise, PARENT_WORDS } from './synonyms.js';
import type { FeedSample } from './values.js';

export interface Structure {
  /** Columns that say what kind of row it is (`simple`, `variation`): never a field. */
  kinds: Set<string>;
  /** Names the parent; blank on the products themselves. */
  parentColumn?: string;
  /** Parent-like columns that are blank on every sampled row (`parent` of an all-simple feed). */
  emptyParents: Set<string>;
  /** Every row names its product here, the product's own row too (`mainnumber`). */
  groupColumn?: string;
  /** The column whose values the parent or group column names: the rows' own ref. */
  refColumn?: string;
  /** Variant rows leave the product columns blank and continue the product above. */
  continuation: boolean;
  /** A parent lists its children in this column (`sku=...,size=XS|sku=...`). */
  childrenColumn?: string;
  /** Names the store view a row overrides its product for; blank on the default row. */
  scopeColumn?: string;
}

/** Headers naming a row's store view (normalised): Magento's `store_view_code` and its spellings. */
const SCOPE_WORDS = new Set(['storeviewcode', 'storeview', 'storecode', 'storeviewid']);

const KIND_WORDS = new Set([
  'simple',
  'variable',
  'variation',
  'variant',
  'configurable',
  'grouped',
  'bundle',
  'virtual',
  'downloadable',
  'external',
  'standard',
  'main',
  'parent',
  'child',
]);
/** At least one of these must show: `main` alone is not a kind column. */
const CORE_KINDS = new Set(['simple', 'variable', 'variation', 'configurable', 'grouped', 'bundle']);

/**
 * The structure of the sampled rows. `titleHeaders`: the columns that hold a product's title (variant
 * rows that continue a product leave them blank).
 */
export function readStructure(
  headers: readonly string[],
  sample: FeedSample,
  titleHeaders: readonly string[],
): Structure {
  const structure: Structure = { kinds: new Set(), emptyParents: new Set(), continuation: false };
  const rows = sample.rows;
  for (const header of headers) {
    const values = sample.values.get(header) ?? [];
    if (isKindColumn(values)) structure.kinds.add(header);
    if (values.some((v) => /(?:^|\|)sku=[^,|]+/.test(v)) && /variation|variant/i.test(header))
      structure.childrenColumn ??= header;
    // By name alone: the default rows leave it blank, and a sample may hold no override row at all.
    if (SCOPE_WORDS.has(normalise(header))) structure.scopeColumn ??= header;
  }
  if (rows.length === 0) return structure;
  const filled = (header: string) => rows.filter((row) => row.has(header)).length;
  const parents = headers.filter((h) => PARENT_WORDS.has(normalise(h)));
  for (const parent of parents) {
    const count = filled(parent);
    if (count === 0) {
      structure.emptyParents.add(parent);
      continue;
    }
    if (count === rows.length || structure.parentColumn) continue;
    structure.parentColumn = parent;
    structure.refColumn = namedBy(parent, headers, sample);
  }
  if (!structure.parentColumn) groupColumn(headers, sample, structure);
  structure.continuation = continues(sample, titleHeaders);
  return structure;
}

/** Every value one of the row kinds (a cell may list several: `simple, downloadable, virtual`). */
function isKindColumn(values: readonly string[]): boolean {
  if (values.length === 0) return false;
  let core = false;
  for (const value of values) {
    for (const word of value.toLowerCase().split(',')) {
      const kind = word.trim();
      if (!KIND_WORDS.has(kind)) return false;
      if (CORE_KINDS.has(kind)) core = true;
    }
  }
  return core;
}

/** The column, filled on every row and unique, whose values include every value of `column`. */
function namedBy(column: string, headers: readonly string[], sample: FeedSample): string | undefined {
  const wanted = new Set(sample.rows.map((row) => row.get(column)).filter((v) => v !== undefined));
  let best: string | undefined;
  for (const header of headers) {
    if (header === column || !uniqueOnEveryRow(header, sample)) continue;
    const own = new Set(sample.rows.map((row) => row.get(header)));
    // Parents may come after the sample ends: most of the names must be found, not all.
    let found = 0;
    for (const value of wanted) if (own.has(value)) found++;
    if (found > 0 && found >= wanted.size / 2) {
      best = header;
      break;
    }
  }
  return best;
}

function uniqueOnEveryRow(header: string, sample: FeedSample): boolean {
  const seen = new Set<string>();
  for (const row of sample.rows) {
    const value = row.get(header);
    if (value === undefined || seen.has(value)) return false;
    seen.add(value);
  }
  return true;
}

/**
 * Shopware 5: every row names its article (`mainnumber`), the article's own row by its own number. A
 * column filled on every row whose values are all refs of the feed, equal to the row's ref on some rows
 * and not on others.
 */
function groupColumn(headers: readonly string[], sample: FeedSample, structure: Structure): void {
  const rows = sample.rows;
  if (rows.length < 2) return;
  // Numbers are too easily one another's (a stock of 12 on item 12): only codes with letters count.
  const refs = headers.filter(
    (h) =>
      uniqueOnEveryRow(h, sample) &&
      rows.every((row) => /[A-Za-z]/.test(row.get(h)!) && !/\s/.test(row.get(h)!)),
  );
  for (const ref of refs) {
    const own = new Set(rows.map((row) => row.get(ref)!));
    for (const header of headers) {
      if (header === ref) continue;
      let same = 0;
      let other = 0;
      let ok = true;
      for (const row of rows) {
        const value = row.get(header);
        if (value === undefined || !own.has(value)) {
          ok = false;
          break;
        }
        if (value === row.get(ref)) same++;
        else other++;
      }
      if (ok && same > 0 && other > 0) {
        structure.groupColumn = header;
        structure.refColumn = ref;
        return;
      }
    }
  }
}

/** Rows where the title is blank but other cells are not, after a row that has one. */
function continues(sample: FeedSample, titleHeaders: readonly string[]): boolean {
  const title = titleHeaders.find((h) => sample.rows.some((row) => row.has(h)));
  if (!title) return false;
  let seenTitle = false;
  for (const row of sample.rows) {
    if (row.has(title)) seenTitle = true;
    else if (seenTitle && row.size > 0) return true;
  }
  return false;
}
