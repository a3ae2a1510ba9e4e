// Categories an earlier import found by title for a path of a `categoryPath` column (`Clothing`, made
// by hand under `CAT-CLOTHING`), not by the reference derived from the path: derived ref -> the
// category's own ref, per tenant (`.catalog-io/state/<tenant>/category-matches.json`). A later run looks
// those refs up together with the paths' derived refs, in the same request, and takes a match only while
// the category still has the path's title under the path's parent; else it matches by title again. So
// the paths of a batch cost one lookup instead of two. Nothing is taken on trust: it only says where to
// look first.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setBounded } from '../bounded-map.js';
import { replaceFileSync } from '../replace-file.js';
import { tenantStateDir } from './known-state.js';

const VERSION = 1;
/** Matches kept (the oldest go first): hand-made categories that feeds name by path are few. */
const MAX_MATCHES = 10_000;
const FILE = 'category-matches.json';

interface Stored {
  version: number;
  /** Derived ref -> the category's own ref. */
  matches: Record<string, string>;
}

export class CategoryMatches {
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly matches: Map<string, string>,
  ) {}

  /** What earlier runs matched on this tenant; none when the file is missing or unreadable. */
  static open(stateDir: string, tenant: string): CategoryMatches {
    const file = path.join(tenantStateDir(stateDir, tenant), FILE);
    const matches = new Map<string, string>();
    try {
      const stored = JSON.parse(readFileSync(file, 'utf8')) as Stored;
      if (stored.version === VERSION && stored.matches && typeof stored.matches === 'object')
        for (const [ref, own] of Object.entries(stored.matches))
          if (typeof own === 'string' && matches.size < MAX_MATCHES) matches.set(ref, own);
    } catch {
      // None yet, or not ours: matched by title as on a first run.
    }
    return new CategoryMatches(file, matches);
  }

  /** The ref of the category an earlier run found for this derived ref. */
  get(derivedRef: string): string | undefined {
    return this.matches.get(derivedRef);
  }

  set(derivedRef: string, ownRef: string): void {
    if (this.matches.get(derivedRef) === ownRef) return;
    setBounded(this.matches, derivedRef, ownRef, MAX_MATCHES);
    this.changed = true;
  }

  /** The category is gone, renamed or moved: matched by title again. */
  forget(derivedRef: string): void {
    this.changed = this.matches.delete(derivedRef) || this.changed;
  }

  /** Written when it changed (a file of its own, renamed over the last one). */
  save(): void {
    if (!this.changed) return;
    const stored: Stored = { version: VERSION, matches: Object.fromEntries(this.matches) };
    replaceFileSync(this.file, JSON.stringify(stored));
    this.changed = false;
  }
}
