// Executes one batch of valid drafts against the tenant, spending as few requests as possible:
//   1. look the batch's refs up, 100 at a time (`<ref> in (...)`, split under the URL limit), one read
//      per language the drafts carry;
//   2. register the drafts' image and file URLs in the DAM (once per URL per run);
//   3. resolve links by ref to ids (from this run's writes, else one lookup for all that are missing);
//   4. diff each draft against what exists: unchanged -> no request; changed -> PATCH of the changed
//      fields; new -> POST; DELETE rows delete, children before parents.
// Entities go in dependency order: categories (parents first), products, custom entities, variants.
import type { CatalogClient } from '../../api/catalog.js';
import { recordPath } from '../../api/catalog.js';
import { ApiError, isApiError } from '../../api/errors.js';
import type { AssetRef, Draft } from '../../mappers/types.js';
import type { EntityModel, TenantModel } from '../../schema/model.js';
import { writeBody } from '../../schema/validator.js';
import { AMBIGUOUS_POST_ATTEMPTS, type AssetOutcome, type AssetRegistrar } from './assets.js';
import { diffDraft, type ExistingRecord, type FieldChange } from './diff.js';

export type WriteOutcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'skipped' | 'failed';
export type PlanOutcome = 'would-create' | 'would-update' | 'would-delete';

export interface DraftResult {
  draft: Draft;
  outcome: WriteOutcome | PlanOutcome;
  id?: number | string;
  /** HTTP status of the write (or of the failure). */
  status?: number;
  changes?: FieldChange[];
  message?: string;
  assets?: AssetOutcome[];
}

export interface ExecutorSettings {
  plan: boolean;
  /** Writes in flight at once (the shared limiter still caps the rate). */
  concurrency: number;
  /** Delete a product's remaining variants before the product. */
  deleteVariants: boolean;
}

export interface ExecutorContext {
  catalog: CatalogClient;
  model: TenantModel;
  assets: AssetRegistrar;
  settings: ExecutorSettings;
}

/** How many ref -> id pairs of this run are remembered per entity (later links then cost a lookup). */
const ID_CACHE_LIMIT = 100_000;

const WRITE_ORDER: Record<string, number> = { categories: 0, products: 1, custom: 2, variants: 3 };

export class ImportExecutor {
  /** entity name -> ref -> id, for links to records written or seen in this run. */
  private readonly ids = new Map<string, Map<string, number | string>>();
  /** Category drafts waiting for a parent that a later batch may create. */
  private pendingCategories: Draft[] = [];

  constructor(private readonly ctx: ExecutorContext) {}

  /** Runs one batch (refs unique per entity). Results come back in no particular order. */
  async run(drafts: readonly Draft[]): Promise<DraftResult[]> {
    const results: DraftResult[] = [];
    const writes = drafts.filter((d) => d.command !== 'DELETE' && d.command !== 'IGNORE');
    const deletes = drafts.filter((d) => d.command === 'DELETE');
    for (const d of drafts) if (d.command === 'IGNORE') results.push({ draft: d, outcome: 'skipped' });

    for (const [entity, group] of groupByEntity(writes, this.ctx.model, (e) => WRITE_ORDER[kindOf(e)] ?? 2)) {
      if (entity.kind === 'categories') results.push(...(await this.writeCategories(entity, group)));
      else results.push(...(await this.writeGroup(entity, group)));
    }
    // Children before parents: variants, then products, custom entities, categories.
    for (const [entity, group] of groupByEntity(
      deletes,
      this.ctx.model,
      (e) => -(WRITE_ORDER[kindOf(e)] ?? 2),
    )) {
      results.push(...(await this.deleteGroup(entity, group)));
    }
    return results;
  }

  /** Categories still waiting for a parent at the end of the file: the parent is missing, or they form a cycle. */
  async finish(): Promise<DraftResult[]> {
    if (this.pendingCategories.length === 0) return [];
    // One last try: parents may have been written by the batches since.
    const entity = this.entity(this.pendingCategories[0]!.entity);
    const written = await this.writeCategories(entity, []);
    const pending = this.pendingCategories;
    this.pendingCategories = [];
    const refs = new Set(pending.map((d) => d.ref));
    const failed = pending.map((draft) => {
      const parent = draft.links.parentRef!;
      const cycle = refs.has(parent);
      return {
        draft,
        outcome: 'failed' as const,
        message: cycle
          ? `the parent category '${parent}' is part of a cycle of parents in the file: ${cycleOf(draft, pending).join(' -> ')}`
          : `the parent category '${parent}' is neither in the file nor in the tenant (${entity.refField})`,
      };
    });
    return [...written, ...failed];
  }

