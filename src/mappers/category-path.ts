// Category paths (`Clothing > Hoodies`, `Men/Winter Wear`): a cell split into paths and each path into
// the titles of its categories, root first, and the stable reference a path's category is given when
// the import creates it (docs/profiles.md, "Categories from paths").
import { createHash } from 'node:crypto';

/** Separators tried, in this order, when the profile says `categoryPath: true`. */
export const PATH_SEPARATORS = [' > ', '/', '|'] as const;

/** The longest reference derived from a path (the Catalog's `cat_ref` holds 64 characters). */
export const DERIVED_REF_MAX = 64;

/**
 * The stable reference of a path's category: each title lower-cased, accents taken off, every run of
 * characters other than letters and digits made one `-`, the titles joined with `/`
 * (`Men > Winter Wear` -> `men/winter-wear`). A reference past 64 characters keeps its first 55 and
 * ends in `~` and 8 hex digits of the SHA-256 of the titles, so two long paths never share one.
 */
export function categoryRefOf(titles: readonly string[], max = DERIVED_REF_MAX): string {
  const ref = titles.map(slug).join('/');
  if (ref.length <= max) return ref;
  const hash = createHash('sha256').update(titles.join('\u001f')).digest('hex').slice(0, 8);
  return `${ref.slice(0, max - 9)}~${hash}`;
}

function slug(title: string): string {
  const text = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return text === '' ? '-' : text;
}

/** How the paths of one column are read: its separator, fixed by the profile or found in the file. */
export class PathReader {
  private found: string | undefined;

  constructor(
    /** The profile's separator; undefined: the first of PATH_SEPARATORS a cell of the file holds. */
    private readonly separator: string | undefined,
    /** Several paths per cell, separated by this (the rule's `split`). */
    private readonly listSeparator: string | undefined,
  ) {}

  /** The paths of one cell, each as its titles (root first); blank titles are left out. */
  paths(text: string): string[][] {
    const pieces = this.listSeparator === undefined ? [text] : text.split(this.listSeparator);
    const out: string[][] = [];
    for (const piece of pieces) {
      if (piece.trim() === '') continue;
      const separator = this.separatorFor(piece);
      const titles = (separator === undefined ? [piece] : piece.split(separator))
        .map((t) => t.trim())
        .filter((t) => t !== '');
      if (titles.length > 0) out.push(titles);
    }
    return out;
  }

  /** The file's separator is the first one a cell holds; a path before it is one title. */
  private separatorFor(piece: string): string | undefined {
    if (this.separator !== undefined) return this.separator;
    if (this.found === undefined) this.found = PATH_SEPARATORS.find((s) => piece.includes(s));
    return this.found;
  }
}

/** A path as people write it, for messages and the plan: `Men > Winter Wear`. */
export function pathText(titles: readonly string[]): string {
  return titles.join(' > ');
}
