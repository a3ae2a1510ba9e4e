// Reading what the tenant already has, by ref: whole records for the diff (100 refs per request, one
// read per language the drafts carry) and bare ids for links, remembered for the rest of the run.
// In a plan, what the plan would have written so far (`planned.ts`) is laid over what the tenant holds.
import type { CatalogClient } from '../../api/catalog.js';
import { setBounded } from '../../bounded-map.js';
import type { Draft } from '../../mappers/types.js';
import type { EntityModel, TenantModel } from '../../schema/model.js';
import { readAttributeSets } from '../structure/read.js';
import type { AttributeSetDoc } from '../structure/types.js';
import { setIdsOf } from './attribute-set-check.js';
import { CategoryTree } from './category-tree.js';
import type { ExistingRecord, FieldChange } from './diff.js';
import { isPlannedId, type PlannedRecords, plannedId } from './planned.js';
import { settleOwnRef } from './ref-spelling.js';

/** How many ref -> id pairs of this run are remembered per entity (later links then cost a lookup). */
const ID_CACHE_LIMIT = 100_000;

export class RecordLookup {
  /** entity name -> ref -> id, for links to records written or seen in this run. */
  private readonly ids = new Map<string, Map<string, number | string>>();

  /** The categories' parents, for the moves of existing categories (read when a row moves one). */
  private tree: CategoryTree | undefined;

  /** The tenant's attribute sets, read once per run (the sets are few), and what is made of them. */
  private sets: Promise<AttributeSetDoc[]> | undefined;
  private setsByName: Promise<Map<string, Array<number | null>>> | undefined;
  private setIds: Promise<ReadonlySet<number>> | undefined;

  constructor(
    private readonly catalog: CatalogClient,
    private readonly model: TenantModel,
    /** A plan: the writes it would have sent so far. */
    private readonly planned?: PlannedRecords,
  ) {}

  /**
   * The tenant's attribute sets by name (one request per run): `typ_name` columns resolve through it.
   * The service allows two sets of one name: a name maps to every set's id, in the tenant's order. In a
   * plan, a set the plan's structure would create resolves to null (its id is not known yet).
   */
  setIdsByName(): Promise<Map<string, Array<number | null>>> {
    this.setsByName ??= this.tenantSets().then((sets) => {
      const byName = new Map<string, Array<number | null>>();
      for (const set of sets) {
        if (set.identifier === undefined) continue;
        const ids = byName.get(set.name);
        if (ids) ids.push(set.identifier);
        else byName.set(set.name, [set.identifier]);
      }
      for (const name of this.planned?.attributeSets ?? []) if (!byName.has(name)) byName.set(name, [null]);
      return byName;
    });
    return this.setsByName;
  }

  /**
   * The ids of the tenant's attribute sets, for the `typ_id` values a write gives: made once per run,
   * from the same read as setIdsByName (not once per write batch).
   */
  tenantSetIds(): Promise<ReadonlySet<number>> {
    this.setIds ??= this.tenantSets().then(setIdsOf);
    return this.setIds;
  }

  private tenantSets(): Promise<AttributeSetDoc[]> {
    this.sets ??= readAttributeSets(this.catalog);
    return this.sets;
  }

  /** The categories' tree as this run leaves it (a plan: with the moves and creations it would write). */
  categoryTree(entity: EntityModel, parentField: string): CategoryTree {
    this.tree ??= new CategoryTree(this.catalog, entity, parentField, (id) =>
      this.planned ? isPlannedId(id) : false,
    );
    return this.tree;
  }

