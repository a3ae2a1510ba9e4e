// JSON record flattening as it was before the single-pass flat check (used by reference/ndjson.ts):
// kept unchanged as the reference the current reader must agree with.
import { CatalogIoError } from '../../../src/errors.js';
import { emptyCells } from '../../../src/readers/headers.js';
import type { Cell } from '../../../src/readers/types.js';

/** The union of the column names seen so far, in order of first appearance. */
export class HeaderUnion {
  readonly names: string[] = [];
  private readonly seen = new Set<string>();

  private lastKeys: string[] = [];

  add(name: string): void {
    if (!this.seen.has(name)) {
      this.seen.add(name);
      this.names.push(name);
    }
  }

  /** Adds a record's keys; records of one shape (the usual case) are recognised without lookups. */
  addAll(keys: string[]): void {
    const last = this.lastKeys;
    if (keys.length === last.length) {
      let same = true;
      for (let i = 0; i < keys.length && same; i++) same = keys[i] === last[i];
      if (same) return;
    }
    for (const key of keys) this.add(key);
    this.lastKeys = keys;
  }
}

export function flattenRecord(
  record: object,
  headers: HeaderUnion,
  maxCellBytes: number,
  location: string,
): Record<string, Cell> {
  const keys = Object.keys(record);
  if (isFlat(record, keys, maxCellBytes)) {
    // Already a row: keep the parsed object (its keys are own data properties, `__proto__` included)
    // and only cut its prototype, instead of copying it.
    headers.addAll(keys);
    return Object.setPrototypeOf(record, null) as Record<string, Cell>;
  }
  const cells = emptyCells<Cell>();
  flattenInto(cells, record, '', { headers, maxCellBytes, location });
  return cells;
}

/** Every value is a scalar (short enough not to need the size check): nothing to flatten. */
function isFlat(record: object, keys: string[], maxCellBytes: number): boolean {
  const third = maxCellBytes / 3;
  for (const key of keys) {
    const value = (record as Record<string, unknown>)[key];
    if (value !== null && typeof value === 'object') return false;
    if (typeof value === 'string' && value.length > third) return false;
  }
  return true;
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
