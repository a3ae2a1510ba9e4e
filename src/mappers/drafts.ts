// Values -> drafts: one draft per entity of the row (the profile's, and its variant), filled by the
// placements of the row's cells.
import type { Cell, SourceRow } from '../readers/types.js';
import type { EntityModel } from '../schema/model.js';
import { categoryRefOf, type PathReader } from './category-path.js';
import type { Placement } from './layout.js';
import type { Command, Draft, RowIssue, Value } from './types.js';
import { toAssets, toValues, untrimmedRefs } from './values.js';

/** A draft under construction for one entity of the row. */
export interface Part {
  entity: EntityModel;
  draft: Draft;
  /** Some column gave this part a value. */
  touched: boolean;
}

export function emptyDraft(
  entity: EntityModel,
  command: Command,
  row: SourceRow,
  columns: Record<string, string>,
): Draft {
  return {
    entity: entity.name,
    ref: '',
    command,
    fields: {},
    cultures: {},
    assets: [],
    links: {},
    source: { location: row.location, row, columns },
  };
}

export function refOf(part: Part): string {
  const value = part.draft.fields[part.entity.refField];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** Converts one cell for its target and stores it in the right part of the row. */
export function assign(
  parts: Part[],
  place: Placement,
  cell: Cell,
  column: string,
  issues: RowIssue[],
): void {
  const part = parts[place.part]!;
  if (place.paths) {
    assignPaths(part, place, place.paths, cell);
    return;
  }
  const values = toValues(cell, place, column, issues);
  if (values === undefined) return;
  part.touched = true;
  const { draft } = part;
  // A field rule that took one of several columns names that one (other rows share the layout's record).
  if (column !== place.column) {
    const own = Object.create(draft.source.columns) as Record<string, string>;
    own[place.columnKey] = column;
    if (place.fieldName !== undefined) own[place.fieldName] = column;
    draft.source.columns = own;
  }
  const { target } = place;
  if (target.kind === 'link') {
    const refs: string[] = [];
    if (!Array.isArray(values)) {
      if (values !== null) refs.push(String(values));
    } else {
      // A link list names each record once: `CAT-TOPS|CAT-TOPS` would be written as [2, 2].
      for (const value of values)
        if (value !== null && !refs.includes(String(value))) refs.push(String(value));
    }
    const untrimmed = untrimmedRefs(cell, place);
    if (untrimmed) for (const ref of refs) noteLinkRef(draft, ref, untrimmed.get(ref));
    if (target.link === 'categoryRefs') draft.links.categoryRefs = refs;
    else if (target.link === 'byField') {
      draft.links.byField = {
        ...draft.links.byField,
        [target.idField.name]: target.multiple ? refs : (refs[0] ?? ''),
      };
    } else draft.links[target.link] = refs[0] ?? '';
    return;
  }
  const { field } = target;
  let stored: Value | Value[] | undefined = values;
  if (field.asset) stored = toAssets(values, field.asset, place, draft, column, issues);
  if (stored === undefined) return;
  const culture = place.otherCulture;
  if (culture) {
    const forCulture = draft.cultures[culture];
    if (forCulture) forCulture[field.name] = stored;
    else draft.cultures[culture] = { [field.name]: stored };
  } else {
    draft.fields[field.name] = stored;
    if (field.name === part.entity.refField) noteOwnRef(draft, cell, place, stored);
  }
}

/** The draft's own ref as the cell wrote it, when the trim changed it (Draft.asWritten); else none. */
function noteOwnRef(draft: Draft, cell: Cell, place: Placement, ref: Value | Value[]): void {
  const written = typeof ref === 'string' ? untrimmedRefs(cell, place)?.get(ref) : undefined;
  if (written !== undefined) {
    draft.asWritten ??= {};
    draft.asWritten.ref = written;
  } else if (draft.asWritten?.ref !== undefined) delete draft.asWritten.ref;
}

/** A link ref's spelling as written (Draft.asWritten), when the trim changed it. */
function noteLinkRef(draft: Draft, ref: string, written: string | undefined): void {
  if (written === undefined || written === ref) return;
  draft.asWritten ??= {};
  draft.asWritten.links ??= {};
  draft.asWritten.links[ref] = written;
}

/** A variant's product ref, with its spelling as written (Draft.asWritten) when the trim changed it. */
export function linkProduct(variant: Draft, ref: string, written: string | undefined): void {
  variant.links.productRef = ref;
  noteLinkRef(variant, ref, written);
}

/**
 * A `categoryPath` cell: the paths it names become the refs their categories have (or are given), and
 * the paths themselves, so the import can find or create them. On a category row, its own path gives
 * its ref, its parent and (unless a column gives one) its title.
 */
function assignPaths(part: Part, place: Placement, reader: PathReader, cell: Cell): void {
  // A JSON list holds one cell text per item (each may still hold several paths).
  const texts = Array.isArray(cell) ? cell : [cell];
  const paths = texts.flatMap((text) => (text === null ? [] : reader.paths(String(text))));
  if (paths.length === 0) return;
  part.touched = true;
  const { draft, entity } = part;
  const { target } = place;
  const refOfPath = (titles: string[]) => categoryRefOf(titles);
  if (target.kind === 'link' && target.link === 'categoryRefs') {
    draft.links.categoryRefs = paths.map(refOfPath);
    draft.links.categoryPaths = paths;
    return;
  }
  const path = paths[0]!;
  if (target.kind === 'link') {
    // The parent's path: the parent (and its own parents) must exist before the row is written.
    draft.links.parentRef = refOfPath(path);
    draft.links.categoryPaths = [path];
    return;
  }
  draft.fields[entity.refField] = refOfPath(path);
  // The row's own path: the import finds the category by it (or by its titles) and creates its parents.
  draft.links.categoryPaths = [path];
  if (path.length > 1) draft.links.parentRef = refOfPath(path.slice(0, -1));
  const title = titleField(entity);
  if (title && draft.fields[title] === undefined) draft.fields[title] = path.at(-1)!;
}

/** The category's title field (`cat_title`): where a path's last title goes when no column gives one. */
function titleField(entity: EntityModel): string | undefined {
  const prefix = entity.refField.replace(/_ref$/, '');
  return entity.field(`${prefix}_title`)?.name;
}
