// `validate`'s reference check: a row's references (a variant's product, a category's parent, a
// product's categories, any other link) must name a record the import of this file would have when it
// writes the row, or the row is invalid, as the import would fail it. The import writes rows in batches
// (100 drafts; categories, then products, custom entities, variants), so a reference is resolvable when
// it names:
//   - a record of a valid row before it (kept as 56-bit hashes in a RefTracker: bounded memory);
//   - a record of a valid row after it in the same batch that the import writes before it (a product
//     before its variants), or, for a category's parent, any later row the check still holds: the import
//     keeps a category waiting until its parent is written;
//   - a record of the tenant: refs the file does not define are asked 100 per request, and the answers
//     (found or not) kept for the rows after, in bounded caches.
// A record whose row is invalid is never written: a reference to it makes the row invalid too.
import type { Draft } from '../mappers/types.js';
import { type EntityModel, referencedEntity, type TenantModel } from '../schema/model.js';
import { unusableName } from './asset-check.js';
import type { QuickLinks } from './check.js';
import { DEFAULT_BATCH_SIZE, WRITE_ORDER } from './import/types.js';
import { RefTracker } from './ref-tracker.js';

/** Asks the tenant which of these refs it has (the caller sends 100 per request). */
export type TenantRefLookup = (entity: EntityModel, refs: readonly string[]) => Promise<Set<string>>;
/** Asks the DAM which of these names it has (the caller sends 100 per request). */
export type DamNameLookup = (kind: 'image' | 'file', names: readonly string[]) => Promise<Set<string>>;

export interface Reference {
  /** The entity named; undefined for a DAM image or file. */
  entity: EntityModel | undefined;
  /** The entity's name, or `dam:image` / `dam:file`. */
  space: string;
  ref: string;
  /** The source column that named it. */
  column: string;
  /** The API field it goes to (the target's ref field, or the image field). */
  field: string;
}

/** A reference the import of this file would not resolve, and why. */
export interface Unresolved extends Reference {
  message: string;
  /** The import writes the row without it (an image or file name the DAM lacks): a warning, not a failure. */
  leftOut: boolean;
}

/** What one row defines and names, as the reference check sees it. */
export interface RowRefs {
  /** The import batch the row would be written in (rows without a write share the batch before them). */
  batch: number;
  /** The row is valid so far (its own checks passed): what it defines will be written. */
  ok: boolean;
  /** `entity\0ref` of every record the row writes. */
  defines: string[];
  /** The write order of each defined record's entity (same index as `defines`). */
  ranks: number[];
  uses: Array<Reference & { rank: number; category: boolean }>;
  /** Where the row is (`line 17`), for the messages of rows that name it. */
  location: string;
}

/** Refs remembered as found (or not found) in the tenant: past this, the cache starts again. */
const CACHE_LIMIT = 50_000;
const NO_USES: RowRefs['uses'] = [];
const NONE: string[] = [];

export class ReferenceCheck {
  /** Records of valid rows, told by `settle`. */
  private readonly inFile = new RefTracker();
  private readonly inTenant = new Map<string, Set<string>>();
  private readonly notInTenant = new Map<string, Set<string>>();
  private cached = 0;
  private batch = 0;
  private batchDrafts = 0;
  private batchKeys = new Set<string>();
  private readonly ranks = new Map<string, number>();
  private readonly targets = new Map<string, EntityModel | undefined>();
  private lastTarget: [string, string, EntityModel | undefined] = ['', '', undefined];

  /** Where the file defines a record first (any row, valid or not), when the caller knows. */
  locate: ((entity: string, ref: string) => string | undefined) | undefined;

  constructor(
    private readonly model: TenantModel,
    private readonly lookup: TenantRefLookup | undefined,
    /** The DAM, for the image and file names a row gives without a URL (undefined: not checked). */
    private readonly damLookup?: DamNameLookup,
    /** The import's batch size (drafts per batch): which later rows it writes before a row. */
    private readonly batchDrafts_ = DEFAULT_BATCH_SIZE,
  ) {}

