// JSON records to flat rows. Nested objects become dotted columns (`dimensions.width`), arrays of
// scalars stay arrays, arrays holding objects become their JSON text in one cell (a faithful,
// reversible choice: indexed columns would change shape from one record to the next).
import { emptyCells } from '../headers.js';
import {
  cellTooLarge,
  invalidUtf8,
  jsonTooDeep,
  type RowError,
  RowProblem,
  replacedAt,
  rowTooLarge,
} from '../limits.js';
import { maxRowBytes } from '../options.js';
import type { Cell } from '../types.js';

/** Header names listed for a JSON source at most (see HeaderUnion.add). */
const MAX_HEADER_NAMES = 100_000;
/**
 * What a key costs beyond its name when a row's size is counted: a column of its own (a plan, a
 * header name), so a record of a million short keys is too large though its text is a few MB.
 */
export const KEY_BYTES = 8;

/** The union of the column names seen so far, in order of first appearance. */
export class HeaderUnion {
  readonly names: string[] = [];
  private readonly seen = new Set<string>();
  /** Keys of the last flat record, in order: the next record of that shape (the usual case) needs no lookups. */
  private lastFlatKeys: string[] = [];

  add(name: string): void {
    // Records that each bring new keys would grow the union without end: past this many, names are
    // no longer listed (the rows keep their cells).
    if (this.names.length >= MAX_HEADER_NAMES) return;
    if (!this.seen.has(name)) {
      this.seen.add(name);
      this.names.push(name);
    }
  }

  /**
   * Adds the keys of `record` when it is already a row: every value a scalar (strings no longer than
   * `maxChars`, so they need no size check). False, adding nothing, when it must be flattened.
   * One `for...in` pass checks the values and compares the key sequence with the last flat record's.
   */
  addFlat(record: Record<string, unknown>, maxChars: number, maxBytes: number, location: string): boolean {
    const last = this.lastFlatKeys;
    let same = true;
    let count = 0;
    let bytes = 0;
    for (const key in record) {
      const value = record[key];
      if (value !== null && typeof value === 'object') return false;
      if (typeof value === 'string') {
        if (value.length > maxChars) return false;
        bytes += value.length;
      }
      bytes += key.length + KEY_BYTES;
      if (bytes > maxBytes) throw new RowProblem(rowTooLarge(undefined, maxBytes, location));
      if (same && key !== last[count]) same = false;
      count++;
    }
    if (same && count === last.length) return true;
    const keys = Object.keys(record);
    for (const key of keys) this.add(key);
    this.lastFlatKeys = keys;
    return true;
  }
}

export interface FlattenLimits {
  maxCellBytes: number;
  /** Deepest nesting of arrays and objects, the record itself being level 1. */
  maxDepth: number;
}

/**
 * The record's cells, and the row error of a cell above the size limit (that cell left empty, the
 * others kept, as the CSV reader does). A record larger than the row limit or nesting deeper than the
 * depth limit throws a RowProblem (nothing of it is kept), checked before any recursion could exhaust
 * the stack.
 */
export function flattenRecord(
  record: object,
  headers: HeaderUnion,
  limits: FlattenLimits,
  location: string,
): { cells: Record<string, Cell>; error?: RowError } {
  // Cut the prototype first: `for...in` then sees exactly the own keys (`__proto__` included), and a
  // flat record is already the row, kept instead of copied.
  const own = Object.setPrototypeOf(record, null) as Record<string, unknown>;
  const maxBytes = maxRowBytes(limits.maxCellBytes);
  if (headers.addFlat(own, limits.maxCellBytes / 3, maxBytes, location))
    return { cells: own as Record<string, Cell> };
  const cells = emptyCells<Cell>();
  const context: FlattenContext = { headers, ...limits, location, maxBytes, bytes: 0 };
  // Depth first, in a walk bounded by the limit: flattening and JSON.stringify recurse without one.
  checkDepth(own, limits.maxDepth - 1, context);
  flattenInto(cells, own, '', context);
  return context.error ? { cells, error: context.error } : { cells };
}

interface FlattenContext extends FlattenLimits {
  headers: HeaderUnion;
  location: string;
  /** The row limit, and the row's size so far (dotted names repeat their prefix: a row can grow). */
  maxBytes: number;
  bytes: number;
  /** The first cell over the size limit (left empty). */
  error?: RowError;
}

/** Throws when `value` holds containers more than `levels` deep (recursion bounded by the limit). */
function checkDepth(value: object, levels: number, context: FlattenContext): void {
  for (const key in value) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner === null || typeof inner !== 'object') continue;
    if (levels <= 0) throw new RowProblem(jsonTooDeep(context.maxDepth, context.location));
    checkDepth(inner, levels - 1, context);
  }
}

// Module-level functions rather than closures: this runs once per record.
function flattenInto(
  cells: Record<string, Cell>,
  object: object,
  prefix: string,
  context: FlattenContext,
): void {
  for (const key of Object.keys(object)) {
    const value = (object as Record<string, unknown>)[key];
    const name = prefix ? `${prefix}.${key}` : key;
    if (value === null || typeof value !== 'object') put(cells, name, toScalar(value), context);
    else if (Array.isArray(value)) {
      put(cells, name, value.every(isScalar) ? value.map(toScalar) : JSON.stringify(value), context);
    } else if (Object.keys(value).length === 0) put(cells, name, null, context);
    else flattenInto(cells, value, name, context);
  }
}

function put(cells: Record<string, Cell>, name: string, value: Cell, context: FlattenContext): void {
  const limit = context.maxCellBytes;
  if (typeof value === 'string' && value.length * 3 > limit && Buffer.byteLength(value) > limit) {
    // Left empty, the row's error; the other cells stay (a rejects line keeps them to fix and send again).
    context.error ??= cellTooLarge(Buffer.byteLength(value), limit, `${context.location}, column "${name}"`);
    value = '';
  }
  context.bytes += name.length + KEY_BYTES + (typeof value === 'string' ? value.length : 8);
  if (context.bytes > context.maxBytes)
    throw new RowProblem(rowTooLarge(undefined, context.maxBytes, context.location));
  cells[name] = value;
  context.headers.add(name);
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function toScalar(value: unknown): Cell {
  if (value === undefined) return null;
  if (
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    value === null
  ) {
    return value;
  }
  return String(value);
}

/** The row error of a record holding invalid UTF-8 (U+FFFD) in a value or a key, naming the column. */
export function invalidIn(cells: Record<string, Cell>, location: string): RowError | undefined {
  for (const name in cells) {
    const value = cells[name]!;
    if (name.includes('\uFFFD') || replacedAt([value]) >= 0)
      return invalidUtf8(`${location}, column "${name}"`);
  }
  return undefined;
}
