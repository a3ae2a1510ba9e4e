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

  add(name: string): void {
    if (!this.seen.has(name)) {
      this.seen.add(name);
      this.names.push(name);
    }
  }
}

export function flattenRecord(
  record: object,
  headers: HeaderUnion,
  maxCellBytes: number,
  location: string,
): Record<string, Cell> {
  const cells = emptyCells<Cell>();
  const put = (name: string, value: Cell) => {
    if (
      typeof value === 'string' &&
      value.length * 3 > maxCellBytes &&
      Buffer.byteLength(value) > maxCellBytes
    ) {
      throw new CatalogIoError('CELL_TOO_LARGE', `Cell too large: the limit is ${maxCellBytes} bytes`, {
        location: `${location}, column "${name}"`,
      });
    }
    cells[name] = value;
    headers.add(name);
  };
  const walk = (object: object, prefix: string) => {
    for (const key of Object.keys(object)) {
      const value = (object as Record<string, unknown>)[key];
      const name = prefix ? `${prefix}.${key}` : key;
      if (value === null || typeof value !== 'object') put(name, toScalar(value));
      else if (Array.isArray(value))
        put(name, value.every(isScalar) ? value.map(toScalar) : JSON.stringify(value));
      else if (Object.keys(value).length === 0) put(name, null);
      else walk(value, name);
    }
  };
  walk(record, '');
  return cells;
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