  /** Whether refs are asked of a tenant (else the file alone tells). */
  get withTenant(): boolean {
    return this.lookup !== undefined;
  }

  /** A row checked in full: the records it writes and those it names (none for a skipped row). */
  row(drafts: readonly Draft[], ok: boolean, location: string): RowRefs {
    // The import batches every draft of a valid row (deletes too); it writes, and links, the others.
    const batch = this.place(ok ? drafts.map((d) => key(d.entity, d.ref)) : NONE);
    const writes = ok ? drafts.filter((d) => d.ref && d.command !== 'DELETE' && d.command !== 'IGNORE') : [];
    const uses: RowRefs['uses'] = [];
    const defines: string[] = [];
    const ranks: number[] = [];
    for (const d of writes) {
      this.referencesOf(d, uses);
      defines.push(key(d.entity, d.ref));
      ranks.push(this.rankOf(d.entity));
      // A URL registered by this row gives its file name to the rows after it (the DAM step runs first).
      for (const a of d.assets) {
        if (a.url === undefined || unusableName(a.name, a.single) !== undefined) continue;
        defines.push(key(`dam:${a.kind}`, a.name));
        ranks.push(-1);
      }
    }
    return {
      batch,
      ok,
      defines,
      ranks,
      uses: uses.length ? uses : NO_USES,
      location,
    };
  }

  /** A valid row of the plain lane: its one record, and its links (`links`, column names from `headers`). */
  plainRow(
    entity: string,
    ref: string,
    location: string,
    links: QuickLinks,
    headers: readonly string[] | undefined,
  ): RowRefs {
    const k = key(entity, ref);
    const batch = this.place([k]);
    const rank = this.rankOf(entity);
    const uses: RowRefs['uses'] = [];
    for (let n = 0; n < links.count; n++) {
      const target = this.linkTarget(entity, links.columns[n]!.link!);
      if (!target) continue;
      const column = headers?.[links.at[n]!] ?? target.refField;
      const category = links.columns[n]!.link === 'parentRef' && target.kind === 'categories';
      for (const value of [links.values[n]!].flat()) {
        if (value === null || value === '') continue;
        uses.push({
          entity: target,
          space: target.name,
          ref: String(value),
          field: target.refField,
          column,
          rank,
          category,
        });
      }
    }
    return { batch, ok: true, defines: [k], ranks: [rank], uses: uses.length ? uses : NO_USES, location };
  }

  /** Whether every link of a plain row names a record already known (no allocation: the common case). */
  knownLinks(entity: string, links: QuickLinks): boolean {
    for (let n = 0; n < links.count; n++) {
      const target = this.linkTarget(entity, links.columns[n]!.link!);
      if (!target) continue;
      const value = links.values[n]!;
      if (Array.isArray(value)) {
        for (const v of value) if (v !== null && !this.knownRef(target.name, String(v))) return false;
      } else if (value !== null && !this.knownRef(target.name, String(value))) return false;
    }
    return true;
  }

  /** The entity a plain link column of `entity`'s rows names. */
  private linkTarget(entity: string, link: string): EntityModel | undefined {
    if (entity === this.lastTarget[0] && link === this.lastTarget[1]) return this.lastTarget[2];
    const k = `${entity}\u0000${link}`;
    let target = this.targets.get(k);
    if (target === undefined && !this.targets.has(k)) {
      const byKind = (kind: string) => this.model.entities.find((e) => e.kind === kind);
      target =
        link === 'productRef'
          ? byKind('products')
          : link === 'parentRef'
            ? this.model.entity(entity)
            : link === 'categoryRefs'
              ? byKind('categories')
              : undefined;
      this.targets.set(k, target);
    }
    this.lastTarget = [entity, link, target];
    return target;
  }

  /** The valid plain row's record, when no row is held before it: noted at once, without a RowRefs. */
  definePlain(entity: string, ref: string): void {
    this.placeOne();
    this.inFile.check(entity, ref, '', 0);
  }

