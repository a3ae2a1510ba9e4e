// Bringing a tenant's structure in line with documents (a workbook's sheets, another tenant's):
// attribute sets by name (the default set by `default`), POST when absent, PATCH of the members that
// differ; layouts replaced with PUT only when they differ (the PUT needs an existing layout). Every
// layout is checked against the target's `$metadata` before anything is written: one naming a field
// the target lacks stops it all, with nothing written. A plan reads and compares, and writes nothing.
import type { CatalogClient } from '../../api/catalog.js';
import { isApiError } from '../../api/errors.js';
import { CatalogIoError } from '../../errors.js';
import type { TenantModel } from '../../schema/model.js';
import { documentDiff, layoutFields, sameDocument } from './compare.js';
import { layoutPath, readAttributeSets, readLayout, V2_SETS } from './read.js';
import type { AttributeSetDoc, LayoutDocument, Structure, StructureResult } from './types.js';

export interface ApplyOptions {
  catalog: CatalogClient;
  /** The target tenant's model: which fields its layouts may name. */
  model: TenantModel;
  plan?: boolean;
}

/** Applies the structure in order (attribute sets, then layouts); one result per document. */
export async function applyStructure(
  structure: Structure,
  options: ApplyOptions,
): Promise<StructureResult[]> {
  checkLayoutFields(structure, options.model);
  const results: StructureResult[] = [];
  if (structure.attributeSets.length > 0) {
    const existing = await readAttributeSets(options.catalog);
    for (const doc of structure.attributeSets) results.push(await applySet(doc, existing, options));
  }
  for (const layout of structure.layouts) {
    const entity = options.model.entity(layout.target)!;
    const base = { location: layout.location, entity: 'layouts', ref: layout.target };
    const current = await readLayout(options.catalog, entity);
    if (!current) {
      results.push({
        ...base,
        outcome: 'failed',
        changed: [],
        message: `${layout.target} has no layout in this tenant: a layout can only be replaced, and one must already exist`,
      });
      continue;
    }
    if (sameDocument(current, layout.document)) {
      results.push({ ...base, outcome: 'unchanged', changed: [] });
      continue;
    }
    const changed = differences('layout', current, layout.document, options.plan === true);
    if (options.plan) {
      results.push({ ...base, outcome: 'would-update', changed });
      continue;
    }
    results.push(
      await attempt(base, changed, async () => {
        await options.catalog.put(layoutPath(entity)!, layout.document);
        return { outcome: 'updated', status: 204 };
      }),
    );
  }
  return results;
}

/**
 * Every field each layout names must be a field of the target's entity (`$metadata`): the service
 * would refuse it, and half a structure is worse than none. Throws before anything is written.
 */
export function checkLayoutFields(structure: Structure, model: TenantModel): void {
  const problems = layoutFieldProblems(structure, model);
  if (problems.length > 0) {
    throw new CatalogIoError(
      'LAYOUT_UNKNOWN_FIELD',
      `Nothing written: ${problems.length === 1 ? 'a layout names a field' : `${problems.length} layouts name fields`} the target does not have. ${problems.join('; ')}`,
    );
  }
}

/** The layouts that name a field their entity does not have, one sentence each (validate: per row). */
export function layoutFieldProblems(structure: Structure, model: TenantModel): string[] {
  const problems: string[] = [];
  const check = (where: string, entityName: string, document: LayoutDocument | undefined) => {
    if (!document) return;
    const entity = model.entity(entityName);
    if (!entity) {
      problems.push(`${where}: the target tenant has no ${entityName}`);
      return;
    }
    const unknown = [...new Set(layoutFields(document).filter((f) => !entity.field(f)))];
    if (unknown.length > 0) {
      problems.push(
        `${where} names ${unknown.map((f) => `'${f}'`).join(', ')}, which ${entity.name} of the target tenant does not have (its $metadata)`,
      );
    }
  };
  for (const set of structure.attributeSets) {
    check(`${set.location}: ProductLayout`, 'products', set.productLayout);
    check(`${set.location}: VariantLayout`, 'variants', set.variantLayout);
  }
  for (const layout of structure.layouts)
    check(`${layout.location}: layout of ${layout.target}`, layout.target, layout.document);
  return problems;
}

