// Lists and paths inside one cell: image URLs joined by `,` `|` `;` or spaces, tags, several category paths
// (`Default Category/Men/Tops,Default Category/Collections`, `Men>Shoes;Men`), read off sample values.
import { columnShape, type ValueShape } from './values.js';

/** A cell that lists URLs or image files: its separator and the shape of its items. */
export interface UrlList {
  separator: string;
  shape: ValueShape;
  /** The most items one sampled cell held. */
  most: number;
}

const URL_SEPARATORS = [',', '|', ';', ' '];

/** The values read as lists of URLs or image files, when every piece of every value is one. */
export function urlList(values: readonly string[]): UrlList | undefined {
  if (values.length === 0) return undefined;
  for (const separator of URL_SEPARATORS) {
    if (!values.some((v) => v.includes(separator))) continue;
    const pieces = values.flatMap((v) =>
      v
        .split(separator)
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    );
    const shape = columnShape(pieces);
    if (shape !== 'url' && shape !== 'image') continue;
    const most = Math.max(...values.map((v) => v.split(separator).filter((p) => p.trim() !== '').length));
    return { separator, shape, most };
  }
  return undefined;
}

/** The separator of a list of words (`apple, ipod, nano`, `a|b`): the one most values use. */
export function wordSeparator(values: readonly string[], hint: string | undefined): string | undefined {
  let best: string | undefined;
  let count = 0;
  for (const separator of ['|', ';', ',']) {
    const n = values.filter((v) => v.includes(separator)).length;
    if (n > count) {
      best = separator;
      count = n;
    }
  }
  return best ?? hint;
}

export interface CategoryCells {
  /** Between the levels of one path: ` > `, `>`, `/`; undefined for flat names. */
  path?: string;
  /** Between several paths (or names) in one cell. */
  split?: string;
  /** The values are the source system's ids (numbers, UUIDs): no tenant can resolve them. */
  ids: boolean;
}

const ID = /^(?:\d+|[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** How category cells are written: path separator, list separator, or ids. */
export function categoryCells(values: readonly string[], hint: string | undefined): CategoryCells {
  const has = (mark: string) => values.some((v) => v.includes(mark));
  let path: string | undefined;
  if (has('>')) path = values.every((v) => !/[^ ]>|>[^ ]/.test(v)) ? ' > ' : '>';
  else if (values.some((v) => /[^/\s]\/[^/\s]/.test(v)) && !values.some((v) => /^https?:/i.test(v)))
    path = '/';
  let split: string | undefined;
  for (const mark of [';', ',', '|']) {
    if (mark !== path && has(mark)) {
      split = mark;
      break;
    }
  }
  split ??= hint;
  const items = values.flatMap((v) => (split ? v.split(split) : [v]).map((p) => p.trim()));
  const ids = items.length > 0 && items.every((item) => item === '' || ID.test(item));
  return { ...(path && { path }), ...(split && { split }), ids };
}
