// The delete step of a batch: DELETE rows, a product's variants first when asked.
import { recordPath } from '../../api/catalog.js';
import type { Draft } from '../../mappers/types.js';
import type { EntityModel } from '../../schema/model.js';
import { mapConcurrent } from './concurrent.js';
import type { RecordLookup } from './lookup.js';
import { type DraftResult, type ExecutorContext, failure } from './outcome.js';

export async function deleteGroup(
  ctx: ExecutorContext,
  lookup: RecordLookup,
  entity: EntityModel,
  drafts: Draft[],
): Promise<DraftResult[]> {
  const existing = await lookup.records(entity, drafts, { baseOnly: true });
  if (!ctx.settings.plan) {
    const intents = drafts
      .filter((d) => existing.has(d.ref))
      .map((d) => ({ entity: entity.name, ref: d.ref, action: 'delete' as const }));
    if (intents.length > 0) ctx.writeLog?.beforeWrites(intents);
  }
  return mapConcurrent(drafts, ctx.settings.concurrency, async (draft): Promise<DraftResult> => {
    const found = existing.get(draft.ref);
    // Deleted by an attempt of this run that was cut short: it counts as deleted now.
    if (!found && ctx.writeLog?.prior(entity.name, draft.ref)?.action === 'delete')
      return { draft, outcome: 'deleted', status: 204 };
    if (!found)
      return {
        draft,
        outcome: 'skipped',
        message: `${entity.refField} '${draft.ref}' does not exist: nothing to delete`,
      };
    if (ctx.settings.plan) {
      lookup.planDelete(entity, draft);
      return { draft, outcome: 'would-delete', id: found.id };
    }
    try {
      let note = '';
      if (entity.kind === 'products') {
        if (ctx.settings.deleteVariants) {
          const removed = await deleteVariantsOf(ctx, entity, found.id);
          if (removed > 0) note = `; ${removed} variant(s) deleted with it`;
        } else
          note = '; its variants, if any, remain without a product (use --delete-variants to delete them)';
      }
      await ctx.catalog.delete(recordPath(entity.path, found.id));
      lookup.forgetId(entity.name, draft.ref);
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

/** Deletes the variants of a product; says how many. */
export async function deleteVariantsOf(
  ctx: Pick<ExecutorContext, 'catalog' | 'model'>,
  products: EntityModel,
  productId: number | string,
): Promise<number> {
  const variants = ctx.model.entities.find((e) => e.kind === 'variants');
  if (!variants) return 0;
  const ids: Array<number | string> = [];
  for await (const v of ctx.catalog.list<Record<string, unknown>>(
    `${recordPath(products.path, productId)}/Variants`,
    { query: { $select: variants.idField } },
  )) {
    ids.push(v[variants.idField] as number | string);
  }
  for (const id of ids) await ctx.catalog.delete(recordPath(variants.path, id));
  return ids.length;
}