async function applySet(
  doc: AttributeSetDoc,
  existing: AttributeSetDoc[],
  options: ApplyOptions,
): Promise<StructureResult> {
  const base = {
    location: doc.location,
    entity: 'attribute-sets',
    ref: doc.isDefault ? doc.name || 'default' : doc.name,
  };
  const named = doc.isDefault ? [] : existing.filter((s) => !s.isDefault && s.name === doc.name);
  // The service allows two sets of one name: the row's identifier (an export of this tenant) says which.
  const target = doc.isDefault
    ? existing.find((s) => s.isDefault)
    : named.length > 1
      ? named.find((s) => s.identifier === doc.identifier)
      : named[0];
  if (!target && named.length > 1) {
    const ids = named.map((s) => s.identifier).join(', ');
    const message = `the tenant has ${named.length} attribute sets named '${doc.name}' (ids ${ids}): give the set's id in column "identifier", or rename one of them`;
    return { ...base, outcome: 'failed', changed: [], message };
  }
  if (!target) {
    const body = {
      name: doc.name,
      ...(doc.productLayout && { ProductLayout: doc.productLayout }),
      ...(doc.variantLayout && { VariantLayout: doc.variantLayout }),
    };
    if (options.plan) return { ...base, outcome: 'would-create', changed: Object.keys(body) };
    return attempt(base, Object.keys(body), async () => {
      const created = await options.catalog.create(V2_SETS, body);
      const id = typeof created.id === 'number' ? created.id : Number(created.id);
      // Later documents of the same name find it.
      existing.push({ ...doc, identifier: id });
      return { outcome: 'created', status: 201, id };
    });
  }
  const body: Record<string, unknown> = {};
  const changed: string[] = [];
  if (doc.name !== '' && doc.name !== target.name) {
    body.name = doc.name;
    changed.push(
      options.plan ? `name: ${JSON.stringify(target.name)} -> ${JSON.stringify(doc.name)}` : 'name',
    );
  }
  for (const [member, next, old] of [
    ['ProductLayout', doc.productLayout, target.productLayout],
    ['VariantLayout', doc.variantLayout, target.variantLayout],
  ] as const) {
    if (next === undefined || sameDocument(next, old)) continue;
    body[member] = next;
    changed.push(...differences(member, old, next, options.plan === true));
  }
  const id = target.identifier;
  const withId = { ...base, ...(id !== undefined && { id }) };
  if (changed.length === 0) return { ...withId, outcome: 'unchanged', changed };
  if (options.plan) return { ...withId, outcome: 'would-update', changed };
  return attempt(withId, changed, async () => {
    await options.catalog.patch(`${V2_SETS}(${doc.isDefault ? 'default' : id})`, body);
    return { outcome: 'updated', status: 204 };
  });
}

/**
 * What differs, path by path: in a plan with the values (`layout.sections[0].title: "A" -> "B"`), in a
 * write the paths alone, as the import reports the fields it changed.
 */
function differences(where: string, before: unknown, after: unknown, plan: boolean): string[] {
  const lines = documentDiff(where, before, after);
  return plan ? lines : [...new Set(lines.map((line) => line.split(': ')[0]!))];
}

/** A write whose refusal fails this document only, with the service's words. */
async function attempt(
  base: Omit<StructureResult, 'outcome' | 'changed'>,
  changed: string[],
  write: () => Promise<Pick<StructureResult, 'outcome' | 'status' | 'id'>>,
): Promise<StructureResult> {
  try {
    return { ...base, changed, ...(await write()) };
  } catch (err) {
    if (!isApiError(err) || err.status === undefined || err.status >= 500 || err.status === 401) throw err;
    return { ...base, outcome: 'failed', changed: [], status: err.status, message: err.message };
  }
}
