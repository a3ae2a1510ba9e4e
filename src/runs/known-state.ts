// What the last imports left on the tenant, per tenant and entity: ref -> id and a hash of the fields
// the feed manages (`.catalog-io/state/<tenant>/<entity>.jsonl`). A row whose hash is the one recorded,
// on a record the tenant has not touched since, is unchanged without a lookup. What the tenant touched
// comes from the entity's changelog since the last run (creations and modifications); deletions,
// which the changelog never shows, from the collection's `@count`. Any doubt (no state, another
// profile or schema, a state too old, a changelog too long to read cheaply, a count that does not
// add up, `--full-compare`) and the state is not used: every row is looked up, and the results become
// the new state.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CatalogClient } from '../api/catalog.js';
import { gt } from '../api/filter.js';
import type { Draft } from '../mappers/types.js';
import type { EntityModel } from '../schema/model.js';

const VERSION = 1;
/** A state older than this is not trusted (the changelog may not reach back that far). */
const MAX_AGE_MS = 30 * 24 * 3600 * 1000;
/** Beyond this many records the state is not kept (it lives in memory while a run uses it). */
const MAX_ENTRIES = 1_000_000;
/** The changelog is read only while that costs less than a quarter of looking every record up. */
const CHANGELOG_SHARE = 4;
/** Characters of the hash kept per record. */
const HASH_LENGTH = 16;

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
}

export interface Unchanged {
  draft: Draft;
  id: number | string;
}

export class KnownState {
  /** ref -> hash (HASH_LENGTH characters) followed by the id as JSON. */
  private readonly records = new Map<string, string>();
  private deleted = 0;
  private written = 0;
  private readonly decided = new WeakMap<Draft, number | string | undefined>();
  private disabled = false;

  private constructor(
    private readonly file: string,
    private readonly basis: string,
    private readonly entity: EntityModel,
    private readonly start: { cursor: number | null; count: number | null },
    /** Why the recorded state was not used, when it was not. */
    readonly note: string | undefined,
  ) {}

  /** Reads the state and what changed on the tenant since; 2 requests when nothing did. */
  static async open(options: KnownStateOptions): Promise<KnownState> {
    const { entity, catalog } = options;
    const file = path.join(
      options.stateDir,
      'state',
      safeName(options.tenant),
      `${safeName(entity.name)}.jsonl`,
    );
    const basis = hashText(
      JSON.stringify({ profile: options.profileHash, schema: entity.schema ?? fieldsOf(entity) }),
    );
    const count = await collectionCount(catalog, entity);
    const saved = options.fullCompare ? undefined : readState(file);
    let doubt: string | undefined;
    if (options.fullCompare) doubt = '--full-compare';
    else if (!saved) doubt = 'no state from an earlier run';
    else if (saved.header.basis !== basis) doubt = 'the profile or the schema changed since the last run';
    else if (Date.now() - Date.parse(saved.header.savedAt) > MAX_AGE_MS)
      doubt = 'the state is older than 30 days';
    else if (saved.header.cursor === null || saved.header.count === null || count === undefined)
      doubt = 'the last run could not note where the changelog stood';

    if (doubt || !saved) {
      const cursor = await newestEntry(catalog, entity);
      return new KnownState(file, basis, entity, { cursor, count: count ?? null }, doubt);
    }
    const budget = Math.max(5, Math.ceil(saved.records.size / 100 / CHANGELOG_SHARE)) * 100;
    // The last run's own writes are in the changelog too: when they alone pass the budget, do not read.
    const since =
      (saved.header.written ?? 0) > budget
        ? 'too-many'
        : await changesSince(catalog, entity, saved.header.cursor!, budget);
    const cursor =
      since === 'too-many' ? await newestEntry(catalog, entity) : (since.newest ?? saved.header.cursor);
    const state = (note?: string) =>
      new KnownState(file, basis, entity, { cursor, count: count ?? null }, note);
    if (since === 'too-many')
      return state('more changed on the tenant since the last run than is worth reading');
    // Now = then + created since (by that run too) - deleted by that run; anything else: deleted since.
    if (count !== saved.header.count! + since.created.size - saved.header.deleted)
      return state('records were deleted on the tenant since the last run');
    const known = state();
    for (const [ref, value] of saved.records) {
      const id = JSON.parse(value.slice(HASH_LENGTH)) as number | string;
      if (!since.touched.has(id)) known.records.set(ref, value);
    }
    return known;
  }

  /** The drafts that are as the last run left them (their id known), and the rest, to look up. */
  filterUnchanged(drafts: readonly Draft[]): { unchanged: Unchanged[]; rest: Draft[] } {
    const unchanged: Unchanged[] = [];
    const rest: Draft[] = [];
    for (const draft of drafts) {
      const id = this.vouchedId(draft);
      if (id !== undefined) unchanged.push({ draft, id });
      else rest.push(draft);
    }
    return { unchanged, rest };
  }

