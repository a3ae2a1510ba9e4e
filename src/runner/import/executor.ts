// Executes one batch of valid drafts against the tenant, spending as few requests as possible. The
// steps, each in its own file:
//   1. lookup.ts       look the batch's refs up, 100 at a time, one read per language the drafts carry;
//   2. draft-assets.ts register the drafts' image and file URLs in the DAM (once per URL per run);
//   3. links.ts        resolve links by ref to ids (from this run's writes, else one lookup);
//   4. write.ts        diff each draft against what exists: unchanged -> no request; changed -> PATCH;
//                      new -> POST; delete.ts: DELETE rows, children before parents.
// This file orders the entities: categories (parents first, in waves; a move after the earlier moves it
// relies on, category-moves.ts), products, custom entities, variants; and keeps the categories that
// wait for a parent a later batch may create.
import type { Draft } from '../../mappers/types.js';
import type { EntityModel, TenantModel } from '../../schema/model.js';
import { CYCLE_BRIEF, cycleMessage, parentChain } from './category-cycle.js';
import { heldBack } from './category-moves.js';
import { CategoryPaths, type PathFailure } from './category-paths.js';
import { categoryParentField } from './category-tree.js';
import { deleteGroup } from './delete.js';
import { RecordLookup } from './lookup.js';
import { type DraftResult, type ExecutorContext, placeOf, stepFailed } from './outcome.js';
import { linkSpelling, writtenLinkRef } from './ref-spelling.js';
import { WRITE_ORDER } from './types.js';
import { writeGroup } from './write.js';

export type {
  DraftResult,
  ExecutorContext,
  ExecutorSettings,
  PlanOutcome,
  WriteLog,
  WriteOutcome,
} from './outcome.js';

/** A draft's faults that leave it unfinished, not failed: its children are left unfinished with it. */
const UNFINISHED: ReadonlySet<NonNullable<DraftResult['fault']>> = new Set([
  'uncertain',
  'stopped',
  'unreachable',
  'lock-lost',
]);

export class ImportExecutor {
  readonly lookup: RecordLookup;
  /** Categories named by paths: found or created before the drafts that need them. */
  readonly paths: CategoryPaths | undefined;
  /** Category drafts waiting for a parent that a later batch may create. */
  private pendingCategories: Draft[] = [];

  constructor(private readonly ctx: ExecutorContext) {
    this.lookup = new RecordLookup(ctx.catalog, ctx.model, ctx.planned);
    const categories = ctx.model.entities.find((e) => e.kind === 'categories');
    if (categories) this.paths = new CategoryPaths(ctx, this.lookup, categories, ctx.categoryMatches);
  }

  /** Runs one batch (refs unique per entity). Results come back in no particular order. */
  async run(drafts: readonly Draft[]): Promise<DraftResult[]> {
    const results: DraftResult[] = [];
    let writes = drafts.filter((d) => d.command !== 'DELETE' && d.command !== 'IGNORE');
    if (this.paths) {
      // The categories the drafts' paths name exist (or, in a plan, would) before anything links to them.
      let unwritable: Map<Draft, PathFailure | undefined>;
      try {
        unwritable = await this.paths.ensure(writes);
      } catch (err) {
        const needing = writes.filter((d) => d.links.categoryPaths?.length);
        results.push(...stepFailed(needing, err));
        unwritable = new Map(needing.map((d) => [d, undefined]));
      }
      for (const [draft, why] of unwritable)
        if (why)
          results.push({
            draft,
            outcome: 'failed',
            message: why.message,
            problem: why.problem,
            // A category of its path may have been created, unchecked: the row is not finished.
            ...(why.uncertain && { fault: 'uncertain' as const }),
          });
      if (unwritable.size > 0) writes = writes.filter((d) => !unwritable.has(d));
    }
    const deletes = drafts.filter((d) => d.command === 'DELETE');
    for (const d of drafts) if (d.command === 'IGNORE') results.push({ draft: d, outcome: 'skipped' });

    for (const [entity, group] of groupByEntity(writes, this.ctx.model, (e) => WRITE_ORDER[e.kind] ?? 2)) {
      const waited = entity.kind === 'categories' ? this.pendingCategories : [];
      try {
        if (entity.kind === 'categories') results.push(...(await this.writeCategories(entity, group)));
        else results.push(...(await writeGroup(this.ctx, this.lookup, entity, group)));
      } catch (err) {
        // A lookup or the DAM failed past its retries: this group's rows fail, the run goes on.
        if (entity.kind === 'categories') this.pendingCategories = [];
        results.push(...stepFailed([...waited, ...group], err));
      }
    }
    // Children before parents: variants, then products, custom entities, categories.
    for (const [entity, group] of groupByEntity(
      deletes,
      this.ctx.model,
      (e) => -(WRITE_ORDER[e.kind] ?? 2),
    )) {
      try {
        results.push(...(await deleteGroup(this.ctx, this.lookup, entity, group)));
      } catch (err) {
        results.push(...stepFailed(group, err));
      }
    }
    return results;
  }

