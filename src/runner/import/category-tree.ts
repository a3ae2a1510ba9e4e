// A category may not be moved below itself or one of its descendants (the Catalog API refuses the PATCH
// with a 400). The import and the plan tell it before: for each category whose parent a row changes,
// the new parent's ancestors are followed up to the root, in the tenant as this run leaves it (the moves
// and creations of the rows before; category-moves.ts lays the moves of a wave not written yet over it).
// Parents are read by id, 100 ids per request and one request per level of the tree for all the moves of
// a wave, and remembered for the run (bounded): files that move no existing category ask nothing.
import type { CatalogClient } from '../../api/catalog.js';
import { setBounded } from '../../bounded-map.js';
import type { EntityModel } from '../../schema/model.js';
import type { ExistingRecord } from './diff.js';

/** Category ids whose parent is remembered: past this, the oldest are forgotten (and read again if needed). */
const PARENTS_LIMIT = 100_000;

export const BELOW_ITSELF_BRIEF = 'cannot be moved below itself or one of its descendants';

export type CategoryId = number | string;

/** The categories' parent field (`cat_parent_id`). */
export function categoryParentField(entity: EntityModel): string {
  return entity.fields.find((f) => f.references === 'Categories' && !f.multiple)?.name ?? 'cat_parent_id';
}

/** What is said of a row that moves category `id` below itself or a descendant (`parentRef`, its new parent). */
export function belowItselfMessage(
  parentField: string,
  id: CategoryId,
  parentRef: string | undefined,
): string {
  return `${parentField}: category ${id} ${BELOW_ITSELF_BRIEF}${parentRef === undefined ? '' : ` (its new parent '${parentRef}' is below it)`}`;
}

/** A category the row moves: its id and its new parent's. */
export interface CategoryMove {
  id: CategoryId;
  parent: CategoryId;
}

/** A move's walk up the tree: the ids passed from its new parent up, and whether it came back to the category. */
export interface MoveWalk {
  /** The new parent, its parent, ...; the category itself last when refused. */
  path: CategoryId[];
  refused: boolean;
}

export class CategoryTree {
  /** `String(id)` -> the parent's id (null: a root), as the tenant has it after this run's writes so far. */
  private readonly parents = new Map<string, CategoryId | null>();

  constructor(
    private readonly catalog: CatalogClient,
    private readonly entity: EntityModel,
    private readonly parentField: string,
    /** Ids the tenant cannot know (a plan's records it would create): their parents are only what was told. */
    private readonly unknownToTenant: (id: CategoryId) => boolean = () => false,
  ) {}

  /** This run puts category `id` under `parent` (a create or a move, written or planned). */
  placed(id: CategoryId, parent: CategoryId | null): void {
    setBounded(this.parents, String(id), parent, PARENTS_LIMIT);
  }

  /** The parents of records the lookup read (a plan's own records, whose values it no longer holds, aside). */
  placedAsRead(records: Iterable<ExistingRecord>): void {
    for (const found of records)
      if (found.plannedBy === undefined && this.parentField in found.base)
        this.placed(found.id, (found.base[this.parentField] ?? null) as CategoryId | null);
  }

  /** This run's write of category `id` failed: what the tenant holds for it is read again when needed. */
  forget(id: CategoryId): void {
    this.parents.delete(String(id));
  }

  /**
   * The moves that would put a category below itself or one of its descendants: for each, the chain of
   * ids from the new parent up to the category itself.
   */
  async belowItself(moves: readonly CategoryMove[]): Promise<Map<CategoryMove, CategoryId[]>> {
    const refused = new Map<CategoryMove, CategoryId[]>();
    (await this.walks(moves)).forEach((walk, at) => {
      if (walk.refused) refused.set(moves[at]!, walk.path);
    });
    return refused;
  }

  /**
   * Each move's walk from its new parent up to the root (or back to the category itself), in the tree
   * with `over` laid over it (`String(id)` -> parent: moves judged but not written yet). The parents
   * not known are read together, one request per level for all the walks.
   */
  async walks(moves: readonly CategoryMove[], over?: ReadonlyMap<string, CategoryId>): Promise<MoveWalk[]> {
    // Each move's walk up the tree: where it is now, and the ids passed.
    let walks = moves.map((move, at) => ({
      move,
      at,
      here: move.parent as CategoryId | null,
      path: [move.parent],
    }));
    const done = walks.map((walk): MoveWalk => ({ path: walk.path, refused: false }));
    for (let level = 0; walks.length > 0 && level < 10_000; level++) {
      const next: typeof walks = [];
      const ask = new Set<CategoryId>();
      for (const walk of walks) {
        // Walk up through what is known; stop at a parent that must be read.
        for (;;) {
          if (walk.here === null) break;
          if (String(walk.here) === String(walk.move.id)) {
            done[walk.at]!.refused = true;
            break;
          }
          const key = String(walk.here);
          const laid = over?.get(key);
          if (laid === undefined && !this.parents.has(key)) {
            if (this.unknownToTenant(walk.here)) break;
            ask.add(walk.here);
            next.push(walk);
            break;
          }
          walk.here = laid ?? this.parents.get(key)!;
          if (walk.here !== null) {
            // A loop in what is known (cannot be in the tenant): stop there.
            if (
              walk.path.some((p) => String(p) === String(walk.here)) &&
              String(walk.here) !== String(walk.move.id)
            )
              break;
            walk.path.push(walk.here);
          }
        }
      }
      if (ask.size > 0) await this.read([...ask]);
      // An id the tenant does not have is a root here (the write fails for it otherwise).
      for (const id of ask) if (!this.parents.has(String(id))) this.placed(id, null);
      walks = next;
    }
    return done;
  }

  private async read(ids: CategoryId[]): Promise<void> {
    const { idField } = this.entity;
    for await (const record of this.catalog.listIn<Record<string, unknown>>(this.entity.path, idField, ids, {
      query: { $select: `${idField},${this.parentField}` },
      maxValues: 100,
    })) {
      const parent = record[this.parentField];
      this.placed(
        record[idField] as CategoryId,
        parent === undefined || parent === null ? null : (parent as CategoryId),
      );
    }
  }
}
