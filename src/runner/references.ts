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
import type { QuickLinks } from './check.js';
import {
  attributeSetFields,
  hasSetId,
  UNKNOWN_SET_BRIEF,
  unknownSetMessage,
} from './import/attribute-set-check.js';
import { CYCLE_BRIEF, cycleMessage, parentChain } from './import/category-cycle.js';
import {
  BELOW_ITSELF_BRIEF,
  belowItselfMessage,
  type CategoryId,
  type CategoryMove,
  type CategoryTree,
  categoryParentField,
} from './import/category-tree.js';
import { plannedId } from './import/planned.js';
import { trimmedRefWarning } from './import/ref-spelling.js';
import { DEFAULT_BATCH_SIZE, WRITE_ORDER } from './import/types.js';
import { RefTracker } from './ref-tracker.js';

/**
 * Asks the tenant which of these refs it has (the caller sends 100 per request): their refs, or a map
 * from each ref found to its record's id (the id is named when a NEW row's record already exists).
 */
export type TenantRefLookup = (
  entity: EntityModel,
  refs: readonly string[],
) => Promise<ReadonlySet<string> | ReadonlyMap<string, number | string>>;
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
  /** A ref the import reads trimmed (`message`, the import's warning whole): a warning, not a failure. */
  trimmed?: boolean;
  /** The import skips the row for it (a DELETE of a record the tenant lacks): `message` says why. */
  skips?: boolean;
  /** The problem without the ref, for the summary's count (else taken from `message`). */
  brief?: string;
}

/** An attribute set id a row writes, and where. */
export interface SetUse {
  value: unknown;
  field: string;
  column: string;
}

/** A draft whose `_command` (NEW, UPDATE, DELETE) depends on whether the tenant has its record. */
export interface CommandCheck {
  entity: EntityModel;
  ref: string;
  command: 'NEW' | 'UPDATE' | 'DELETE';
  /** The source column of the ref (or the ref field). */
  column: string;
  /** The ref as its cell wrote it, when the trim changed it: the import's record if the tenant has it. */
  written?: string;
}

/**
 * A ref of the row the trim changed, checked against a tenant: the import uses it as the cell wrote it
 * when the tenant has that record, else trimmed with a warning (import/ref-spelling.ts).
 */
export interface Spelling {
  /** As the cell wrote it. */
  written: string;
  /** The column of the import's warning (none when the draft does not name it). */
  column: string | undefined;
}

/** The row's own ref (of a record it writes or deletes) the trim changed. */
interface OwnSpelling extends Spelling {
  entity: EntityModel;
  ref: string;
  /** Its place in `defines` (-1: a deleted record's), which then names the spelling the import uses. */
  at: number;
  /** The ref of the row's report line (its last draft's). */
  main: boolean;
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
  uses: Array<Reference & { rank: number; category: boolean; spelling?: Spelling }>;
  /** The row's own refs the trim changed (checked with a tenant only; settled by `resolve`). */
  spelled?: OwnSpelling[];
  /** The ref the import's report line names, when it is the main record's as written (set by `resolve`). */
  shownRef?: string;
  /** The attribute set ids the row writes (`typ_id`; checked with a tenant only). */
  sets?: SetUse[];
  /** The row's drafts whose command asks the tenant whether their record exists (checked with a tenant only). */
  commands?: CommandCheck[];
  /** Where the row is (`line 17`), for the messages of rows that name it. */
  location: string;
}

/** Refs remembered as found (or not found) in the tenant: past this, the cache starts again. */
const CACHE_LIMIT = 50_000;
const NO_USES: RowRefs['uses'] = [];
const NONE: string[] = [];
const NO_COMMANDS: CommandCheck[] = [];
const NO_SETS: SetUse[] = [];
/** Every id: the sets when the tenant's could not be read. */
const ANY_SET: ReadonlySet<number> = { has: () => true } as unknown as ReadonlySet<number>;

export class ReferenceCheck {
  /** Records of valid rows, told by `settle`. */
  private readonly inFile = new RefTracker();
  private readonly inTenant = new Map<string, Set<string>>();
  private readonly notInTenant = new Map<string, Set<string>>();
  /** The ids of records found in the tenant, when the lookup tells them. */
  private readonly tenantIds = new Map<string, number | string>();
  private cached = 0;
  private batch = 0;
  private batchDrafts = 0;
  private batchKeys = new Set<string>();
  private readonly ranks = new Map<string, number>();
  private readonly targets = new Map<string, EntityModel | undefined>();
  private lastTarget: [string, string, EntityModel | undefined] = ['', '', undefined];