  // -- writes ---------------------------------------------------------------------------------

  /** Categories whose parent is in the same batch go after it; a parent not yet known waits. */
  private async writeCategories(entity: EntityModel, drafts: Draft[]): Promise<DraftResult[]> {
    const results: DraftResult[] = [];
    let waiting = [...this.pendingCategories, ...drafts];
    this.pendingCategories = [];
    // Resolve the parents named that are neither in the batch nor known yet, in one lookup.
    // Every category of the batch is looked up once, for all waves; those that exist give their ids
    // to children at once.
    const existing = await this.lookupRecords(entity, waiting);
    for (const [ref, record] of existing) this.rememberId(entity.name, ref, record.id);
    const inBatch = new Set(waiting.map((d) => d.ref));
    const unknownParents = waiting
      .map((d) => d.links.parentRef)
      .filter((p): p is string => !!p && !inBatch.has(p) && this.knownId(entity.name, p) === undefined);
    await this.lookupIds(entity, unknownParents);

    // Waves: each wave holds the categories whose parent is already known (or who have none).
    for (;;) {
      const ready = waiting.filter(
        (d) => !d.links.parentRef || this.knownId(entity.name, d.links.parentRef) !== undefined,
      );
      if (ready.length === 0) break;
      results.push(...(await this.writeGroup(entity, ready, existing)));
      const done = new Set(ready);
      waiting = waiting.filter((d) => !done.has(d));
      // A parent that failed never gets an id: its children fail with it.
      const failedRefs = new Set(results.filter((r) => r.outcome === 'failed').map((r) => r.draft.ref));
      const orphans = waiting.filter((d) => failedRefs.has(d.links.parentRef!));
      for (const d of orphans) {
        results.push({
          draft: d,
          outcome: 'failed',
          message: `the parent category '${d.links.parentRef}' could not be written`,
        });
      }
      waiting = waiting.filter((d) => !orphans.includes(d));
      if (this.ctx.settings.plan) {
        // Nothing is created in a plan: a parent that would be created counts as known.
        for (const r of results)
          if (r.outcome === 'would-create') this.rememberId(entity.name, r.draft.ref, `(new ${r.draft.ref})`);
      }
    }
    this.pendingCategories = waiting;
    return results;
  }

  /** `known`: the drafts' records when the caller already looked them up. */
  private async writeGroup(
    entity: EntityModel,
    drafts: Draft[],
    known?: Map<string, ExistingRecord>,
  ): Promise<DraftResult[]> {
    const existing = known ?? (await this.lookupRecords(entity, drafts));
    const assetResults = await this.registerAssets(drafts);
    const links = await this.resolveLinks(entity, drafts);

    return mapConcurrent(drafts, this.ctx.settings.concurrency, async (draft): Promise<DraftResult> => {
      const assets = assetResults.get(draft);
      const failedAsset = assets?.find((a) => a.status === 'failed');
      if (failedAsset) {
        return { draft, outcome: 'failed', assets, message: `${failedAsset.url}: ${failedAsset.message}` };
      }
      const link = links.get(draft);
      if (link && 'error' in link)
        return { draft, outcome: 'failed', ...(assets ? { assets } : {}), message: link.error };
      const ids = link?.ids ?? {};
      const found = existing.get(draft.ref);
      const withAssets = (r: DraftResult): DraftResult => (assets ? { ...r, assets } : r);

      if (draft.command === 'NEW' && found) {
        return withAssets({
          draft,
          outcome: 'failed',
          id: found.id,
          message: `${entity.refField} '${draft.ref}' already exists (id ${found.id}); the row asks for a new record`,
        });
      }
      if (draft.command === 'UPDATE' && !found) {
        return withAssets({
          draft,
          outcome: 'failed',
          message: `${entity.refField} '${draft.ref}' does not exist; the row asks to update it`,
        });
      }
      try {
        if (found) {
          this.rememberId(entity.name, draft.ref, found.id);
          const diff = diffDraft(draft, found, entity, this.ctx.model.baseLanguage, ids);
          if (diff.changes.length === 0) return withAssets({ draft, outcome: 'unchanged', id: found.id });
          if (this.ctx.settings.plan)
            return withAssets({ draft, outcome: 'would-update', id: found.id, changes: diff.changes });
          await this.ctx.catalog.patch(recordPath(entity.path, found.id), diff.body);
          return withAssets({ draft, outcome: 'updated', id: found.id, status: 204, changes: diff.changes });
        }
        if (this.ctx.settings.plan) return withAssets({ draft, outcome: 'would-create' });
        const id = await this.create(entity, draft, { ...writeBody(draft, this.ctx.model), ...ids });
        this.rememberId(entity.name, draft.ref, id);
        return withAssets({ draft, outcome: 'created', id, status: 201 });
      } catch (err) {
        return withAssets(failure(draft, err));
      }
    });
  }

