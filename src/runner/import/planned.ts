// What a plan would have written so far. A plan sends no write, so the records it would create, change
// or delete are remembered here, and later lookups of the same run (or of the next sheets of a workbook)
// find them as the import would: a product drafted again is diffed against what its first row would
// have written, a variant of a product another sheet would create finds its product.
// Memory is bounded: the planned values of the latest records are kept, up to a budget (about 32 MB);
// a record that leaves it is still known to be planned (a 12-byte hash, on disk past a million, with
// the row that planned it), so a link to it still resolves and a later row on it says what is unknown.

import type { AssetKind } from '../../api/dam.js';
import { takeOldest } from '../../bounded-map.js';
import type { Draft } from '../../mappers/types.js';
import type { Location } from '../../readers/types.js';
import { RefTracker } from '../ref-tracker.js';
import { CACHE_LIMIT } from './assets.js';
import type { ExistingRecord, FieldChange } from './diff.js';

/** Characters of planned values (and their keys) kept at once. */
export const PLANNED_VALUES_BUDGET = 32 * 1024 * 1024;
/**
 * What a kept entry costs in the heap besides its key's and values' characters: the map's slots, the
 * entry and its location, the strings' own headers. Measured: about 630 bytes for a product of four
 * text fields, 210 of them characters (it was counted as 96, and the budget held twice its size).
 */
const ENTRY_COST = 420;

/** The id a record the plan would create stands under (links to it carry it; the report shows it). */
export function plannedId(ref: string): string {
  return `(new ${ref})`;
}

/** An id a plan made up for a record it would create (`plannedId`), not one the tenant gave. */
export function isPlannedId(id: unknown): boolean {
  return typeof id === 'string' && id.startsWith('(new ') && id.endsWith(')');
}

/** The values a record would hold, as `ExistingRecord` keeps them: base language, other cultures. */
interface PlannedValues {
  base: Record<string, unknown>;
  cultures: Record<string, Record<string, unknown>>;
}

type Entry = { id: number | string; values: string; location: Location } | { gone: true; location: Location };

export class PlannedRecords {
  /** `entity\0ref` -> the record as the plan would leave it (values as JSON: compact, and measured), oldest first. */
  private readonly recent = new Map<string, Entry>();
  private used = 0;
  /** Records whose planned values left `recent`: known to be planned, with the row that planned them. */
  private readonly dropped = new RefTracker();
  /** DAM names (`image:shirt.jpg`) the plan would register, latest last (bounded like the registrar's own). */
  private readonly assetNames = new Set<string>();
  /** Attribute sets the plan's structure would create (a workbook's `attribute-sets` sheet): few, held whole. */
  readonly attributeSets = new Set<string>();

  constructor(
    private readonly baseLanguage: string,
    private readonly budget = PLANNED_VALUES_BUDGET,
  ) {}

  /** A record the plan would create, with what its POST would write (link ids included). */
  created(draft: Draft, ids: Record<string, unknown>): void {
    // A link by ref wins over the same id field given as a value, as in the POST body.
    const values: PlannedValues = { base: { ...draft.fields, ...ids }, cultures: draft.cultures };
    this.put(draft.entity, draft.ref, {
      id: plannedId(draft.ref),
      values: JSON.stringify(values),
      location: draft.source.location,
    });
  }

  /** A record the plan would change: its changes on top of what it holds (in the tenant, or planned before). */
  updated(draft: Draft, id: number | string, changes: readonly FieldChange[]): void {
    const before = this.recent.get(keyOf(draft.entity, draft.ref));
    const values: PlannedValues =
      before && 'values' in before ? JSON.parse(before.values) : { base: {}, cultures: {} };
    for (const c of changes) {
      if (c.culture === undefined || c.culture === this.baseLanguage) {
        values.base[c.field] = c.new;
        continue;
      }
      const culture = values.cultures[c.culture] ?? {};
      culture[c.field] = c.new;
      values.cultures[c.culture] = culture;
    }
    this.put(draft.entity, draft.ref, {
      id,
      values: JSON.stringify(values),
      location: draft.source.location,
    });
  }

  /** A record the plan would delete: the rows after it no longer find it. */
  deleted(draft: Draft): void {
    this.put(draft.entity, draft.ref, { gone: true, location: draft.source.location });
  }

  /**
   * Turns what the tenant holds for `refs` (`found`, by ref) into what the import would find after the
   * writes this plan has planned so far.
   */
  overlay(entity: string, refs: Iterable<string>, found: Map<string, ExistingRecord>): void {
    for (const ref of refs) {
      const key = keyOf(entity, ref);
      const entry = this.recent.get(key);
      if (entry === undefined) {
        const by = this.dropped.firstLocation(entity, ref);
        if (by !== undefined) {
          const record = found.get(ref) ?? { id: plannedId(ref), base: {}, cultures: {} };
          found.set(ref, { ...record, plannedBy: by });
        }
        continue;
      }
      // Used again: it is the most recent now.
      this.recent.delete(key);
      this.recent.set(key, entry);
      if ('gone' in entry) {
        found.delete(ref);
        continue;
      }
      const planned = JSON.parse(entry.values) as PlannedValues;
      const record = found.get(ref) ?? { id: entry.id, base: {}, cultures: {} };
      Object.assign(record.base, planned.base);
      for (const [culture, values] of Object.entries(planned.cultures))
        record.cultures[culture] = { ...record.cultures[culture], ...values };
      found.set(ref, record);
    }
  }

  /** Whether the record would exist after this plan's writes; undefined: the plan does not touch it. */
  exists(entity: string, ref: string): boolean | undefined {
    const entry = this.recent.get(keyOf(entity, ref));
    if (entry) return !('gone' in entry);
    return this.dropped.has(entity, ref) ? true : undefined;
  }

  /** A DAM name the plan would register from a URL: a later run's rows may name it. */
  wouldRegister(kind: AssetKind, name: string): void {
    const key = `${kind}:${name}`;
    this.assetNames.delete(key);
    this.assetNames.add(key);
    if (this.assetNames.size > CACHE_LIMIT) takeOldest(this.assetNames);
  }

  registers(kind: AssetKind, name: string): boolean {
    return this.assetNames.has(`${kind}:${name}`);
  }

  /** Lets go of what went to disk. */
  close(): void {
    this.dropped.close();
  }

  private put(entity: string, ref: string, entry: Entry): void {
    const key = keyOf(entity, ref);
    const before = this.recent.get(key);
    if (before) {
      this.used -= costOf(key, before);
      this.recent.delete(key);
    }
    this.recent.set(key, entry);
    this.used += costOf(key, entry);
    // The oldest go first (this one too, if it alone is past the budget).
    while (this.used > this.budget) {
      const oldest = takeOldest(this.recent);
      if (!oldest) break;
      const [oldKey, old] = oldest;
      this.used -= costOf(oldKey, old);
      const cut = oldKey.indexOf('\u0000');
      this.dropped.check(oldKey.slice(0, cut), oldKey.slice(cut + 1), old.location.text, old.location.line);
    }
  }
}

function keyOf(entity: string, ref: string): string {
  return `${entity}\u0000${ref}`;
}

function costOf(key: string, entry: Entry): number {
  return key.length + ('values' in entry ? entry.values.length : 0) + ENTRY_COST;
}