  /**
   * The tenant's attribute set ids (one list request, read when a row first gives one), when checked
   * against a tenant: a `typ_id` it lacks makes the row invalid, as the import fails it.
   */
  attributeSets: (() => Promise<ReadonlySet<number>>) | undefined;
  private setIds: ReadonlySet<number> | undefined;

  /**
   * The tenant's category tree (by id), when checked against a tenant: a row that moves an existing
   * category below itself or one of its descendants is invalid, as the import fails it. Category rows
   * with a parent then have their own refs asked too (100 per request), to know which exist.
   */
  categoryTree: CategoryTree | undefined;

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
        if (a.url === undefined || a.unusable !== undefined) continue;
        defines.push(key(`dam:${a.kind}`, a.name));
        ranks.push(-1);
      }
    }
    const commands = ok && this.lookup ? this.commandsOf(drafts) : undefined;
    const sets = this.attributeSets ? this.setsOf(writes) : undefined;
    const spelled = ok && this.lookup ? this.spelledOf(drafts, defines) : undefined;
    return {
      batch,
      ok,
      defines,
      ranks,
      uses: uses.length ? uses : NO_USES,
      ...(commands && { commands }),
      ...(sets && { sets }),
      ...(spelled && { spelled }),
      location,
    };
  }

  /** The drafts' own refs the trim changed (those the import looks up: not an IGNORE's). */
  private spelledOf(drafts: readonly Draft[], defines: readonly string[]): OwnSpelling[] | undefined {
    let out: OwnSpelling[] | undefined;
    for (const d of drafts) {
      const written = d.asWritten?.ref;
      const entity = this.model.entity(d.entity);
      if (written === undefined || !entity || d.command === 'IGNORE') continue;
      out ??= [];
      out.push({
        entity,
        ref: d.ref,
        written,
        column: d.source.columns[entity.refField],
        at: defines.indexOf(key(d.entity, d.ref)),
        main: d === drafts[drafts.length - 1],
      });
    }
    return out;
  }

  /**
   * The refs the trim changed, once the tenant told which spellings it has: as the cell wrote them when
   * it has that record (or the file defined it so before), else trimmed, with the import's warning. The
   * row then defines, names and links what the import would.
   */
  private spell(r: RowRefs): Unresolved[] | undefined {
    if (!r.spelled && !r.uses.some((u) => u.spelling)) return undefined;
    const notes: Unresolved[] = [];
    const note = (at: Reference, s: Spelling, ref: string) => {
      const message = trimmedRefWarning(s.column, at.space, s.written, ref);
      if (!notes.some((n) => n.message === message))
        notes.push({ ...at, ref: s.written, message, leftOut: false, trimmed: true });
    };
    for (const s of r.spelled ?? []) {
      const space = s.entity.name;
      if (this.inTenant.get(space)?.has(s.written) === true) {
        if (s.at >= 0) r.defines[s.at] = key(space, s.written);
        if (s.main) r.shownRef = s.written;
      } else {
        const field = s.entity.refField;
        note({ entity: s.entity, space, ref: s.ref, column: s.column ?? field, field }, s, s.ref);
      }
    }
    delete r.spelled;
    for (const u of r.uses) {
      if (!u.spelling) continue;
      if (this.knownRef(u.space, u.spelling.written)) u.ref = u.spelling.written;
      else note(u, u.spelling, u.ref);
      delete u.spelling;
    }
    return notes.length > 0 ? notes : undefined;
  }

  /** The attribute set ids the drafts write. */
  private setsOf(drafts: readonly Draft[]): SetUse[] | undefined {
    let out: SetUse[] | undefined;
    for (const d of drafts) {
      const entity = this.model.entity(d.entity);
      if (!entity) continue;
      for (const field of attributeSetFields(entity)) {
        const value = d.fields[field];
        if (value === undefined || value === null) continue;
        // The set named by its name too (`typ_name`, an export's column): the import writes the id the
        // name resolves to in this tenant, the file's id only tells two sets of one name apart.
        if (d.links.byField?.[field] !== undefined) continue;
        out ??= [];
        out.push({ value, field, column: d.source.columns[field] ?? field });
      }
    }
    return out;
  }

  /** Whether the tenant's sets are read and hold every id of the row (no allocation). */
  private setsKnown(values: readonly unknown[], count: number): boolean {
    if (!this.setIds) return false;
    for (let n = 0; n < count; n++) if (!hasSetId(this.setIds, values[n])) return false;
    return true;
  }

  /** The row's attribute set ids the tenant lacks, as the import fails them. */
  private unknownSets(r: RowRefs, out: Unresolved[]): void {
    for (const s of r.sets ?? NO_SETS) {
      if (this.setIds && hasSetId(this.setIds, s.value)) continue;
      out.push({
        entity: undefined,
        space: 'AttributeSets',
        ref: String(s.value),
        column: s.column,
        field: s.field,
        leftOut: false,
        message: unknownSetMessage(s.value),
        brief: UNKNOWN_SET_BRIEF,
      });
    }
  }

  /**
   * The drafts whose command the import checks against the tenant: NEW (the record must not exist),
   * UPDATE (it must), DELETE (nothing to delete when it does not). Other rows ask nothing.
   */
  private commandsOf(drafts: readonly Draft[]): CommandCheck[] | undefined {
    let out: CommandCheck[] | undefined;
    for (const d of drafts) {
      if (d.command !== 'NEW' && d.command !== 'UPDATE' && d.command !== 'DELETE') continue;
      const entity = this.model.entity(d.entity);
      if (!entity || !d.ref) continue;
      out ??= [];
      out.push({
        entity,
        ref: d.ref,
        command: d.command,
        column: d.source.columns[entity.refField] ?? entity.refField,
        ...(d.asWritten?.ref !== undefined && { written: d.asWritten.ref }),
      });
    }
    return out;
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
    let sets: SetUse[] | undefined;
    if (this.attributeSets)
      for (let n = 0; n < links.sets; n++) {
        const field = links.setFields[n]!;
        sets ??= [];
        sets.push({ value: links.setValues[n], field, column: headers?.[links.setAt[n]!] ?? field });
      }
    return {
      batch,
      ok: true,
      defines: [k],
      ranks: [rank],
      uses: uses.length ? uses : NO_USES,
      ...(sets && { sets }),
      location,
    };
  }

  /** Whether every link of a plain row names a record already known (no allocation: the common case). */
  knownLinks(entity: string, links: QuickLinks): boolean {
    if (links.sets > 0 && this.attributeSets && !this.setsKnown(links.setValues, links.sets)) return false;
    for (let n = 0; n < links.count; n++) {
      const target = this.linkTarget(entity, links.columns[n]!.link!);
      if (!target) continue;
      // A category's new parent: whether it moves the category below itself is told in `resolve`.
      if (this.categoryTree && target.kind === 'categories' && links.columns[n]!.link === 'parentRef')
        return false;
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
    // A ref the trim changed waits for `resolve`, which tells its spelling (and the import's warning).
    if (refs.spelled) return false;
    for (const u of refs.uses) if (!this.knownNow(u) || u.spelling) return false;
    for (const c of refs.commands ?? NO_COMMANDS) {
      if (!this.tenantKnows(c.entity.name, c.ref)) return false;
      if (c.written !== undefined && !this.tenantKnows(c.entity.name, c.written)) return false;
    }
    for (const s of refs.sets ?? NO_SETS) if (!this.setIds || !hasSetId(this.setIds, s.value)) return false;
    if (this.categoryTree && refs.uses.some((u) => u.category)) return false;
    return true;
  }

  /** Whether the tenant's answer for this ref is cached (found or not). */
  private tenantKnows(space: string, ref: string): boolean {
    return this.inTenant.get(space)?.has(ref) === true || this.notInTenant.get(space)?.has(ref) === true;
  }

  /**
   * The references of each row that the import would not resolve, in order; the records of the rows
   * that stay valid are noted for the rows after. `rows` are consecutive rows of the file, in order.
   */
  async resolve(rows: readonly RowRefs[]): Promise<Unresolved[][]> {
    // Records defined by these rows: where, in which batch, and (for the valid) that they will be written.
    let held = this.heldBy(rows);
    await this.askTenant(rows, held);
    // The refs the trim changed take the spelling the import would use: the rows' records may be others.
    const notes = rows.map((r) => this.spell(r));
    if (notes.some((n) => n !== undefined)) held = this.heldBy(rows);
    if (!this.setIds && this.attributeSets && rows.some((r) => r.sets))
      // Sets that cannot be read are not checked (the import's write then tells).
      this.setIds = await this.attributeSets().catch(() => ANY_SET);
    const cycles = await this.cyclesIn(rows);
    const moves = this.categoryTree ? await this.movesIn(rows, cycles) : undefined;
    const out: Unresolved[][] = [];
    rows.forEach((r, at) => {
      const missing: Unresolved[] = [];
      for (const u of r.uses) {
        // A category whose parents loop back among the rows: the import never writes it.
        const cycle = u.category ? cycles?.get(at) : undefined;
        if (cycle) {
          missing.push({ ...u, message: cycleMessage(u.ref, cycle), brief: CYCLE_BRIEF, leftOut: false });
          continue;
        }
        const below = u.category ? moves?.get(at) : undefined;
        if (below) {
          missing.push({ ...u, message: below, brief: BELOW_ITSELF_BRIEF, leftOut: false });
          continue;
        }
        const message = this.unresolved(u, r, at, rows, held);
        if (message) missing.push({ ...u, message, leftOut: u.entity === undefined });
      }
      this.unknownSets(r, missing);
      // A refused command fails (or skips) its draft alone: the row's other drafts are still written (a
      // variant row's product), and a NEW's record is the tenant's.
      let refusedUpdates: Set<string> | undefined;
      const linksResolve = missing.every((m) => m.leftOut);
      for (const c of r.commands ?? NO_COMMANDS) {
        const refused = this.commandRefused(c);
        if (!refused) continue;
        missing.push(refused);
        if (c.command !== 'UPDATE') continue;
        refusedUpdates ??= new Set();
        refusedUpdates.add(key(c.entity.name, c.ref));
      }
      // A ref read trimmed: the import's warning.
      if (notes[at]) missing.push(...notes[at]);
      out.push(missing);
      if (r.ok && linksResolve) for (const k of r.defines) if (!refusedUpdates?.has(k)) this.noteDefined(k);
    });
    return out;
  }

  /** The records the valid rows define: the first row of each, and its write order. */
  private heldBy(rows: readonly RowRefs[]): Map<string, { at: number; rank: number }> {
    const held = new Map<string, { at: number; rank: number }>();
    rows.forEach((r, at) => {
      if (!r.ok) return;
      r.defines.forEach((k, i) => {
        if (!held.has(k)) held.set(k, { at, rank: r.ranks[i]! });
      });
    });
    return held;
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

  /**
   * The category rows (by index) whose parents, followed through the rows held, loop back: the import
   * keeps them waiting for a parent id that never comes and fails them at the end of the file (its
   * `finish`, with the same chain). A category of the tenant breaks a loop (the import knows its id): the
   * refs of a loop are asked of the tenant (only when there is one: most files ask nothing here).
   */
  private async cyclesIn(rows: readonly RowRefs[]): Promise<Map<number, string[]> | undefined> {
    let waiting: Map<string, { at: number; parent: string }> | undefined;
    let categories: EntityModel | undefined;
    rows.forEach((r, at) => {
      if (!r.ok) return;
      for (const u of r.uses) {
        if (!u.category || !u.entity) continue;
        const self = this.selfRef(r, u.space);
        if (self === undefined) continue;
        categories = u.entity;
        waiting ??= new Map();
        waiting.set(self, { at, parent: u.ref });
      }
    });
    if (!waiting || !categories) return undefined;
    const space = categories.name;
    const parents = waiting;
    const parentOf = (ref: string) => {
      const w = parents.get(ref);
      return w && !this.knownRef(space, w.parent) ? w.parent : undefined;
    };
    const find = () => {
      let found: Map<number, string[]> | undefined;
      for (const [ref, w] of parents) {
        if (parentOf(ref) === undefined) continue;
        const chain = parentChain(ref, parentOf);
        if (!chain.cycle) continue;
        found ??= new Map();
        found.set(w.at, chain.path);
      }
      return found;
    };
    const found = find();
    if (!found || !this.lookup) return found;
    const ask = new Set<string>();
    for (const path of found.values())
      for (const ref of path) if (!this.tenantKnows(space, ref)) ask.add(ref);
    if (ask.size === 0) return found;
    await this.cacheTenant(space, categories, ask);
    return find();
  }

  /**
   * The category rows (by index) that move an existing category below itself or one of its descendants,
   * with the import's message: the rows in order, each move checked against the tenant's tree as the
   * rows before it leave it (a new category is placed under its parent; a move, once allowed, counts).
   */
  private async movesIn(
    rows: readonly RowRefs[],
    cycles: Map<number, string[]> | undefined,
  ): Promise<Map<number, string> | undefined> {
    const tree = this.categoryTree!;
    let categories: EntityModel | undefined;
    const named: Array<{ at: number; self: string; parentRef: string }> = [];
    rows.forEach((r, at) => {
      if (!r.ok || cycles?.has(at)) return;
      for (const u of r.uses) {
        if (!u.category || !u.entity) continue;
        categories = u.entity;
        const self = this.selfRef(r, u.space);
        if (self !== undefined) named.push({ at, self, parentRef: u.ref });
      }
    });
    if (!categories || named.length === 0) return undefined;
    const space = categories.name;
    // (askTenant asked these refs already, with the rows' other refs: this asks only what it left.)
    const ask = new Set<string>();
    for (const n of named)
      for (const ref of [n.self, n.parentRef]) if (!this.tenantKnows(space, ref)) ask.add(ref);
    if (ask.size > 0) await this.cacheTenant(space, categories, ask);
    // A category of the file the tenant lacks stands under the id a plan would give it.
    const idOf = (ref: string): CategoryId | undefined =>
      this.inTenant.get(space)?.has(ref) === true ? this.tenantIds.get(key(space, ref)) : undefined;
    const checks = named.map((n) => ({
      ...n,
      id: idOf(n.self),
      parent: idOf(n.parentRef) ?? plannedId(n.parentRef),
    }));
    // The ancestors of the new parents these rows give existing categories are read first, for all the
    // moves at once: one request per level of the tree (100 ids per request), where each row's own walk
    // cost one per level. They are read as the tree stands before these rows, so each row's walk below
    // finds what it passes cached: a move these rows allowed before it leads it to that move's parent,
    // read here too. A move below a category these rows create (before it) walks on through that
    // category's parent, from where its read starts. (The verdicts of this pass are not used: it does
    // not see the rows' own moves.)
    const reads: CategoryMove[] = [];
    const created = new Map<CategoryId, CategoryId>();
    for (const c of checks) {
      if (c.id === undefined) {
        created.set(plannedId(c.self), c.parent);
        continue;
      }
      let parent = c.parent;
      // (Bounded: a loop among new categories is a cycle, whose rows are left out above.)
      for (let n = 0; n < created.size && created.has(parent); n++) parent = created.get(parent)!;
      reads.push({ id: c.id, parent });
    }
    // A tree that cannot be read is not checked (the import's PATCH then tells).
    const readable =
      reads.length > 0 &&
      (await tree.belowItself(reads).then(
        () => true,
        () => false,
      ));
    const parentField = categoryParentField(categories);
    let found: Map<number, string> | undefined;
    for (const { at, self, parentRef, id, parent } of checks) {
      if (id === undefined) {
        tree.placed(plannedId(self), parent);
        continue;
      }
      const move = { id, parent };
      const refused = readable ? await tree.belowItself([move]).catch(() => undefined) : undefined;
      if (refused?.has(move)) {
        found ??= new Map();
        found.set(at, belowItselfMessage(parentField, id, parentRef));
      } else tree.placed(id, parent);
    }
    return found;
  }

  /** The ref of the record of `space` a row defines (a category row's own ref). */
  private selfRef(r: RowRefs, space: string): string | undefined {
    const prefix = `${space}\u0000`;
    const self = r.defines.find((k) => k.startsWith(prefix));
    return self?.slice(prefix.length);
  }

  /** What the import does with a command the tenant's record refuses (its wording), or undefined. */
  private commandRefused(c: CommandCheck): Unresolved | undefined {
    const inTenant = this.inTenant.get(c.entity.name);
    // The ref as the cell wrote it, when the tenant has that record: the one the import looks up.
    const ref = c.written !== undefined && inTenant?.has(c.written) === true ? c.written : c.ref;
    const exists = inTenant?.has(ref) === true;
    const at = {
      entity: c.entity,
      space: c.entity.name,
      ref,
      column: c.column,
      field: c.entity.refField,
    };
    const name = `${c.entity.refField} '${ref}'`;
    if (c.command === 'NEW' && exists) {
      const id = this.tenantIds.get(key(c.entity.name, ref));
      return {
        ...at,
        leftOut: false,
        message: `${name} already exists${id === undefined ? '' : ` (id ${id})`}; the row asks for a new record`,
        brief: 'already exists; the row asks for a new record',
      };
    }
    if (c.command === 'UPDATE' && !exists)
      return {
        ...at,
        leftOut: false,
        message: `${name} does not exist; the row asks to update it`,
        brief: 'does not exist; the row asks to update it',
      };
    if (c.command === 'DELETE' && !exists)
      return { ...at, leftOut: false, skips: true, message: `${name} does not exist: nothing to delete` };
    return undefined;
  }

  private knownNow(u: Reference): boolean {
    return this.knownRef(u.space, u.ref);
  }

  private knownRef(space: string, ref: string): boolean {
    return this.inFile.has(space, ref) || this.inTenant.get(space)?.has(ref) === true;
  }

  /**
   * The refs none of these rows (nor the file before them) defines, asked of the tenant 100 per request;
   * with the category tree checked, the category rows' own refs and parents' too (for movesIn).
   */
  private async askTenant(rows: readonly RowRefs[], held: Map<string, unknown>): Promise<void> {
    const ask = new Map<string, { entity: EntityModel | undefined; refs: Set<string> }>();
    const add = (space: string, entity: EntityModel | undefined, ref: string) => {
      const asked = ask.get(space) ?? { entity, refs: new Set<string>() };
      asked.refs.add(ref);
      ask.set(space, asked);
    };
    for (const r of rows) {
      // A command's record is asked of the tenant even when the file defines it: the import looks it up.
      for (const c of r.commands ?? NO_COMMANDS)
        for (const ref of c.written === undefined ? [c.ref] : [c.ref, c.written])
          if (!this.tenantKnows(c.entity.name, ref)) add(c.entity.name, c.entity, ref);
      // A ref the trim changed is asked as the cell wrote it, with the rest (`spell`).
      for (const s of r.spelled ?? [])
        if (!this.tenantKnows(s.entity.name, s.written)) add(s.entity.name, s.entity, s.written);
      for (const u of r.uses) {
        if (u.entity ? !this.lookup : !this.damLookup) continue;
        if (u.spelling && !this.tenantKnows(u.space, u.spelling.written))
          add(u.space, u.entity, u.spelling.written);
        // A category row's own ref and its parent's, defined by the file or not: the move check needs
        // their ids (movesIn), asked here with the rest rather than in a request of its own.
        if (u.category && this.categoryTree) {
          const self = this.selfRef(r, u.space);
          if (self !== undefined)
            for (const ref of [self, u.ref]) if (!this.tenantKnows(u.space, ref)) add(u.space, u.entity, ref);
        }
        if (this.knownNow(u) || this.notInTenant.get(u.space)?.has(u.ref)) continue;
        if (held.has(key(u.space, u.ref))) continue;
        add(u.space, u.entity, u.ref);
      }
    }
    for (const [space, { entity, refs }] of ask) await this.cacheTenant(space, entity, refs);
  }

  /** Asks the tenant (or the DAM) about these refs of one space, and keeps the answers. */
  private async cacheTenant(
    space: string,
    entity: EntityModel | undefined,
    refs: Set<string>,
  ): Promise<void> {
    const found = entity
      ? await this.lookup!(entity, [...refs])
      : await this.damLookup!(space === 'dam:file' ? 'file' : 'image', [...refs]);
    if (this.cached + refs.size > CACHE_LIMIT) {
      this.inTenant.clear();
      this.notInTenant.clear();
      this.tenantIds.clear();
      this.cached = 0;
    }
    for (const ref of refs) {
      if (found instanceof Map) {
        const id = found.get(ref);
        if (id !== undefined) this.tenantIds.set(key(space, ref), id);
      }
      const cache = found.has(ref) ? this.inTenant : this.notInTenant;
      const known = cache.get(space) ?? new Set<string>();
      cache.set(space, known);
      known.add(ref);
    }
    this.cached += refs.size;
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
      // A ref the trim changed, checked against a tenant: `spell` tells the import's spelling.
      const written = this.lookup ? d.asWritten?.links?.[ref] : undefined;
      out.push({
        entity: target,
        space: target.name,
        ref,
        field: target.refField,
        column,
        rank,
        category,
        ...(written !== undefined && { spelling: { written, column: d.source.columns[link] } }),
      });
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
      // A name the catalog refuses is the asset check's (`a.unusable`): no lookup.
      if (a.url !== undefined || a.unusable !== undefined) continue;
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
