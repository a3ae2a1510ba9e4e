// In-memory storage of one resource: records by id, a unique index by ref, ids kept sorted for
// token paging, and value indexes on link fields (variants by product, products by category...)
// so lookups and embedded collections never scan the whole table.
import type { StoredRecord } from './model.js';

export class Table {
  private readonly records = new Map<number, StoredRecord>();
  /** Ascending; ids are allocated in increasing order so inserts append. */
  private readonly ids: number[] = [];
  private readonly byRef = new Map<string, number>();
  private readonly indexes = new Map<string, Map<unknown, Set<number>>>();
  nextId = 1;
  /** Ids inserted, replaced or deleted since the last takeChanged(), when tracking. */
  private changed: Set<number> | undefined;

  constructor(
    readonly key: string,
    readonly ref: string,
    indexedFields: string[] = [],
  ) {
    for (const f of indexedFields) this.indexes.set(f, new Map());
  }

  get size(): number {
    return this.records.size;
  }

  /** Sorted ids; callers must not modify the array. */
  allIds(): readonly number[] {
    return this.ids;
  }

  get(id: number): StoredRecord | undefined {
    return this.records.get(id);
  }

  idOfRef(ref: string): number | undefined {
    return this.byRef.get(ref);
  }

  isIndexed(field: string): boolean {
    return field === this.key || field === this.ref || this.indexes.has(field);
  }

  /** Ids whose `field` equals (or, for arrays, contains) one of `values`, sorted. */
  idsWhere(field: string, values: readonly unknown[]): number[] {
    const out = new Set<number>();
    for (const v of values) {
      if (field === this.key) {
        if (typeof v === 'number' && this.records.has(v)) out.add(v);
      } else if (field === this.ref) {
        const id = typeof v === 'string' ? this.byRef.get(v) : undefined;
        if (id !== undefined) out.add(id);
      } else {
        for (const id of this.indexes.get(field)?.get(v) ?? []) out.add(id);
      }
    }
    return [...out].sort((a, b) => a - b);
  }

  trackChanges(): void {
    this.changed ??= new Set();
  }

  /** Ids changed since the last call (their current record, or none when deleted). */
  takeChanged(): number[] {
    if (!this.changed || this.changed.size === 0) return [];
    const ids = [...this.changed];
    this.changed.clear();
    return ids;
  }

  allocateId(): number {
    return this.nextId++;
  }

  insert(record: StoredRecord): void {
    const id = record[this.key] as number;
    this.records.set(id, record);
    if (this.ids.length === 0 || this.ids[this.ids.length - 1]! < id) this.ids.push(id);
    else this.ids.splice(lowerBound(this.ids, id), 0, id);
    if (id >= this.nextId) this.nextId = id + 1;
    const ref = record[this.ref];
    if (typeof ref === 'string') this.byRef.set(ref, id);
    this.indexAdd(id, record);
    this.changed?.add(id);
  }

  /** Replaces a record (same id, same ref) and keeps the value indexes in step. */
  replace(record: StoredRecord): void {
    const id = record[this.key] as number;
    const old = this.records.get(id);
    if (old) this.indexRemove(id, old);
    this.records.set(id, record);
    this.indexAdd(id, record);
    this.changed?.add(id);
  }

  delete(id: number): StoredRecord | undefined {
    const old = this.records.get(id);
    if (!old) return undefined;
    this.records.delete(id);
    this.ids.splice(lowerBound(this.ids, id), 1);
    const ref = old[this.ref];
    if (typeof ref === 'string') this.byRef.delete(ref);
    this.indexRemove(id, old);
    this.changed?.add(id);
    return old;
  }

  clear(): void {
    this.records.clear();
    this.ids.length = 0;
    this.byRef.clear();
    for (const index of this.indexes.values()) index.clear();
    this.nextId = 1;
  }

  *values(): IterableIterator<StoredRecord> {
    yield* this.records.values();
  }

  private indexAdd(id: number, record: StoredRecord): void {
    for (const [field, index] of this.indexes) {
      for (const v of indexValues(record[field])) {
        const set = index.get(v);
        if (set) set.add(id);
        else index.set(v, new Set([id]));
      }
    }
  }

  private indexRemove(id: number, record: StoredRecord): void {
    for (const [field, index] of this.indexes) {
      for (const v of indexValues(record[field])) {
        const set = index.get(v);
        set?.delete(id);
        if (set?.size === 0) index.delete(v);
      }
    }
  }
}

function indexValues(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return [value ?? null];
}

/** First position whose id is >= `id`. */
export function lowerBound(sorted: readonly number[], id: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
