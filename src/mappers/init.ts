// `profile init`: a first profile drafted from a file's headers by matching them to the tenant's fields —
// exact name, then case/space/punctuation-insensitive name, name without its prefix (`prod_title` ~
// `Title`), or the field's description; a culture suffix (`name:fr`, `Name (FR)`, `name_fr`) picks a language.
import type { EntityModel, FieldModel, TenantModel } from '../schema/model.js';
import type { ColumnRule, Profile } from './profile-types.js';
import { resolveName, tenantCulture } from './targets.js';

export interface DraftedProfile {
  profile: Profile;
  /** Headers that matched no field (they are written as `null`: ignored until someone maps them). */
  unplaced: string[];
}

export function draftProfile(
  headers: readonly string[],
  model: TenantModel,
  entityName: string,
  withVariants = false,
): DraftedProfile {
  const main = model.entity(entityName);
  const entities = [main, withVariants ? model.entity('variants') : undefined].filter(
    (e): e is EntityModel => e !== undefined,
  );
  const columns: Record<string, string | ColumnRule | null> = {};
  const unplaced: string[] = [];
  const taken = new Set<string>();
  for (const header of headers) {
    const match = matchHeader(header, entities, model, taken);
    if (match) {
      taken.add(`${match.field}\u0000${match.culture ?? ''}`);
      columns[header] = match.culture ? { field: match.field, culture: match.culture } : match.field;
    } else {
      columns[header] = null;
      unplaced.push(header);
    }
  }
  const profile: Profile = { entity: entityName, ...(withVariants && { variants: true }), columns };
  return { profile, unplaced };
}

interface Match {
  field: string;
  culture?: string;
}

function matchHeader(
  header: string,
  entities: EntityModel[],
  model: TenantModel,
  taken: Set<string>,
): Match | undefined {
  const exact = resolveName(header, entities, model);
  if (exact?.kind === 'field' && exact.field.readOnly) return undefined;
  if (exact) {
    const field = exact.kind === 'field' ? exact.field.name : header;
    return exact.kind === 'field' && exact.culture ? { field, culture: exact.culture } : { field: header };
  }
  const { base, culture } = splitCulture(header, model);
  const key = normalise(base);
  if (!key) return undefined;
  for (const entity of entities) {
    for (const field of entity.fields) {
      if (field.readOnly) continue;
      if (culture && !field.multilingual) continue;
      if (!names(field).includes(key)) continue;
      const c = field.multilingual ? (culture ?? undefined) : undefined;
      if (taken.has(`${field.name}\u0000${c ?? ''}`)) continue;
      return c ? { field: field.name, culture: c } : { field: field.name };
    }
  }
  return undefined;
}

/** `Name (FR)`, `name:fr`, `name_fr`, `name-fr`, `Name [fr]` -> base and a tenant language. */
function splitCulture(header: string, model: TenantModel): { base: string; culture?: string } {
  const m = /^(.*?)\s*(?:\(([^()]+)\)|\[([^[\]]+)\]|[:_\-.]\s*([A-Za-z]{2}(?:[-_][A-Za-z]{2,4})?))\s*$/.exec(
    header,
  );
  if (m) {
    const culture = tenantCulture((m[2] ?? m[3] ?? m[4] ?? '').trim(), model);
    if (culture && m[1]) return { base: m[1], culture };
  }
  return { base: header };
}

/** Common header words for a field's unprefixed name (`Name` for `prod_title`, `SKU` for a ref). */
const SYNONYMS: Record<string, string[]> = {
  title: ['name', 'productname', 'label'],
  ref: ['sku', 'reference', 'code', 'handle'],
  price: ['regularprice', 'unitprice'],
  stock: ['qty', 'quantity', 'stockonhand', 'inventory'],
  ean: ['barcode', 'gtin', 'ean13'],
  images: ['image', 'imageurls', 'pictures', 'photos'],
  color: ['colour'],
  brand: ['brands', 'manufacturer', 'vendor'],
};

/** The names a header may use for a field: `prod_title`, `title`, its synonyms, and its description. */
function names(field: FieldModel): string[] {
  const bare = normalise(field.name.replace(/^[a-z]+_/, ''));
  const out = [normalise(field.name), bare, ...(SYNONYMS[bare] ?? [])];
  if (field.description) out.push(normalise(field.description));
  return out;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}
