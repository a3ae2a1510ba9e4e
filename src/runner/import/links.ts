// Links by ref -> the id fields a write carries (`prod_id`, `cat_parent_id`, `cat_ids`, ...): ids come
// from this run's writes, else from one lookup for all that are missing.

import { pathText } from '../../mappers/category-path.js';
import type { Draft } from '../../mappers/types.js';
import { type EntityModel, referencedEntity, type TenantModel } from '../../schema/model.js';
import type { RecordLookup } from './lookup.js';
import { type FailurePlace, placeOf } from './outcome.js';
import { linkSpelling, writtenLinkRef } from './ref-spelling.js';

export type ResolvedLinks = { ids: Record<string, unknown> } | { error: string; problem: FailurePlace };

interface LinkPlanItem {
  field: string;
  target: EntityModel;
  refs: string[];
  many: boolean;
  /** The draft's link it comes from (`categoryRefs`): the column that gave it is `link:<kind>`. */
  kind: string;
}

/** An attribute set named by its name (`typ_name`): resolved to its id in this tenant; empty: the default set. */
interface SetNameItem {
  field: string;
  name: string;
}

/** Each draft's link ids, or the reason one is missing. */
export async function resolveLinks(
  lookup: RecordLookup,
  model: TenantModel,
  entity: EntityModel,
  drafts: readonly Draft[],
): Promise<Map<Draft, ResolvedLinks>> {
  const wanted = new Map<EntityModel, Set<string>>();
  const plans = new Map<Draft, LinkPlanItem[]>();
  const setNames = new Map<Draft, SetNameItem[]>();
  for (const draft of drafts) {
    const plan = linkPlan(entity, draft, model);
    plans.set(draft, plan);
    const named = setNamePlan(entity, draft);
    if (named.length > 0) setNames.set(draft, named);
    for (const p of plan) {
      const set = wanted.get(p.target) ?? new Set();
      for (const r of p.refs) {
        set.add(r);
        // A ref the trim changed: asked as the cell wrote it too, in the same lookup (ref-spelling.ts).
        const written = writtenLinkRef(draft, r);
        if (written !== undefined) set.add(written);
      }
      wanted.set(p.target, set);
    }
  }
  for (const [target, refs] of wanted) await lookup.lookupIds(target, refs);
  for (const draft of drafts) settleLinks(lookup, draft, plans.get(draft)!);
  const sets = setNames.size > 0 ? await lookup.setIdsByName() : undefined;

  const resolved = new Map<Draft, ResolvedLinks>();
  for (const draft of drafts) {
    const ids: Record<string, unknown> = {};
    let missing: { error: string; problem: FailurePlace } | undefined;
    for (const p of plans.get(draft) ?? []) {
      const values: Array<number | string> = [];
      for (const [i, ref] of p.refs.entries()) {
        const id = lookup.knownId(p.target.name, ref);
        if (id === undefined) {
          // Named as the row gave it: a category path as written, else the ref.
          const path = p.kind === 'categoryRefs' ? draft.links.categoryPaths?.[i] : undefined;
          const value = path ? pathText(path) : ref;
          const brief = `${singular(p.target)} is neither in the file nor in the tenant`;
          const problem = placeOf(draft, `link:${p.kind}`, value, brief, p.field);
          const where = problem.column === undefined ? '' : `column "${problem.column}": `;
          missing = {
            error: `${where}${singular(p.target)} '${value}' is neither in the file nor in the tenant`,
            problem,
          };
          break;
        }
        values.push(id);
      }
      if (missing) break;
      ids[p.field] = p.many ? values : (values[0] ?? null);
    }
    for (const item of setNames.get(draft) ?? []) {
      if (missing) break;
      const candidates = item.name === '' ? [null] : sets?.get(item.name);
      const nameField = item.field.replace(/_id$/, '_name');
      if (candidates === undefined) {
        missing = {
          error: `attribute set '${item.name}' is not in the tenant (${nameField})`,
          problem: placeOf(draft, nameField, item.name, 'attribute set is not in the tenant', item.field),
        };
        continue;
      }
      // Two sets of one name: the row's own id column (an export of this tenant) says which.
      const given = Number(draft.fields[item.field]);
      const id = candidates.length === 1 ? candidates[0] : candidates.find((c) => c === given);
      if (id === undefined) {
        const brief = `the attribute set's name is shared by ${candidates.length} sets of the tenant (ids ${candidates.join(', ')}): give its id in ${item.field}, or rename one of them`;
        missing = {
          error: `attribute set '${item.name}': ${brief} (${nameField})`,
          problem: placeOf(draft, nameField, item.name, brief, item.field),
        };
      } else ids[item.field] = id;
    }
    resolved.set(draft, missing ?? { ids });
  }
  return resolved;
}

