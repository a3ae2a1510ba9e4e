// The category moves of a group of rows (one wave of a batch), judged in row order as validate judges
// them: each against the tree with the earlier rows' moves laid over. The import sends a wave's writes
// concurrently, so a verdict that assumed an earlier move of the wave is given again once that move is
// written (or has failed): the move is sent after it, never alongside it. A verdict that would assume a
// row not in the wave yet (a move below a parent the batch has still to create) waits for that row's
// wave. And a move that would change the walk of an earlier verdict still to be given waits with it.
import type { Draft } from '../../mappers/types.js';
import type { CategoryId, CategoryMove, CategoryTree } from './category-tree.js';
import type { ExistingRecord } from './diff.js';

/**
 * A row outside the group, at its place among the moves: it moves category `id` below a parent the
 * batch has not written yet. `from`: the first of its new ancestors the tree knows, where its walk will
 * go on (null: none, its new parents go up to the root).
 */
export interface WaitingMove {
  id: CategoryId;
  from: CategoryId | null;
  waits: true;
}

export interface MoveVerdict {
  /** Below itself or one of its descendants (the API would refuse the PATCH). */
  refused: boolean;
  /**
   * What the verdict took for written besides the tree: nothing; earlier moves of the group (its walk
   * went through a category one of them moves, or it moves a category on the walk of a verdict given
   * later); or a row outside the group (the same, for a row that waits).
   */
  assumes: 'nothing' | 'group' | 'outside';
}

/**
 * The moves in row order, each judged against the tree with the group's earlier allowed moves laid
 * over. A move that assumes a row outside the group is not judged here, nor laid over.
 */
export async function judgeInOrder(
  tree: CategoryTree,
  rows: ReadonlyArray<CategoryMove | WaitingMove>,
): Promise<MoveVerdict[]> {
  const asMove = (row: CategoryMove | WaitingMove): CategoryMove | undefined =>
    !('waits' in row) ? row : row.from === null ? undefined : { id: row.id, parent: row.from };
  // The ancestors, read together (one request per level of the tree) as the tree stands: the walks
  // below find them read (a move allowed only by an earlier one may read a little more).
  await tree.walks(rows.map(asMove).filter((m) => m !== undefined));
  // The group's allowed moves so far: laid over the tree for the rows after.
  const over = new Map<string, CategoryId>();
  // Categories the verdicts still to be given walk through: moving one first would change them.
  const pinned = { group: new Set<string>(), outside: new Set<string>() };
  // Categories moved by rows outside the group, or by moves that wait for them.
  const waiting = new Set<string>();
  const verdicts: MoveVerdict[] = [];
  for (const row of rows) {
    const self = String(row.id);
    const move = asMove(row);
    const walk = move ? (await tree.walks([move], over))[0] : undefined;
    const passed = walk?.path.map(String) ?? [];
    const through = passed.findIndex((id) => waiting.has(id));
    if ('waits' in row || through >= 0 || pinned.outside.has(self)) {
      // (Its walk past the waiting category is not the one it will take.)
      for (const id of through >= 0 ? passed.slice(0, through + 1) : passed) pinned.outside.add(id);
      waiting.add(self);
      verdicts.push({ refused: false, assumes: 'outside' });
      continue;
    }
    const refused = walk!.refused;
    const group = pinned.group.has(self) || over.has(self) || passed.some((id) => over.has(id));
    if (group) for (const id of passed) pinned.group.add(id);
    verdicts.push({ refused, assumes: group ? 'group' : 'nothing' });
    if (!refused) over.set(self, move!.parent);
  }
  return verdicts;
}

/**
 * The drafts of a wave that wait for a later one: their move meets the walk of an earlier row that
 * moves a category below a parent the batch has not written yet (`waiting`, in row order, holds both).
 * Walks only when such a row comes before a move (what it reads, the waves' own checks mostly read
 * after it).
 */
export async function heldBack(
  tree: CategoryTree,
  parentField: string,
  waiting: readonly Draft[],
  ready: ReadonlySet<Draft>,
  existing: ReadonlyMap<string, ExistingRecord>,
  parentId: (draft: Draft) => CategoryId | undefined,
): Promise<Set<Draft>> {
  const held = new Set<Draft>();
  const byRef = new Map(waiting.map((d) => [d.ref, d]));
  // The wave's moves and the rows that wait, in row order (all the moves: an earlier one may lead a
  // later one's walk to a category that waits).
  const drafts: Array<Draft | undefined> = [];
  const rows: Array<CategoryMove | WaitingMove> = [];
  for (const draft of waiting) {
    const found = existing.get(draft.ref);
    if (!found || found.plannedBy !== undefined || !draft.links.parentRef) continue;
    if (!ready.has(draft)) {
      const from = knownAncestor(draft, byRef, parentId);
      // (A row whose new parents reach past this batch is not written in it.)
      if (from === undefined) continue;
      drafts.push(undefined);
      rows.push({ id: found.id, from, waits: true });
      continue;
    }
    const parent = parentId(draft);
    if (parent === undefined || String(parent) === String(found.base[parentField])) continue;
    drafts.push(draft);
    rows.push({ id: found.id, parent });
  }
  const first = rows.findIndex((r) => 'waits' in r);
  if (first < 0 || !rows.slice(first).some((r) => !('waits' in r))) return held;
  const verdicts = await judgeInOrder(tree, rows);
  verdicts.forEach((v, at) => {
    const draft = drafts[at];
    if (draft && v.assumes === 'outside') held.add(draft);
  });
  return held;
}

/**
 * The first of a waiting draft's new ancestors that has an id: up through the batch's categories that
 * wait too. Null: they go up to the root; undefined: past this batch (or in a cycle).
 */
function knownAncestor(
  draft: Draft,
  byRef: ReadonlyMap<string, Draft>,
  parentId: (draft: Draft) => CategoryId | undefined,
): CategoryId | null | undefined {
  let at: Draft | undefined = draft;
  for (let n = 0; at && n <= byRef.size; n++) {
    if (!at.links.parentRef) return null;
    const id = parentId(at);
    if (id !== undefined) return id;
    at = byRef.get(at.links.parentRef);
  }
  return undefined;
}