  /**
   * Existing records of the drafts' refs, read once in the base language and once per other language
   * used. A ref the trim changed is asked as the cell wrote it too, in the same requests, and the draft
   * then takes the spelling the tenant has (ref-spelling.ts).
   */
  async records(
    entity: EntityModel,
    drafts: readonly Draft[],
    options: { baseOnly?: boolean } = {},
  ): Promise<Map<string, ExistingRecord>> {
    const found = new Map<string, ExistingRecord>();
    const asked = new Set<string>();
    for (const d of drafts) {
      asked.add(d.ref);
      if (d.asWritten?.ref !== undefined) asked.add(d.asWritten.ref);
    }
    const refs = [...asked];
    if (refs.length === 0) return found;
    const fields = new Set<string>([entity.idField, entity.refField]);
    const cultures = new Map<string, Set<string>>();
    if (!options.baseOnly) {
      for (const d of drafts) {
        for (const f of Object.keys(d.fields)) if (entity.field(f)) fields.add(f);
        for (const f of linkFieldsOf(entity, d)) fields.add(f);
        for (const [culture, values] of Object.entries(d.cultures)) {
          const set = cultures.get(culture) ?? new Set([entity.idField, entity.refField]);
          for (const f of Object.keys(values)) if (entity.field(f)) set.add(f);
          cultures.set(culture, set);
        }
      }
    }
    for await (const record of this.catalog.listIn<Record<string, unknown>>(
      entity.path,
      entity.refField,
      refs,
      {
        query: { $select: [...fields].join(',') },
        culture: this.model.baseLanguage,
      },
    )) {
      const ref = String(record[entity.refField]);
      found.set(ref, { id: record[entity.idField] as number | string, base: record, cultures: {} });
    }
    for (const [culture, set] of cultures) {
      if (culture === this.model.baseLanguage) continue;
      const present = refs.filter((r) => found.has(r));
      if (present.length === 0) break;
      for await (const record of this.catalog.listIn<Record<string, unknown>>(
        entity.path,
        entity.refField,
        present,
        {
          query: { $select: [...set].join(',') },
          culture,
        },
      )) {
        const existing = found.get(String(record[entity.refField]));
        if (existing) existing.cultures[culture] = record;
      }
    }
    this.planned?.overlay(entity.name, refs, found);
    for (const d of drafts) settleOwnRef(d, entity, (ref) => found.has(ref));
    return found;
  }

  /**
   * Ids of `refs` not yet known, in one lookup; remembered for the rest of the run. `fields`: read these
   * too, and hand each record found to `seen`.
   */
  async lookupIds(
    entity: EntityModel,
    refs: Iterable<string>,
    also:
      | { fields: readonly string[]; seen: (record: Record<string, unknown>) => void }
      | undefined = undefined,
  ): Promise<void> {
    const missing = [...new Set(refs)].filter((r) => this.knownId(entity.name, r) === undefined);
    if (missing.length === 0) return;
    for await (const record of this.catalog.listIn<Record<string, unknown>>(
      entity.path,
      entity.refField,
      missing,
      {
        query: { $select: [entity.idField, entity.refField, ...(also?.fields ?? [])].join(',') },
        // Values of the fields read too, in the language the tenant's titles are matched in.
        ...(also && { culture: this.model.baseLanguage }),
      },
    )) {
      also?.seen(record);
      const ref = String(record[entity.refField]);
      // A record the plan would delete is gone for the rows after it.
      if (this.planned?.exists(entity.name, ref) === false) continue;
      this.rememberId(entity.name, ref, record[entity.idField] as number | string);
    }
    if (!this.planned) return;
    for (const ref of missing) {
      if (this.knownId(entity.name, ref) === undefined && this.planned.exists(entity.name, ref))
        this.rememberId(entity.name, ref, plannedId(ref));
    }
  }

  /** A plan: the draft would be created; the rows after it find it, with the values it would have. */
  planCreate(entity: EntityModel, draft: Draft, ids: Record<string, unknown>): void {
    this.rememberId(entity.name, draft.ref, plannedId(draft.ref));
    this.planned?.created(draft, ids);
  }

  /** A plan: the draft's record would change; the rows after it find it changed. */
  planUpdate(draft: Draft, id: number | string, changes: readonly FieldChange[]): void {
    this.planned?.updated(draft, id, changes);
  }

  /** A plan: the draft's record would be deleted; the rows after it no longer find it. */
  planDelete(entity: EntityModel, draft: Draft): void {
    this.forgetId(entity.name, draft.ref);
    this.planned?.deleted(draft);
  }

  knownId(entity: string, ref: string): number | string | undefined {
    return this.ids.get(entity)?.get(ref);
  }

  rememberId(entity: string, ref: string, id: number | string): void {
    let map = this.ids.get(entity);
    if (!map) {
      map = new Map();
      this.ids.set(entity, map);
    }
    setBounded(map, ref, id, ID_CACHE_LIMIT);
  }

  forgetId(entity: string, ref: string): void {
    this.ids.get(entity)?.delete(ref);
  }
}

/** Id fields a lookup must read so links can be diffed. */
function linkFieldsOf(entity: EntityModel, draft: Draft): string[] {
  const fields: string[] = [];
  const { productRef, parentRef, categoryRefs, byField } = draft.links;
  if (productRef !== undefined)
    fields.push(...entity.fields.filter((f) => f.references === 'Products').map((f) => f.name));
  if (parentRef !== undefined || categoryRefs !== undefined) {
    fields.push(...entity.fields.filter((f) => f.references === 'Categories').map((f) => f.name));
  }
  fields.push(...Object.keys(byField ?? {}));
  return fields;
}