  /** Categories still waiting for a parent at the end of the file: the parent is missing, or they form a cycle. */
  async finish(): Promise<DraftResult[]> {
    if (this.pendingCategories.length === 0) return [];
    // One last try: parents may have been written by the batches since.
    const entity = this.entity(this.pendingCategories[0]!.entity);
    let written: DraftResult[];
    try {
      written = await this.writeCategories(entity, []);
    } catch (err) {
      const waited = this.pendingCategories;
      this.pendingCategories = [];
      return stepFailed(waited, err);
    }
    const pending = this.pendingCategories;
    this.pendingCategories = [];
    const byRef = new Map(pending.map((d) => [d.ref, d]));
    const parentOf = (ref: string) => byRef.get(ref)?.links.parentRef;
    const failed = pending.map((draft): DraftResult => {
      const parent = draft.links.parentRef!;
      const cycle = byRef.has(parent);
      const brief = cycle ? CYCLE_BRIEF : 'the parent category is neither in the file nor in the tenant';
      return {
        draft,
        outcome: 'failed' as const,
        message: cycle
          ? cycleMessage(parent, parentChain(draft.ref, parentOf).path)
          : `the parent category '${parent}' is neither in the file nor in the tenant (${entity.refField})`,
        problem: placeOf(draft, 'link:parentRef', parent, brief),
      };
    });
    return [...written, ...failed];
  }

  /**
   * Categories whose parent is in the same batch go after it; a parent not yet known waits. A move that
   * goes through a category an earlier row moves below a parent not written yet waits for that row
   * (category-moves.ts), so the moves are judged in row order, as validate judges them.
   */
  private async writeCategories(entity: EntityModel, drafts: Draft[]): Promise<DraftResult[]> {
    const lookup = this.lookup;
    const results: DraftResult[] = [];
    let waiting = [...this.pendingCategories, ...drafts];
    this.pendingCategories = [];
    // Resolve the parents named that are neither in the batch nor known yet, in one lookup.
    // Every category of the batch is looked up once, for all waves; those that exist give their ids
    // to children at once.
    const existing = await lookup.records(entity, waiting);
    for (const [ref, record] of existing) lookup.rememberId(entity.name, ref, record.id);
    const inBatch = new Set(waiting.map((d) => d.ref));
    const known = (ref: string) => inBatch.has(ref) || lookup.knownId(entity.name, ref) !== undefined;
    const unknownParents = waiting
      .flatMap((d) => {
        const parent = d.links.parentRef;
        // A parent ref the trim changed is asked as the cell wrote it too (ref-spelling.ts).
        return parent ? [parent, writtenLinkRef(d, parent)] : [];
      })
      .filter((p): p is string => p !== undefined && !known(p));
    await lookup.lookupIds(entity, unknownParents);
    for (const d of waiting) {
      const parent = d.links.parentRef;
      if (!parent || writtenLinkRef(d, parent) === undefined) continue;
      d.links.parentRef = linkSpelling(d, parent, 'link:parentRef', entity.name, known);
      delete d.asWritten!.links![parent];
    }
    // Their parents as read, once: the waves' moves are laid over them as they are written.
    const parentField = categoryParentField(entity);
    const tree = lookup.categoryTree(entity, parentField);
    tree.placedAsRead(existing.values());
    const parentId = (d: Draft) =>
      d.links.parentRef ? lookup.knownId(entity.name, d.links.parentRef) : undefined;

    // Waves: each wave holds the categories whose parent is already known (or who have none).
    for (let release = false; ; ) {
      const ready = waiting.filter((d) => !d.links.parentRef || parentId(d) !== undefined);
      if (ready.length === 0) break;
      let wave = ready;
      try {
        // (When all that is ready waits, the rows it waits for wait for a later batch: it goes ahead.)
        const held: Set<Draft> = release
          ? new Set<Draft>()
          : await heldBack(tree, parentField, waiting, new Set(ready), existing, parentId).catch(
              // The tree could not be read: the wave's own check tells the same (and the API after it).
              () => new Set<Draft>(),
            );
        release = held.size === ready.length;
        if (held.size > 0) wave = ready.filter((d) => !held.has(d));
        if (wave.length > 0) results.push(...(await writeGroup(this.ctx, lookup, entity, wave, existing)));
      } catch (err) {
        // The waves before were written and keep their outcomes; this wave and those after it fail.
        return [...results, ...stepFailed(waiting, err)];
      }
      const done = new Set(wave);
      waiting = waiting.filter((d) => !done.has(d));
      // A parent that failed never gets an id: its children fail with it. A parent whose write is not
      // finished (cut short, or it may have been made, unchecked) leaves its children unfinished too.
      const failedParents = new Map(
        results.filter((r) => r.outcome === 'failed').map((r) => [r.draft.ref, r] as const),
      );
      const orphans = waiting.filter((d) => failedParents.has(d.links.parentRef!));
      for (const d of orphans) {
        const parent = failedParents.get(d.links.parentRef!)!;
        const unfinished = parent.fault !== undefined && UNFINISHED.has(parent.fault);
        results.push({
          draft: d,
          outcome: 'failed',
          message: unfinished
            ? `not finished: the parent category '${d.links.parentRef}' may have been created: its row is not finished`
            : `the parent category '${d.links.parentRef}' could not be written`,
          ...(unfinished && { fault: parent.fault }),
        });
      }
      waiting = waiting.filter((d) => !orphans.includes(d));
      // (In a plan, writeGroup counts a category that would be created as known: its children follow.)
    }
    this.pendingCategories = waiting;
    return results;
  }

  private entity(name: string): EntityModel {
    const e = this.ctx.model.entity(name);
    if (!e) throw new Error(`entity ${name} is not in the tenant model`);
    return e;
  }
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