  /** How many of these drafts need a lookup. */
  toLookUp(drafts: readonly Draft[]): number {
    let n = 0;
    for (const draft of drafts) if (this.vouchedId(draft) === undefined) n += 1;
    return n;
  }

  /** The id of a draft that is as the last run left it (decided once per draft). */
  private vouchedId(draft: Draft): number | string | undefined {
    if (this.decided.has(draft)) return this.decided.get(draft);
    const value = this.eligible(draft) ? this.records.get(draft.ref) : undefined;
    const id =
      value !== undefined && value.slice(0, HASH_LENGTH) === draftHash(draft)
        ? (JSON.parse(value.slice(HASH_LENGTH)) as number | string)
        : undefined;
    this.decided.set(draft, id);
    return id;
  }

  /** What a write left: the draft's fields are now the record's (or, failed, unknown; deleted, gone). */
  record(draft: Draft, outcome: string, id: number | string | undefined): void {
    if (draft.entity !== this.entity.name || this.disabled) return;
    if ((outcome === 'created' || outcome === 'updated' || outcome === 'unchanged') && id !== undefined) {
      if (outcome !== 'unchanged') this.written += 1;
      if (!this.eligible(draft)) this.records.delete(draft.ref);
      else this.records.set(draft.ref, draftHash(draft) + JSON.stringify(id));
      if (this.records.size > MAX_ENTRIES) this.disabled = true;
    } else {
      if (outcome === 'deleted') this.deleted += 1;
      this.records.delete(draft.ref);
    }
  }

  /** Something the state cannot follow happened (a full sync's deletions): the next run looks up. */
  distrust(): void {
    this.disabled = true;
  }

  /** Writes the state for the next run (atomically). */
  save(): void {
    const { cursor, count } = this.start;
    const header: Header = {
      version: VERSION,
      basis: this.basis,
      savedAt: new Date().toISOString(),
      cursor: this.disabled ? null : cursor,
      count: this.disabled ? null : count,
      deleted: this.deleted,
      written: this.written,
      records: this.disabled ? 0 : this.records.size,
    };
    const lines = [JSON.stringify(header)];
    if (!this.disabled) for (const [ref, value] of this.records) lines.push(JSON.stringify([ref, value]));
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${lines.join('\n')}\n`);
    renameSync(tmp, this.file);
  }

  /** Drafts whose image or file URLs are registered by the run are always looked up. */
  private eligible(draft: Draft): boolean {
    return (
      draft.entity === this.entity.name &&
      (draft.command === 'MERGE' || draft.command === 'UPDATE') &&
      !draft.assets.some((a) => a.url !== undefined)
    );
  }
}

/** The fields a draft manages, hashed: values, other languages and links by ref. */
export function draftHash(draft: Draft): string {
  return hashText(stableJson([draft.fields, draft.cultures, draft.links]));
}

function readState(file: string): { header: Header; records: Map<string, string> } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const lines = text.split('\n');
    const header = JSON.parse(lines[0]!) as Header;
    if (header.version !== VERSION || header.records > MAX_ENTRIES) return undefined;
    const records = new Map<string, string>();
    for (let i = 1; i < lines.length; i++) {
      if (lines[i] === '') continue;
      const [ref, value] = JSON.parse(lines[i]!) as [string, string];
      records.set(ref, value);
    }
    // A file cut short is not the state a run left.
    return records.size === header.records ? { header, records } : undefined;
  } catch {
    return undefined;
  }
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

/** Items created or modified after `cursor`, or 'too-many' once more than `budget` entries came. */
async function changesSince(
  catalog: CatalogClient,
  entity: EntityModel,
  cursor: number,
  budget: number,
): Promise<
  { touched: Set<number | string>; created: Set<number | string>; newest: number | undefined } | 'too-many'
> {
  const touched = new Set<number | string>();
  const created = new Set<number | string>();
  let newest: number | undefined;
  let entries = 0;
  for await (const entry of catalog.changelog<{ id?: unknown; item_id?: unknown; operation?: unknown }>(
    entity.path,
    { filter: gt('id', cursor), orderby: 'id asc' },
  )) {
    if (++entries > budget) return 'too-many';
    const item = entry.item_id;
    if (typeof item !== 'number' && typeof item !== 'string') return 'too-many';
    touched.add(item);
    if (entry.operation === 'created') created.add(item);
    if (typeof entry.id === 'number') newest = Math.max(newest ?? entry.id, entry.id);
  }
  return { touched, created, newest };
}

function fieldsOf(entity: EntityModel): unknown {
  return entity.fields.map((f) => JSON.stringify(f));
}

function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

/** JSON with object keys sorted, so the same values hash the same whatever the column order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function safeName(name: string): string {
  return encodeURIComponent(name).replace(/[%*'()!~]/g, '_');
}