  /** Whether every reference of the row is already known to resolve (the row need not wait). */
  settled(refs: RowRefs): boolean {
    for (const u of refs.uses) if (!this.knownNow(u)) return false;
    return true;
  }

  /**
   * The references of each row that the import would not resolve, in order; the records of the rows
   * that stay valid are noted for the rows after. `rows` are consecutive rows of the file, in order.
   */
  async resolve(rows: readonly RowRefs[]): Promise<Unresolved[][]> {
    // Records defined by these rows: where, in which batch, and (for the valid) that they will be written.
    const held = new Map<string, { at: number; rank: number }>();
    rows.forEach((r, at) => {
      if (!r.ok) return;
      r.defines.forEach((k, i) => {
        if (!held.has(k)) held.set(k, { at, rank: r.ranks[i]! });
      });
    });
    await this.askTenant(rows, held);
    const out: Unresolved[][] = [];
    rows.forEach((r, at) => {
      const missing: Unresolved[] = [];
      for (const u of r.uses) {
        const message = this.unresolved(u, r, at, rows, held);
        if (message) missing.push({ ...u, message, leftOut: u.entity === undefined });
      }
      out.push(missing);
      if (r.ok && missing.every((m) => m.leftOut)) for (const k of r.defines) this.noteDefined(k);
    });
    return out;
  }

  /** Why the import would not resolve this reference of row `at`, or undefined if it would. */
  private unresolved(
    u: RowRefs['uses'][number],
    r: RowRefs,
    at: number,
    rows: readonly RowRefs[],
    held: Map<string, { at: number; rank: number }>,
  ): string | undefined {
    if (this.knownNow(u)) return undefined;
    const k = key(u.space, u.ref);
    const definer = held.get(k);
    const named = u.entity ? `${u.entity.name} "${u.ref}"` : `${u.space.slice(4)} "${u.ref}"`;
    if (definer && definer.at > at) {
      const later = rows[definer.at]!;
      // The import keeps a category waiting for its parent until the end of the file.
      if (u.category) return undefined;
      if (later.batch === r.batch && definer.rank < u.rank) return undefined;
      return `${named} comes later in the file (${later.location}): the import writes it after this row; put it before`;
    }
    if (definer && definer.at === at && definer.rank < u.rank) return undefined;
    if (!u.entity)
      return `${named} is neither in the DAM nor registered from a URL of the file before this row: the import writes the record without it`;
    // Defined by a row of the file that is invalid (or that names something missing itself).
    const where = this.locate?.(u.entity.name, u.ref);
    if (where !== undefined) return `${named} is not written: its row (${where}) is invalid`;
    return `${named} is neither in the file nor in the tenant`;
  }

  private knownNow(u: Reference): boolean {
    return this.knownRef(u.space, u.ref);
  }

  private knownRef(space: string, ref: string): boolean {
    return this.inFile.has(space, ref) || this.inTenant.get(space)?.has(ref) === true;
  }

  /** The refs none of these rows (nor the file before them) defines, asked of the tenant 100 per request. */
  private async askTenant(rows: readonly RowRefs[], held: Map<string, unknown>): Promise<void> {
    const ask = new Map<string, { entity: EntityModel | undefined; refs: Set<string> }>();
    for (const r of rows) {
      for (const u of r.uses) {
        if (u.entity ? !this.lookup : !this.damLookup) continue;
        if (this.knownNow(u) || this.notInTenant.get(u.space)?.has(u.ref)) continue;
        if (held.has(key(u.space, u.ref))) continue;
        const asked = ask.get(u.space) ?? { entity: u.entity, refs: new Set<string>() };
        asked.refs.add(u.ref);
        ask.set(u.space, asked);
      }
    }
    for (const [space, { entity, refs }] of ask) {
      const found = entity
        ? await this.lookup!(entity, [...refs])
        : await this.damLookup!(space === 'dam:file' ? 'file' : 'image', [...refs]);
      if (this.cached + refs.size > CACHE_LIMIT) {
        this.inTenant.clear();
        this.notInTenant.clear();
        this.cached = 0;
      }
      for (const ref of refs) {
        const cache = found.has(ref) ? this.inTenant : this.notInTenant;
        const known = cache.get(space) ?? new Set<string>();
        cache.set(space, known);
        known.add(ref);
      }
      this.cached += refs.size;
    }
  }

