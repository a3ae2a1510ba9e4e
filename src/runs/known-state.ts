// What the last imports left on the tenant, per tenant and entity: ref -> id and a hash of the fields
// the feed manages (`.catalog-io/state/<tenant>/<entity>.state`, an on-disk table: state-store.ts). A
// row whose hash is the one recorded, on a record the tenant has not touched since, is unchanged
// without a lookup. What the tenant touched comes from the entity's changelog since the last run
// (creations and modifications); deletions, which the changelog never shows, from the collection's
// `@count`. Any doubt (no state, another profile or schema, a state too old, a changelog too long to
// read cheaply, a count that does not add up, `--full-compare`) and the state is not used: every row
// is looked up, and the results become the new state.
//
// Another entity the run's rows draft (a products run's variants) has a state of its own, kept in
// `<entity of the run>.<entity>.state`. It costs the same 2 requests, so it is used only when looking its
// records up would cost more: the last run's count of them, 100 per lookup, one lookup per language.
// Otherwise its records are looked up, and the state file keeps only that count for the next run.
//
// A row naming image URLs is vouched for too, when every URL is one the asset cache, checked against
// the DAM this run, says resolved to the name the row gives (assets.ts, asset-mark.ts); its hash then
// covers the URLs as well. File URLs are always looked up.
//
// A run works on a copy of the state (or a new one) in a file of its own and renames it over the
// state when it ends: a run that crashes leaves the last state as it was, which still holds (its
// changelog mark is older than anything the crashed run wrote).
import { hash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { CatalogClient } from '../api/catalog.js';
import { ge, gt } from '../api/filter.js';
import type { Draft } from '../mappers/types.js';
import type { EntityModel } from '../schema/model.js';
import { pauseAt } from './pause.js';
import {
  MAX_VALUE,
  readTableHeader,
  removeAbandoned,
  SlotTable,
  syncFolder,
  workName,
} from './state-store.js';

const VERSION = 2;
/** A state older than this is not trusted (the changelog may not reach back that far). */
const MAX_AGE_MS = 30 * 24 * 3600 * 1000;
/** Beyond this many records the state is not kept (5 to 9 GB on disk; memory does not grow with it). */
const MAX_ENTRIES = 50_000_000;
/** What checking a state costs when nothing changed: the count and one changelog page. */
const STATE_COST = 2;
/** Doubts that are every first run's, or asked for. */
const NO_STATE = 'no state from an earlier run';
const FULL_COMPARE = '--full-compare';
/** The changelog is read only while that costs less than a quarter of looking every record up. */
const CHANGELOG_SHARE = 4;
/** At most this many changelog entries are read: the ids they name are held in memory. */
const MAX_CHANGELOG = 200_000;
/** Bytes of the fields' hash kept per record (64 bits: a changed row passing for unchanged is 1 in 2^64). */
const HASH_BYTES = 8;
/**
 * This run's writes wait in memory until there are this many (about 2 MB), then go into the table in
 * its order: a page is then read and written once for all its writes, not once for each.
 */
const PENDING_LIMIT = 16_384;
/** An id longer than this as JSON is not kept (its row is looked up each run); a GUID's 38 fit. */
const MAX_ID = MAX_VALUE - HASH_BYTES;
/** The state from before the on-disk table: not read, removed when a new state is saved. */
const LEGACY_SUFFIX = '.jsonl';

interface Header {
  version: number;
  /** Hash of the profile, the mode and the entity's schema the hashes were computed with. */
  basis: string;
  savedAt: string;
  /** Newest changelog entry id when the run that wrote this file started (-1: none yet). */
  cursor: number | null;
  /** `@count` of the collection then. */
  count: number | null;
  /** Records that run deleted. */
  deleted: number;
  /** Records that run created or updated: the changelog since holds at least as many entries. */
  written: number;
  records: number;
  /** Records of the entity the run wrote or found unchanged (drafts; a record twice counts twice). */
  seen?: number;
  /** Reads a lookup of 100 of its drafts took: one, and one per other language they carried. */
  reads?: number;
}

export interface KnownStateOptions {
  /** The `.catalog-io` folder. */
  stateDir: string;
  tenant: string;
  entity: EntityModel;
  catalog: CatalogClient;
  /** What the hashes depend on besides the rows: the profile and mode. */
  profileHash: string;
  /** Ignore what is recorded (every row is looked up); the run's results still become the new state. */
  fullCompare?: boolean;
  /**
   * The entity of the run, when `entity` is another one its rows draft (a products run's variants): the
   * state is then `<owner>.<entity>.state`, and used only when it costs less than looking its records up.
   */
  owner?: string;
}

/** What the checked asset cache vouches for: the DAM reference an image URL resolved to. */
export interface AssetVouch {
  vouchedReference(kind: 'image' | 'file', url: string): string | undefined;
}

export interface Unchanged {
  draft: Draft;
  id: number | string;
}

export class KnownState {
  private deleted = 0;
  private written = 0;
  private readonly decided = new WeakMap<Draft, number | string | undefined>();
  /** ref -> what this run's write left (null: nothing to keep), not yet in the table. */
  private readonly pending = new Map<string, Buffer | null>();
  private disabled = false;

  /** Nothing a person needs telling: a first run, --full-compare, or a feed too small for a state. */
  get untold(): boolean {
    return this.disabled || this.note === undefined || this.note === NO_STATE || this.note === FULL_COMPARE;
  }
  private saved = false;
  /** Drafts recorded as written or unchanged, and the most reads a lookup of them takes. */
  private seen = 0;
  private reads = 1;
  /** Set once the asset cache is checked this run: rows naming image URLs wait for it. */
  private assets: AssetVouch | undefined;

  private constructor(
    private readonly file: string,
    /** This run's state, in a file of its own until save(); none once it is not kept. */
    private table: SlotTable | undefined,
    private readonly basis: string,
    private readonly entity: EntityModel,
    private readonly start: { cursor: number | null; count: number | null },
    /** Why the recorded state was not used, when it was not. */
    readonly note: string | undefined,
  ) {}

  /**
   * Reads the state and what changed on the tenant since; 2 requests when nothing did. Another entity's
   * state (`owner`) that would cost more than looking its records up: none, and it is not used.
   */
  static async open(options: KnownStateOptions): Promise<KnownState> {
    const { entity, catalog } = options;
    const dir = tenantStateDir(options.stateDir, options.tenant);
    const base =
      options.owner === undefined
        ? safeName(entity.name)
        : `${safeName(options.owner)}.${safeName(entity.name)}`;
    const file = path.join(dir, `${base}.state`);
    const basis = hashText(
      JSON.stringify({ profile: options.profileHash, schema: entity.schema ?? fieldsOf(entity) }),
    );
    if (options.owner !== undefined) {
      const last = readTableHeader<Header>(file)?.meta;
      const lookups = last ? lookupsOf(last) : undefined;
      if (lookups !== undefined && lookups <= STATE_COST) {
        mkdirSync(dir, { recursive: true });
        const sizing = new KnownState(
          file,
          undefined,
          basis,
          entity,
          { cursor: null, count: null },
          `looking its records up (${lookups} request${lookups === 1 ? '' : 's'} last run) costs no more than checking the state (${STATE_COST})`,
        );
        sizing.disabled = true;
        return sizing;
      }
    }
    const count = await collectionCount(catalog, entity);
    const saved = options.fullCompare ? undefined : readTableHeader<Header>(file)?.meta;
    let doubt: string | undefined;
    if (options.fullCompare) doubt = FULL_COMPARE;
    else if (!saved || saved.version !== VERSION || saved.records > MAX_ENTRIES) doubt = NO_STATE;
    else if (saved.basis !== basis) doubt = 'the profile or the schema changed since the last run';
    else if (Date.now() - Date.parse(saved.savedAt) > MAX_AGE_MS) doubt = 'the state is older than 30 days';
    else if (saved.cursor === null || saved.count === null || count === undefined)
      doubt = 'the last run could not note where the changelog stood';

    mkdirSync(dir, { recursive: true });
    removeAbandoned(dir, base);
    const work = path.join(dir, workName(base));
    // A new state is sized like the last one: a re-import of the same feed need not grow it.
    const expected = Math.min(MAX_ENTRIES, readTableHeader(file)?.live ?? 0);
    const fresh = (cursor: number | null, note: string | undefined) =>
      new KnownState(
        file,
        SlotTable.create(work, expected),
        basis,
        entity,
        { cursor, count: count ?? null },
        note,
      );
    if (doubt || !saved) return fresh(await newestEntry(catalog, entity), doubt);

    const budget = Math.min(
      MAX_CHANGELOG,
      Math.max(5, Math.ceil(saved.records / 100 / CHANGELOG_SHARE)) * 100,
    );
    // The last run's own writes are in the changelog too: when they alone pass the budget, do not read.
    const since =
      (saved.written ?? 0) > budget ? 'too-many' : await changesSince(catalog, entity, saved.cursor!, budget);
    if (since === 'too-many')
      return fresh(
        await newestEntry(catalog, entity),
        'more changed on the tenant since the last run than is worth reading',
      );
    // The changelog keeps every creation and modification: fewer entries than the last run's own writes,
    // or its newest entry gone, mean the tenant was reset or restored since.
    if (since === 'rewound' || since.entries < (saved.written ?? 0))
      return fresh(
        await newestEntry(catalog, entity),
        "the tenant's changelog no longer holds the last run's writes: it was reset or restored since",
      );
    const cursor = since.newest ?? saved.cursor;
    // Now = then + created since (by that run too) - deleted by that run; anything else: deleted since.
    if (count !== saved.count! + since.created.size - saved.deleted)
      return fresh(cursor, 'records were deleted on the tenant since the last run');
    const table = SlotTable.copy(file, work);
    try {
      if (since.touched.size > 0) table.retain((value) => !since.touched.has(idOf(value)));
    } catch (err) {
      table.remove();
      throw err;
    }
    return new KnownState(file, table, basis, entity, { cursor, count: count ?? null }, undefined);
  }

  /** The drafts that are as the last run left them (their id known), and the rest, to look up. */
  filterUnchanged(drafts: readonly Draft[]): { unchanged: Unchanged[]; rest: Draft[] } {
    const unchanged: Unchanged[] = [];
    const rest: Draft[] = [];
    for (const draft of drafts) {
      const id = this.unchangedId(draft);
      if (id !== undefined) unchanged.push({ draft, id });
      else rest.push(draft);
    }
    return { unchanged, rest };
  }

  /** The asset cache, checked against the DAM: rows naming image URLs may now be vouched for. */
  useAssets(assets: AssetVouch): void {
    this.assets = assets;
  }

  /** How many of these drafts need a lookup. */
  toLookUp(drafts: readonly Draft[]): number {
    let n = 0;
    for (const draft of drafts) if (this.unchangedId(draft) === undefined) n += 1;
    return n;
  }

  /** The id of a draft that is as the last run left it (decided once per draft); undefined: look it up. */
  unchangedId(draft: Draft): number | string | undefined {
    if (this.decided.has(draft)) return this.decided.get(draft);
    let id: number | string | undefined;
    const urls = draft.assets.some((a) => a.url !== undefined);
    // Not decided yet: the asset cache is checked when the batch runs (counted as a lookup till then).
    if (urls && !this.assets) return undefined;
    if (this.table && this.eligible(draft) && (!urls || this.imagesVouched(draft))) {
      try {
        const waiting = this.pending.get(draft.ref);
        const value = waiting === undefined ? this.table.get(refKey(draft.ref)) : waiting;
        if (value && value.compare(draftHash(draft), 0, HASH_BYTES, 0, HASH_BYTES) === 0) id = idOf(value);
      } catch {
        // The state file could not be read: this run looks every row up and keeps no state.
        this.stopKeeping();
      }
    }
    this.decided.set(draft, id);
    if (id !== undefined) this.noteSeen(draft);
    return id;
  }

  /** A record of the run: counted, with the reads a lookup of it would take, for the next run's choice. */
  private noteSeen(draft: Draft): void {
    this.seen += 1;
    this.reads = Math.max(this.reads, 1 + Object.keys(draft.cultures).length);
  }

  /** What a write left: the draft's fields are now the record's (or, failed, unknown; deleted, gone). */
  record(draft: Draft, outcome: string, id: number | string | undefined): void {
    if (draft.entity !== this.entity.name) return;
    if (outcome === 'created' || outcome === 'updated' || outcome === 'unchanged') this.noteSeen(draft);
    if (!this.table) return;
    let value: Buffer | null = null;
    if ((outcome === 'created' || outcome === 'updated' || outcome === 'unchanged') && id !== undefined) {
      if (outcome !== 'unchanged') this.written += 1;
      const idText = JSON.stringify(id);
      const idBytes = Buffer.byteLength(idText);
      if (this.eligible(draft) && idBytes <= MAX_ID) {
        value = Buffer.allocUnsafe(HASH_BYTES + idBytes);
        draftHash(draft).copy(value, 0, 0, HASH_BYTES);
        value.write(idText, HASH_BYTES);
      }
    } else if (outcome === 'deleted') this.deleted += 1;
    this.pending.set(draft.ref, value);
    if (this.pending.size >= PENDING_LIMIT) this.applyPending();
  }

  /** The writes waiting in memory go into the table, in the table's order (by the key's top bits). */
  private applyPending(): void {
    const table = this.table;
    if (!table) return;
    try {
      const writes = [...this.pending].map(([ref, value]) => ({ key: refKey(ref), value }));
      writes.sort((a, b) => a.key.readUInt32BE(0) - b.key.readUInt32BE(0));
      table.reserve(writes.length);
      for (const { key, value } of writes) {
        if (value) table.set(key, value);
        else table.delete(key);
      }
      this.pending.clear();
      if (table.size > MAX_ENTRIES) this.stopKeeping();
    } catch {
      // Full (MAX_ENTRIES, the disk): the next run looks every row up.
      this.stopKeeping();
    }
  }

  /** Something the state cannot follow happened (a full sync's deletions): the next run looks up. */
  distrust(): void {
    this.stopKeeping();
  }

  /** Makes this run's state the one the next run reads: written out, then renamed over the last one. */
  async save(): Promise<void> {
    if (this.saved) return;
    this.saved = true;
    this.applyPending();
    const { cursor, count } = this.start;
    // A state not kept is saved empty, with no changelog mark: the next run cannot use it.
    const table = this.table ?? SlotTable.create(path.join(path.dirname(this.file), workName(this.base)));
    this.table = undefined;
    const header: Header = {
      version: VERSION,
      basis: this.basis,
      savedAt: new Date().toISOString(),
      cursor: this.disabled ? null : cursor,
      count: this.disabled ? null : count,
      deleted: this.deleted,
      written: this.written,
      records: table.size,
      seen: this.seen,
      reads: this.reads,
    };
    try {
      table.commit(header);
      await pauseAt('state');
      renameSync(table.file, this.file);
    } catch (err) {
      table.remove();
      throw err;
    }
    table.close();
    syncFolder(path.dirname(this.file));
    rmSync(path.join(path.dirname(this.file), `${this.base}${LEGACY_SUFFIX}`), { force: true });
  }

  /** A run that failed outright: its unfinished state goes, the last one stays. */
  discard(): void {
    this.table?.remove();
    this.table = undefined;
    this.pending.clear();
  }

  private get base(): string {
    return path.basename(this.file, '.state');
  }

  private stopKeeping(): void {
    this.disabled = true;
    this.discard();
  }

  /** Drafts that name file URLs are always looked up (the DAM cannot say cheaply what changed in files). */
  private eligible(draft: Draft): boolean {
    return (
      draft.entity === this.entity.name &&
      // A ref the trim changed is looked up each time: the tenant's spelling decides (ref-spelling.ts).
      draft.asWritten === undefined &&
      (draft.command === 'MERGE' || draft.command === 'UPDATE') &&
      !draft.assets.some((a) => a.url !== undefined && a.kind !== 'image')
    );
  }

  /** Every image URL of the draft resolved, by the checked cache, to the name the draft gives. */
  private imagesVouched(draft: Draft): boolean {
    const assets = this.assets;
    if (!assets) return false;
    for (const a of draft.assets)
      if (a.url !== undefined && assets.vouchedReference(a.kind, a.url) !== a.name) return false;
    return true;
  }
}

/** The fields a draft manages, hashed (its first HASH_BYTES bytes are kept): values, other languages, links by ref. */
export function draftHash(draft: Draft): Buffer {
  const parts: unknown[] = [draft.fields, draft.cultures, draft.links];
  // The URLs too: another URL under the same file name would be registered again by a looked-up run.
  if (draft.assets.some((a) => a.url !== undefined)) parts.push(draft.assets.map((a) => a.url ?? null));
  return hash('sha256', stableJson(parts), 'buffer');
}

/**
 * A ref's key in the table: the first 128 bits of its SHA-256 (the table reads no more). Two refs of
 * one entity share a key with odds of about n^2 / 2^129 (below 1 in 10^22 for 50 million refs), so a
 * key stands for its ref.
 */
function refKey(ref: string): Buffer {
  return hash('sha256', ref, 'buffer');
}

function idOf(value: Buffer): number | string {
  return JSON.parse(value.subarray(HASH_BYTES).toString('utf8')) as number | string;
}

/** `@count` of the whole collection (one request), or undefined when the service does not say. */
async function collectionCount(catalog: CatalogClient, entity: EntityModel): Promise<number | undefined> {
  const body = await catalog.get<{ '@count'?: unknown }>(entity.path, {
    query: { $top: 1, $select: entity.idField },
  });
  const count = body?.['@count'];
  return typeof count === 'number' ? count : undefined;
}

/** The newest changelog entry's id (one request): -1 when the changelog is empty, null when not a number. */
async function newestEntry(catalog: CatalogClient, entity: EntityModel): Promise<number | null> {
  for await (const entry of catalog.changelog<{ id?: unknown }>(entity.path, {
    orderby: 'id desc',
    pageSize: 1,
  })) {
    return typeof entry.id === 'number' ? entry.id : null;
  }
  return -1;
}

/**
 * Items created or modified after `cursor`, or 'too-many' once more than `budget` entries came, or
 * 'rewound' when the changelog no longer holds the entry at `cursor` (the tenant was reset or restored:
 * the entry is read with the others, at no cost of its own).
 */
async function changesSince(
  catalog: CatalogClient,
  entity: EntityModel,
  cursor: number,
  budget: number,
): Promise<
  | {
      touched: Set<number | string>;
      created: Set<number | string>;
      newest: number | undefined;
      entries: number;
    }
  | 'too-many'
  | 'rewound'
> {
  const touched = new Set<number | string>();
  const created = new Set<number | string>();
  let newest: number | undefined;
  let entries = 0;
  let first = true;
  for await (const entry of catalog.changelog<{ id?: unknown; item_id?: unknown; operation?: unknown }>(
    entity.path,
    { filter: cursor >= 0 ? ge('id', cursor) : gt('id', cursor), orderby: 'id asc' },
  )) {
    if (first && cursor >= 0) {
      first = false;
      if (entry.id !== cursor) return 'rewound';
      continue;
    }
    if (++entries > budget) return 'too-many';
    const item = entry.item_id;
    if (typeof item !== 'number' && typeof item !== 'string') return 'too-many';
    touched.add(item);
    if (entry.operation === 'created') created.add(item);
    if (typeof entry.id === 'number') newest = Math.max(newest ?? entry.id, entry.id);
  }
  if (first && cursor >= 0) return 'rewound';
  return { touched, created, newest, entries };
}

/** Requests a run would spend looking up the records the last run kept or saw, 100 per lookup. */
function lookupsOf(last: Header): number {
  const records = Math.max(last.records ?? 0, last.seen ?? 0);
  return Math.ceil(records / 100) * Math.max(1, last.reads ?? 1);
}

function fieldsOf(entity: EntityModel): unknown {
  return entity.fields.map((f) => JSON.stringify(f));
}

function hashText(text: string): string {
  return hash('sha256', text, 'hex').slice(0, 16);
}

/** JSON with object keys sorted, so the same values hash the same whatever the column order. */
function stableJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? '';
  // Loops rather than map/join: this runs for every row of a run.
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + stableJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  out = '{';
  let first = true;
  for (const k of Object.keys(record).sort()) {
    if (record[k] === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${stableJson(record[k])}`;
    first = false;
  }
  return `${out}}`;
}

/** The folder of a tenant's import states. */
export function tenantStateDir(stateDir: string, tenant: string): string {
  return path.join(stateDir, 'state', safeName(tenant));
}

function safeName(name: string): string {
  return encodeURIComponent(name).replace(/[%*'()!~]/g, '_');
}
