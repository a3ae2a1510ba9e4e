// JSON records to flat rows. Nested objects become dotted columns (`dimensions.width`), arrays of
// scalars stay arrays, arrays holding objects become their JSON text in one cell (a faithful,
// reversible choice: indexed columns would change shape from one record to the next).
import { CatalogIoError } from '../../errors.js';
import { emptyCells } from '../headers.js';
import type { Cell } from '../types.js';

/** The union of the column names seen so far, in order of first appearance. */
export class HeaderUnion {
  readonly names: string[] = [];
  private readonly seen = new Set<string>();
  /** Keys of the last flat record, in order: the next record of that shape (the usual case) needs no lookups. */
  private lastFlatKeys: string[] = [];

  add(name: string): void {
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
  addFlat(record: Record<string, unknown>, maxChars: number): boolean {
    const last = this.lastFlatKeys;
    let same = true;
    let count = 0;
    for (const key in record) {
      const value = record[key];
      if (value !== null && typeof value === 'object') return false;
      if (typeof value === 'string' && value.length > maxChars) return false;
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

export function flattenRecord(
  record: object,
  headers: HeaderUnion,
  maxCellBytes: number,
  location: string,
): Record<string, Cell> {
  // Cut the prototype first: `for...in` then sees exactly the own keys (`__proto__` included), and a
  // flat record is already the row, kept instead of copied.
  const own = Object.setPrototypeOf(record, null) as Record<string, unknown>;
  if (headers.addFlat(own, maxCellBytes / 3)) return own as Record<string, Cell>;
  const cells = emptyCells<Cell>();
  flattenInto(cells, own, '', { headers, maxCellBytes, location });
  return cells;
}

interface FlattenContext {
  headers: HeaderUnion;
  maxCellBytes: number;
  location: string;
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
    throw new CatalogIoError('CELL_TOO_LARGE', `Cell too large: the limit is ${limit} bytes`, {
      location: `${context.location}, column "${name}"`,
    });
  }
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
