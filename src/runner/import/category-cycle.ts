// A cycle of parents among the categories of a file (A's parent B, B's parent A): none of them ever
// gets a parent id, so the import fails them all at the end of the file. Shared by the import (the
// categories still waiting at the end, executor.ts) and validate (the rows it holds, references.ts), so
// both find the same cycles and say them in the same words.

/** The chain of parents from `start`, through the categories that wait for a parent, and whether it loops. */
export interface ParentChain {
  /** `start`, its parent, the parent's parent, ... while they wait; the ref it loops back to last. */
  path: string[];
  /** The chain comes back to a ref already in it: a cycle (not necessarily through `start`). */
  cycle: boolean;
}

/**
 * Follows the parents from `start` (a waiting category). `parentOf(ref)` gives the parent of a category
 * that waits for it, and undefined for any other ref (not in the file, or its parent already known).
 */
export function parentChain(start: string, parentOf: (ref: string) => string | undefined): ParentChain {
  const path = [start];
  const seen = new Set(path);
  let next = parentOf(start);
  while (next !== undefined && parentOf(next) !== undefined && !seen.has(next)) {
    path.push(next);
    seen.add(next);
    next = parentOf(next);
  }
  if (next === undefined || parentOf(next) === undefined) return { path, cycle: false };
  path.push(next);
  return { path, cycle: true };
}

/** What is said of a category whose parent is part of a cycle of parents in the file (the summary's kind). */
export const CYCLE_BRIEF = 'the parent category is part of a cycle of parents in the file';

/** The row's message: the parent, and the chain that loops. */
export function cycleMessage(parent: string, path: readonly string[]): string {
  return `the parent category '${parent}' is part of a cycle of parents in the file: ${path.join(' -> ')}`;
}