  private noteDefined(k: string): void {
    // (DAM names too: `dam:image\0name`.)
    const at = k.indexOf('\u0000');
    this.inFile.check(k.slice(0, at), k.slice(at + 1), '', 0);
  }

  /**
   * The batch the import would write a row of these records in: a batch holds 100 drafts, and a record
   * already in the batch starts the next one. Rows with nothing to write stay in the current batch.
   */
  private place(keys: readonly string[]): number {
    if (keys.length === 0) return this.batch;
    if (this.batchDrafts + keys.length > this.batchDrafts_ || keys.some((k) => this.batchKeys.has(k))) {
      this.batch += 1;
      this.batchDrafts = 0;
      this.batchKeys = new Set();
    }
    this.batchDrafts += keys.length;
    for (const k of keys) this.batchKeys.add(k);
    return this.batch;
  }

  /** `place` for one record of a plain row (whose ref is unique in the file: no key is kept). */
  private placeOne(): void {
    if (this.batchDrafts + 1 > this.batchDrafts_) {
      this.batch += 1;
      this.batchDrafts = 0;
      this.batchKeys = new Set();
    }
    this.batchDrafts += 1;
  }

  private rankOf(entityName: string): number {
    let rank = this.ranks.get(entityName);
    if (rank === undefined) {
      const kind = this.model.entity(entityName)?.kind ?? 'custom';
      rank = WRITE_ORDER[kind] ?? WRITE_ORDER.custom!;
      this.ranks.set(entityName, rank);
    }
    return rank;
  }

  private referencesOf(d: Draft, out: RowRefs['uses']): void {
    const rank = this.rankOf(d.entity);
    const self = this.model.entity(d.entity);
    const add = (
      target: EntityModel | undefined,
      ref: string | undefined,
      link: string,
      category = false,
    ) => {
      if (!target || !ref) return;
      const column = d.source.columns[link] ?? link;
      out.push({ entity: target, space: target.name, ref, field: target.refField, column, rank, category });
    };
    const byKind = (kind: string) => this.model.entities.find((e) => e.kind === kind);
    const { productRef, parentRef, categoryRefs, categoryPaths, byField } = d.links;
    if (productRef !== undefined) add(byKind('products'), productRef, 'link:productRef');
    // Categories named by their path are found or created by the import (parents first): always resolvable.
    const fromPaths = categoryPaths !== undefined;
    // A category's parent is a category (the import links it within the draft's own entity).
    if (parentRef !== undefined && !fromPaths)
      add(self, parentRef, 'link:parentRef', self?.kind === 'categories');
    if (!fromPaths)
      for (const ref of categoryRefs ?? NONE) add(byKind('categories'), ref, 'link:categoryRefs');
    for (const [field, refs] of Object.entries(byField ?? {})) {
      const target = referencedEntity(this.model, self?.field(field)?.references);
      for (const ref of [refs].flat()) add(target, ref, 'link:byField');
    }
    // An image or file given by its DAM name must be in the DAM, or registered from a URL by this file
    // before the row is written; else the import leaves it out (the catalog would refuse the write).
    if (!this.damLookup) return;
    for (const a of d.assets) {
      // A name the catalog refuses is the asset check's (`unusableName`): no lookup.
      if (a.url !== undefined || unusableName(a.name, a.single) !== undefined) continue;
      const field = a.culture ? `${a.field}.${a.culture}` : a.field;
      out.push({
        entity: undefined,
        space: `dam:${a.kind}`,
        ref: a.name,
        field: a.field,
        column: d.source.columns[field] ?? d.source.columns[a.field] ?? a.field,
        rank,
        category: false,
      });
    }
  }
}

function key(entity: string, ref: string): string {
  return `${entity}\u0000${ref}`;
}
