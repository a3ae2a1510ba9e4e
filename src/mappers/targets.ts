// Naming rules that place a column: a field name, `<field>_<culture>` (or `<field>.<culture>`) for a multilingual field, a reference
// column (`X_refs` for an `X_ids` field with `x-references`, `X_ref` for `X_id`), or the command column.
import type { EntityModel, FieldModel, TenantModel } from '../schema/model.js';
import type { DraftLinks } from './types.js';

export type LinkKind = Exclude<keyof DraftLinks, 'byField' | 'categoryPaths'> | 'byField';

export type Target =
  | { kind: 'field'; entity: EntityModel; field: FieldModel; culture?: string }
  | { kind: 'link'; entity: EntityModel; idField: FieldModel; link: LinkKind; multiple: boolean };

/** Resolves a field-style name against the entities of a row (main entity first, then variants). */
export function resolveName(name: string, entities: EntityModel[], model: TenantModel): Target | undefined {
  for (const entity of entities) {
    const link = resolveLink(name, entity);
    const field = entity.field(name);
    // `prod_ref` on variants is a read-only copy: as a column it is the link to the product.
    if (field && !(field.readOnly && link)) return { kind: 'field', entity, field };
    if (link) return link;
    const localized = resolveCulture(name, entity, model);
    if (localized) return localized;
  }
  return undefined;
}

function resolveLink(name: string, entity: EntityModel): Target | undefined {
  // `typ_name`: the attribute set by its name (ids differ between tenants), resolved per tenant.
  const named = /^(.+)_name$/.exec(name);
  const setField = named ? entity.field(`${named[1]}_id`) : undefined;
  if (setField && setField.references === 'AttributeSets' && !setField.multiple) {
    return { kind: 'link', entity, idField: setField, link: 'byField', multiple: false };
  }
  const m = /^(.+)_(refs|ref)$/.exec(name);
  if (!m) return undefined;
  const idField = entity.field(`${m[1]}_${m[2] === 'refs' ? 'ids' : 'id'}`);
  if (!idField || idField.name === entity.idField) return undefined;
  const references = idField.references ?? implicitReference(entity, idField.name);
  if (!references) return undefined;
  return {
    kind: 'link',
    entity,
    idField,
    link: linkKind(entity, idField, references),
    multiple: idField.multiple || m[2] === 'refs',
  };
}

/** The spec's own links, for tenants whose `$metadata` does not mark them with `x-references`. */
function implicitReference(entity: EntityModel, idField: string): string | undefined {
  if (entity.kind === 'variants' && idField === 'prod_id') return 'Products';
  if (entity.kind === 'categories' && idField === 'cat_parent_id') return 'Categories';
  return undefined;
}

function linkKind(entity: EntityModel, idField: FieldModel, references: string): LinkKind {
  if (references === 'Products' && entity.kind === 'variants') return 'productRef';
  if (references === 'Categories' && entity.kind === 'categories' && !idField.multiple) return 'parentRef';
  if (references === 'Categories' && idField.multiple) return 'categoryRefs';
  return 'byField';
}

/**
 * `prod_title_fr`, or `prod_title.fr`: a JSON feed's `{"prod_title": {"en": …, "fr": …}}`, which the
 * JSON reader flattens to one key per culture.
 */
function resolveCulture(name: string, entity: EntityModel, model: TenantModel): Target | undefined {
  for (const culture of model.languages) {
    for (const suffix of [`_${culture}`, `.${culture}`]) {
      if (name.length > suffix.length && name.toLowerCase().endsWith(suffix.toLowerCase())) {
        const field = entity.field(name.slice(0, -suffix.length));
        if (field?.multilingual) return { kind: 'field', entity, field, culture };
      }
    }
  }
  return undefined;
}

/** A tenant language spelled in any case (`FR`, `fr`), or undefined. */
export function tenantCulture(culture: string, model: TenantModel): string | undefined {
  return model.languages.find((l) => l.toLowerCase() === culture.toLowerCase().replace('_', '-'));
}
