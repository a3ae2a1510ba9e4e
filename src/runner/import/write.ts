// The write step of a batch: each draft is diffed against its record: unchanged -> no request;
// changed -> PATCH of the changed fields; new -> POST (re-checked by ref when its outcome is unknown).
import { recordPath } from '../../api/catalog.js';
import { isApiError } from '../../api/errors.js';
import type { Draft } from '../../mappers/types.js';
import type { EntityModel } from '../../schema/model.js';
import { writeBody } from '../../schema/validator.js';
import { AMBIGUOUS_POST_ATTEMPTS } from './assets.js';
import { mapConcurrent } from './concurrent.js';
import { diffDraft, type ExistingRecord } from './diff.js';
import { registerDraftAssets } from './draft-assets.js';
import { resolveLinks } from './links.js';
import type { RecordLookup } from './lookup.js';
import { type DraftResult, type ExecutorContext, failure } from './outcome.js';

/** `known`: the drafts' records when the caller already looked them up. */
export async function writeGroup(
  ctx: ExecutorContext,
  lookup: RecordLookup,
  entity: EntityModel,
  drafts: Draft[],
  known?: Map<string, ExistingRecord>,
): Promise<DraftResult[]> {
  const existing = known ?? (await lookup.records(entity, drafts));
  const assetResults = await registerDraftAssets(ctx.assets, ctx.model.baseLanguage, drafts);
  const links = await resolveLinks(lookup, ctx.model, entity, drafts);

  return mapConcurrent(drafts, ctx.settings.concurrency, async (draft): Promise<DraftResult> => {
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
        lookup.rememberId(entity.name, draft.ref, found.id);
        const diff = diffDraft(draft, found, entity, ctx.model.baseLanguage, ids);
        if (diff.changes.length === 0) return withAssets({ draft, outcome: 'unchanged', id: found.id });
        if (ctx.settings.plan)
          return withAssets({ draft, outcome: 'would-update', id: found.id, changes: diff.changes });
        await ctx.catalog.patch(recordPath(entity.path, found.id), diff.body);
        return withAssets({ draft, outcome: 'updated', id: found.id, status: 204, changes: diff.changes });
      }
      if (ctx.settings.plan) return withAssets({ draft, outcome: 'would-create' });
      const id = await create(ctx, lookup, entity, draft, { ...writeBody(draft, ctx.model), ...ids });
      lookup.rememberId(entity.name, draft.ref, id);
      return withAssets({ draft, outcome: 'created', id, status: 201 });
    } catch (err) {
      return withAssets(failure(draft, err));
    }
  });
}

/** POST, and when the outcome is unknown, look the ref up before sending again: never a duplicate. */
async function create(
  ctx: ExecutorContext,
  lookup: RecordLookup,
  entity: EntityModel,
  draft: Draft,
  body: Record<string, unknown>,
): Promise<number | string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await ctx.catalog.create(entity.path, body)).id;
    } catch (err) {
      if (!isApiError(err) || !err.ambiguous || attempt >= AMBIGUOUS_POST_ATTEMPTS) throw err;
      const found = await lookup.records(entity, [draft], { baseOnly: true });
      const record = found.get(draft.ref);
      if (record) return record.id;
    }
  }
}
