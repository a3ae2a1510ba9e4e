// Where the tenant's image library stood when the asset cache was last saved, so a later run can tell
// in one request whether any image the cache names was deleted or replaced since. The DAM has no
// changelog, but its list filters on `modifiedOn` and always says `@count`: the mark is the newest
// `modifiedOn` then and how many live images there were (none newer). Later, the live images with
// `modifiedOn` at or before the mark are those same images, unless one was deleted, voided (`Dv`) or
// replaced (a PATCH of its source moves its `modifiedOn` past the mark): the count then falls short.
// Images added since are newer than the mark and do not count. When the count falls short, a second
// count by `createdOn` tells a deletion (a name the cache holds may be gone) from a modification (an
// image replaced, or still processing when the mark was taken: the names still stand). Files are not marked: the DAM does not
// say which fields of GET /files it filters on.
import type { DamClient } from '../../api/dam.js';
import { and, le, ne } from '../../api/filter.js';

export interface DamMark {
  /** Newest `modifiedOn` of a live image then (UTC, as the DAM wrote it). */
  at: string;
  /** Live images then. */
  count: number;
}

const LIVE = ne('status', 'Dv');

/** Where the image library stands now (one request); undefined when the DAM does not say. */
export async function takeMark(dam: DamClient): Promise<DamMark | undefined> {
  const { count, first } = await dam.peek<{ modifiedOn?: unknown }>('image', {
    filter: LIVE,
    orderby: 'modifiedOn desc',
  });
  const at = first?.modifiedOn;
  if (count === undefined || typeof at !== 'string' || Number.isNaN(Date.parse(at))) return undefined;
  return { at, count };
}

/**
 * What became of the mark's images: all as they were (`holds`, one request); some modified but none
 * gone (`modified`: replaced, or processed after the mark; the names still stand); some deleted or
 * voided (`deleted`). Images created since have both dates past the mark and count in neither.
 */
export async function markState(dam: DamClient, mark: DamMark): Promise<'holds' | 'modified' | 'deleted'> {
  const at = new Date(mark.at);
  const unmodified = await dam.peek('image', { filter: and(LIVE, le('modifiedOn', at)) });
  if (unmodified.count === mark.count) return 'holds';
  const existing = await dam.peek('image', { filter: and(LIVE, le('createdOn', at)) });
  return existing.count === mark.count ? 'modified' : 'deleted';
}

export function isMark(value: unknown): value is DamMark {
  const m = value as DamMark | undefined;
  return typeof m?.at === 'string' && typeof m.count === 'number';
}
