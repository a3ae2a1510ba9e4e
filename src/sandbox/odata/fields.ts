// Resolves a property name from a query option to a queryable field, honouring case-insensitive
// schemas (DAM) and the `<field>_<culture>` form of multilingual fields (catalog).

import type { QueryField, QuerySchema } from './types.js';

export type FieldLookup =
  | { found: true; field: QueryField; culture?: string }
  | { found: false; reason: 'unknown' }
  | { found: false; reason: 'language'; field: QueryField; culture: string };

function byName(name: string, schema: QuerySchema): QueryField | undefined {
  return schema.fields.get(schema.caseInsensitive ? name.toLowerCase() : name);
}

/** The tenant's own spelling of a culture, matched exactly first and then ignoring case. */
function findCulture(culture: string, languages: readonly string[]): string | undefined {
  if (languages.includes(culture)) return culture;
  const lower = culture.toLowerCase();
  return languages.find((l) => l.toLowerCase() === lower);
}

/** Plain lookup, no culture suffix (used by $select). */
export function lookupExact(name: string, schema: QuerySchema): QueryField | undefined {
  return byName(name, schema);
}

/**
 * An exact field name wins. Otherwise the longest prefix before an underscore that is a multilingual
 * field is taken, and the rest must be a tenant culture (cultures may contain `_` or `-`).
 */
export function lookupField(name: string, schema: QuerySchema): FieldLookup {
  const exact = byName(name, schema);
  if (exact) return { found: true, field: exact };
  for (let cut = name.lastIndexOf('_'); cut > 0; cut = name.lastIndexOf('_', cut - 1)) {
    const base = byName(name.slice(0, cut), schema);
    if (!base?.multilingual) continue;
    const suffix = name.slice(cut + 1);
    const culture = findCulture(suffix, schema.languages);
    if (culture) return { found: true, field: base, culture };
    return { found: false, reason: 'language', field: base, culture: suffix };
  }
  return { found: false, reason: 'unknown' };
}
