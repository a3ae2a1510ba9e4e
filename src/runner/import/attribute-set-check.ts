// An attribute set id (`typ_id`) the tenant does not have: the Catalog API refuses the write. The plan,
// the import (before it sends the write) and validate (checked against the tenant) tell it alike, from
// the tenant's attribute sets: one list request, the sets are few.
import type { EntityModel } from '../../schema/model.js';
import type { AttributeSetDoc } from '../structure/types.js';

/** The fields of `entity` that hold an attribute set's id. */
export function attributeSetFields(entity: EntityModel): string[] {
  return entity.fields
    .filter((f) => f.references === 'AttributeSets' && !f.multiple && !f.readOnly)
    .map((f) => f.name);
}

/** The problem without the id (the summary's kind). */
export const UNKNOWN_SET_BRIEF = 'there is no AttributeSets record with this id';

/** What is said of the id: the API's words. */
export function unknownSetMessage(id: unknown): string {
  return `there is no AttributeSets record with id ${String(id)}`;
}

/** The ids of the tenant's attribute sets (as readAttributeSets gives them): the ids a write may give. */
export function setIdsOf(sets: readonly AttributeSetDoc[]): Set<number> {
  const ids = new Set<number>();
  for (const set of sets) if (set.identifier !== undefined) ids.add(set.identifier);
  return ids;
}

/** Whether the tenant's set ids hold this value (a number, or its text). */
export function hasSetId(ids: ReadonlySet<number>, value: unknown): boolean {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : Number.NaN;
  return Number.isFinite(n) && ids.has(n);
}