  /** POST, and when the outcome is unknown, look the ref up before sending again: never a duplicate. */
  private async create(
    entity: EntityModel,
    draft: Draft,
    body: Record<string, unknown>,
  ): Promise<number | string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.ctx.catalog.create(entity.path, body)).id;
      } catch (err) {
        if (!isApiError(err) || !err.ambiguous || attempt >= AMBIGUOUS_POST_ATTEMPTS) throw err;
        const found = await this.lookupRecords(entity, [draft], { baseOnly: true });
        const record = found.get(draft.ref);
        if (record) return record.id;
      }
    }
  }

  private async deleteGroup(entity: EntityModel, drafts: Draft[]): Promise<DraftResult[]> {
    const existing = await this.lookupRecords(entity, drafts, { baseOnly: true });
    return mapConcurrent(drafts, this.ctx.settings.concurrency, async (draft): Promise<DraftResult> => {
      const found = existing.get(draft.ref);
      if (!found)
        return {
          draft,
          outcome: 'skipped',
          message: `${entity.refField} '${draft.ref}' does not exist: nothing to delete`,
        };
      if (this.ctx.settings.plan) return { draft, outcome: 'would-delete', id: found.id };
      try {
        let note = '';
        if (entity.kind === 'products') {
          if (this.ctx.settings.deleteVariants) {
            const removed = await this.deleteVariantsOf(entity, found.id);
            if (removed > 0) note = `; ${removed} variant(s) deleted with it`;
          } else
            note = '; its variants, if any, remain without a product (use --delete-variants to delete them)';
        }
        await this.ctx.catalog.delete(recordPath(entity.path, found.id));
        this.ids.get(entity.name)?.delete(draft.ref);
        return {
          draft,
          outcome: 'deleted',
          id: found.id,
          status: 204,
          ...(note ? { message: note.slice(2) } : {}),
        };
      } catch (err) {
        return failure(draft, err);
      }
    });
  }

  private async deleteVariantsOf(products: EntityModel, productId: number | string): Promise<number> {
    const variants = this.ctx.model.entities.find((e) => e.kind === 'variants');
    if (!variants) return 0;
    const ids: Array<number | string> = [];
    for await (const v of this.ctx.catalog.list<Record<string, unknown>>(
      `${recordPath(products.path, productId)}/Variants`,
      {
        query: { $select: variants.idField },
      },
    )) {
      ids.push(v[variants.idField] as number | string);
    }
    for (const id of ids) await this.ctx.catalog.delete(recordPath(variants.path, id));
    return ids.length;
  }

  // -- lookups --------------------------------------------------------------------------------

  /** Existing records of the drafts' refs, read once in the base language and once per other language used. */
  private async lookupRecords(
    entity: EntityModel,
    drafts: readonly Draft[],
    options: { baseOnly?: boolean } = {},
  ): Promise<Map<string, ExistingRecord>> {
    const found = new Map<string, ExistingRecord>();
    const refs = [...new Set(drafts.map((d) => d.ref))];
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
    for await (const record of this.ctx.catalog.listIn<Record<string, unknown>>(
      entity.path,
      entity.refField,
      refs,
      {
        query: { $select: [...fields].join(',') },
        culture: this.ctx.model.baseLanguage,
      },
    )) {
      const ref = String(record[entity.refField]);
      found.set(ref, { id: record[entity.idField] as number | string, base: record, cultures: {} });
    }
    for (const [culture, set] of cultures) {
      if (culture === this.ctx.model.baseLanguage) continue;
      const present = refs.filter((r) => found.has(r));
      if (present.length === 0) break;
      for await (const record of this.ctx.catalog.listIn<Record<string, unknown>>(
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
    return found;
  }

  /** Ids of `refs` not yet known, in one lookup; remembered for the rest of the run. */
  private async lookupIds(entity: EntityModel, refs: Iterable<string>): Promise<void> {
    const missing = [...new Set(refs)].filter((r) => this.knownId(entity.name, r) === undefined);
    if (missing.length === 0) return;
    for await (const record of this.ctx.catalog.listIn<Record<string, unknown>>(
      entity.path,
      entity.refField,
      missing,
      {
        query: { $select: `${entity.idField},${entity.refField}` },
      },
    )) {
      this.rememberId(
        entity.name,
        String(record[entity.refField]),
        record[entity.idField] as number | string,
      );
    }
  }

  private knownId(entity: string, ref: string): number | string | undefined {
    return this.ids.get(entity)?.get(ref);
  }

  private rememberId(entity: string, ref: string, id: number | string): void {
    let map = this.ids.get(entity);
    if (!map) {
      map = new Map();
      this.ids.set(entity, map);
    }
    map.delete(ref);
    map.set(ref, id);
    if (map.size > ID_CACHE_LIMIT) map.delete(map.keys().next().value as string);
  }

  // -- links and assets -----------------------------------------------------------------------

  /** Link refs -> id fields (`prod_id`, `cat_parent_id`, `cat_ids`, ...), or the reason one is missing. */
  private async resolveLinks(
    entity: EntityModel,
    drafts: readonly Draft[],
  ): Promise<Map<Draft, { ids: Record<string, unknown> } | { error: string }>> {
    const wanted = new Map<EntityModel, Set<string>>();
    const plans = new Map<
      Draft,
      Array<{ field: string; target: EntityModel; refs: string[]; many: boolean }>
    >();
    for (const draft of drafts) {
      const plan = linkPlan(entity, draft, this.ctx.model);
      plans.set(draft, plan);
      for (const p of plan) {
        const set = wanted.get(p.target) ?? new Set();
        for (const r of p.refs) set.add(r);
        wanted.set(p.target, set);
      }
    }
    for (const [target, refs] of wanted) await this.lookupIds(target, refs);

    const resolved = new Map<Draft, { ids: Record<string, unknown> } | { error: string }>();
    for (const draft of drafts) {
      const ids: Record<string, unknown> = {};
      let error: string | undefined;
      for (const p of plans.get(draft) ?? []) {
        const values: Array<number | string> = [];
        for (const ref of p.refs) {
          const id = this.knownId(p.target.name, ref);
          if (id === undefined) {
            error = `${singular(p.target)} '${ref}' is neither in the file nor in the tenant (${p.target.refField})`;
            break;
          }
          values.push(id);
        }
        if (error) break;
        ids[p.field] = p.many ? values : (values[0] ?? null);
      }
      resolved.set(draft, error ? { error } : { ids });
    }
    return resolved;
  }

  private async registerAssets(drafts: readonly Draft[]): Promise<Map<Draft, AssetOutcome[]>> {
    const out = new Map<Draft, AssetOutcome[]>();
    const urls = drafts.flatMap((d) =>
      d.assets.filter((a): a is AssetRef & { url: string } => typeof a.url === 'string'),
    );
    if (urls.length === 0) return out;
    // One lookup per 100 references instead of a POST (and a 409) per asset the DAM already has.
    await this.ctx.assets.lookup(urls);
    await Promise.all(
      drafts.map(async (draft) => {
        const withUrl = draft.assets.filter(
          (a): a is AssetRef & { url: string } => typeof a.url === 'string',
        );
        if (withUrl.length === 0) return;
        const outcomes = await Promise.all(
          withUrl.map((a) => this.ctx.assets.register(a.kind, a.url, a.tags)),
        );
        // The DAM's reference is what the catalog write names (it is the file name, normally as drafted).
        withUrl.forEach((a, i) => {
          const o = outcomes[i]!;
          if (o.status !== 'failed' && o.reference !== a.name)
            renameAsset(draft, a, o.reference, this.ctx.model.baseLanguage);
        });
        out.set(draft, outcomes);
      }),
    );
    return out;
  }

  private entity(name: string): EntityModel {
    const e = this.ctx.model.entity(name);
    if (!e) throw new Error(`entity ${name} is not in the tenant model`);
    return e;
  }
}

// -- helpers -------------------------------------------------------------------------------------

function kindOf(entity: EntityModel): string {
  return entity.kind;
}

function singular(entity: EntityModel): string {
  if (entity.kind === 'products') return 'product';
  if (entity.kind === 'variants') return 'variant';
  if (entity.kind === 'categories') return 'category';
  return `${entity.denominator ?? entity.name} item`;
}

/** Groups drafts by entity, ordered by `rank` (stable within an entity). Drafts of unknown entities were refused by validation. */
function groupByEntity(
  drafts: readonly Draft[],
  model: TenantModel,
  rank: (e: EntityModel) => number,
): Array<[EntityModel, Draft[]]> {
  const groups = new Map<EntityModel, Draft[]>();
  for (const d of drafts) {
    const entity = model.entity(d.entity);
    if (!entity) continue;
    const list = groups.get(entity) ?? [];
    list.push(d);
    groups.set(entity, list);
  }
  return [...groups].sort((a, b) => rank(a[0]) - rank(b[0]));
}

interface LinkPlanItem {
  field: string;
  target: EntityModel;
  refs: string[];
  many: boolean;
}

/** Which id fields a draft's link refs resolve to, and in which entity they are looked up. */
function linkPlan(entity: EntityModel, draft: Draft, model: TenantModel): LinkPlanItem[] {
  const plan: LinkPlanItem[] = [];
  const byKind = (kind: string) => model.entities.find((e) => e.kind === kind);
  const { productRef, parentRef, categoryRefs, byField } = draft.links;
  if (productRef !== undefined) {
    const products = byKind('products');
    if (products) plan.push({ field: products.idField, target: products, refs: [productRef], many: false });
  }
  if (parentRef !== undefined) {
    const field =
      entity.fields.find((f) => f.references === 'Categories' && !f.multiple)?.name ?? 'cat_parent_id';
    plan.push({ field, target: entity, refs: [parentRef], many: false });
  }
  if (categoryRefs !== undefined) {
    const categories = byKind('categories');
    const field = entity.fields.find((f) => f.references === 'Categories')?.name;
    if (categories && field) plan.push({ field, target: categories, refs: categoryRefs, many: true });
  }
  for (const [field, refs] of Object.entries(byField ?? {})) {
    const target = targetOf(entity.field(field)?.references, model);
    if (target) plan.push({ field, target, refs: [refs].flat(), many: Array.isArray(refs) });
  }
  return plan;
}

function targetOf(references: string | undefined, model: TenantModel): EntityModel | undefined {
  if (!references) return undefined;
  const kind = references.toLowerCase();
  return model.entities.find((e) => e.kind === kind || e.name === kind);
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

function renameAsset(draft: Draft, asset: AssetRef, reference: string, baseLanguage: string): void {
  // Base-language values live in `draft.fields`, the others under their culture.
  const target =
    asset.culture && asset.culture !== baseLanguage ? draft.cultures[asset.culture] : draft.fields;
  if (!target) return;
  const value = target[asset.field];
  if (Array.isArray(value)) target[asset.field] = value.map((v) => (v === asset.name ? reference : v));
  else if (value === asset.name) target[asset.field] = reference;
}

function failure(draft: Draft, err: unknown): DraftResult {
  if (err instanceof ApiError) {
    const details = err.failures
      .map((f) =>
        f.field && f.field !== 'error' && f.field !== 'body' ? `${f.field}: ${f.message}` : f.message,
      )
      .join('; ');
    return {
      draft,
      outcome: 'failed',
      ...(err.status !== undefined ? { status: err.status } : {}),
      message: details
        ? `${err.service} refused the ${err.method} (${err.status ?? err.code}): ${details}`
        : err.message,
    };
  }
  throw err;
}

function cycleOf(start: Draft, pending: readonly Draft[]): string[] {
  const byRef = new Map(pending.map((d) => [d.ref, d]));
  const path = [start.ref];
  let current = byRef.get(start.links.parentRef!);
  while (current && !path.includes(current.ref)) {
    path.push(current.ref);
    current = byRef.get(current.links.parentRef!);
  }
  if (current) path.push(current.ref);
  return path;
}

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return results;
}