/**
 * The link refs the trim changed, each linked as the cell wrote it when that record is known (the
 * tenant's, or one this run found so), else trimmed with a warning; the draft's links and the plan then
 * name the spelling chosen (the report, a plan's records and the import state see it).
 */
function settleLinks(lookup: RecordLookup, draft: Draft, plan: LinkPlanItem[]): void {
  if (draft.asWritten?.links === undefined) return;
  for (const p of plan) {
    const has = (ref: string) => lookup.knownId(p.target.name, ref) !== undefined;
    p.refs = p.refs.map((ref) => linkSpelling(draft, ref, `link:${p.kind}`, p.target.name, has));
    const { links } = draft;
    if (p.kind === 'productRef') links.productRef = p.refs[0]!;
    else if (p.kind === 'parentRef') links.parentRef = p.refs[0]!;
    else if (p.kind === 'categoryRefs') links.categoryRefs = p.refs;
    else links.byField = { ...links.byField, [p.field]: p.many ? p.refs : p.refs[0]! };
  }
  delete draft.asWritten.links;
}

function singular(entity: EntityModel): string {
  if (entity.kind === 'products') return 'product';
  if (entity.kind === 'variants') return 'variant';
  if (entity.kind === 'categories') return 'category';
  return `${entity.denominator ?? entity.name} item`;
}

/** Which id fields a draft's link refs resolve to, and in which entity they are looked up. */
function linkPlan(entity: EntityModel, draft: Draft, model: TenantModel): LinkPlanItem[] {
  const plan: LinkPlanItem[] = [];
  const byKind = (kind: string) => model.entities.find((e) => e.kind === kind);
  const { productRef, parentRef, categoryRefs, byField } = draft.links;
  if (productRef !== undefined) {
    const products = byKind('products');
    if (products)
      plan.push({
        field: products.idField,
        target: products,
        refs: [productRef],
        many: false,
        kind: 'productRef',
      });
  }
  if (parentRef !== undefined) {
    const field =
      entity.fields.find((f) => f.references === 'Categories' && !f.multiple)?.name ?? 'cat_parent_id';
    plan.push({ field, target: entity, refs: [parentRef], many: false, kind: 'parentRef' });
  }
  if (categoryRefs !== undefined) {
    const categories = byKind('categories');
    const field = entity.fields.find((f) => f.references === 'Categories')?.name;
    if (categories && field)
      plan.push({ field, target: categories, refs: categoryRefs, many: true, kind: 'categoryRefs' });
  }
  for (const [field, refs] of Object.entries(byField ?? {})) {
    if (entity.field(field)?.references === 'AttributeSets') continue; // by name: setNamePlan
    const target = referencedEntity(model, entity.field(field)?.references);
    if (target) plan.push({ field, target, refs: [refs].flat(), many: Array.isArray(refs), kind: 'byField' });
  }
  return plan;
}

function setNamePlan(entity: EntityModel, draft: Draft): SetNameItem[] {
  const out: SetNameItem[] = [];
  for (const [field, name] of Object.entries(draft.links.byField ?? {})) {
    if (entity.field(field)?.references === 'AttributeSets' && typeof name === 'string')
      out.push({ field, name: name.trim() });
  }
  return out;
}
