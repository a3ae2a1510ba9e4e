// The write step of a batch: each draft is diffed against its record: unchanged -> no request;
// changed -> PATCH of the changed fields; new -> POST (re-checked by ref when its outcome is unknown).
import { recordPath } from '../../api/catalog.js';
import { isApiError } from '../../api/errors.js';
import type { Draft } from '../../mappers/types.js';
import type { WriteIntent } from '../../runs/journal.js';
import type { EntityModel } from '../../schema/model.js';
import { writeBody } from '../../schema/validator.js';
import { AMBIGUOUS_POST_ATTEMPTS, type AssetOutcome } from './assets.js';
import { attributeSetFields, hasSetId, UNKNOWN_SET_BRIEF, unknownSetMessage } from './attribute-set-check.js';
import { judgeInOrder, type MoveVerdict } from './category-moves.js';
import {
  BELOW_ITSELF_BRIEF,
  belowItselfMessage,
  type CategoryId,
  type CategoryMove,
  type CategoryTree,
  categoryParentField,
} from './category-tree.js';
import { mapConcurrent } from './concurrent.js';
import { diffDraft, type ExistingRecord, type FieldChange } from './diff.js';
import { registerDraftAssets } from './draft-assets.js';
import { type ResolvedLinks, resolveLinks } from './links.js';
import type { RecordLookup } from './lookup.js';
import {
  type DraftResult,
  type ExecutorContext,
  failure,
  leftOutWarning,
  placeOf,
  UncertainWrite,
  UnmadeWrite,
} from './outcome.js';
import { isPlannedId, PLANNED_VALUES_BUDGET, plannedId } from './planned.js';

/** `known`: the drafts' records when the caller already looked them up. */
export async function writeGroup(
  ctx: ExecutorContext,
  lookup: RecordLookup,
  entity: EntityModel,
  drafts: Draft[],
  known?: Map<string, ExistingRecord>,
): Promise<DraftResult[]> {
  const existing = known ?? (await lookup.records(entity, drafts));
  const assetResults = await registerDraftAssets(
    () => ctx.assets,
    ctx.model.baseLanguage,
    drafts,
    () => ctx.writeLog?.checkpoint?.('dam'),
    ctx.settings.plan,
  );
  const links = await resolveLinks(lookup, ctx.model, entity, drafts);

  for (const d of drafts) {
    const found = existing.get(d.ref);
    if (found) lookup.rememberId(entity.name, d.ref, found.id);
  }
  // Decide every draft first, so the journal can say what is about to be written before it is sent.
  const decisions = drafts.map((draft) => decide(ctx, entity, draft, existing, assetResults, links));
  // A category moved below itself or one of its descendants: the API would refuse the PATCH.
  const parentField = entity.kind === 'categories' ? categoryParentField(entity) : undefined;
  const tree = parentField ? lookup.categoryTree(entity, parentField) : undefined;
  // The parents the lookup read (in a plan, with what it would write laid over them). A caller that
  // gives the records placed them once, before its first wave: the waves since moved some of them.
  if (tree && !known) tree.placedAsRead(existing.values());
  // An attribute set id the tenant does not have: the API would refuse the write.
  const setFields = attributeSetFields(entity);
  if (setFields.length > 0) await refuseUnknownSets(lookup, setFields, decisions, links);

  const results: DraftResult[] = [];
  // Rounds: a move whose verdict assumed an earlier move of this group is judged again, and sent, once
  // that one is written (only the import has such a round after the first).
  for (let round = decisions; round.length > 0; ) {
    const later = tree && parentField ? await judgeMoves(tree, parentField, round, ctx.settings.plan) : [];
    const now = later.length === 0 ? round : round.filter((d) => !later.includes(d));
    if (ctx.settings.plan) planned(lookup, entity, now, links, tree, parentField);
    results.push(...(await send(ctx, lookup, entity, now, tree, parentField)));
    round = later;
  }
  return results;
}

/**
 * A plan: nothing is written, so what would be is remembered, and the rows after it find the record
 * as the import will (a variant of a product earlier in the file, a category's parent, a ref drafted
 * again).
 */
function planned(
  lookup: RecordLookup,
  entity: EntityModel,
  decisions: readonly Decision[],
  links: Map<Draft, ResolvedLinks>,
  tree: CategoryTree | undefined,
  parentField: string | undefined,
): void {
  for (const d of decisions) {
    if (!('result' in d)) continue;
    const { draft, outcome, id, changes } = d.result;
    if (outcome === 'would-create') lookup.planCreate(entity, draft, idsOf(links.get(draft)));
    else if (outcome === 'would-update' && id !== undefined && changes) lookup.planUpdate(draft, id, changes);
    // The tree as the plan would leave it, for the moves of the rows after.
    if (!tree || !parentField) continue;
    if (outcome === 'would-create') {
      const parent = idsOf(links.get(draft))[parentField];
      tree.placed(plannedId(draft.ref), parent === undefined ? null : (parent as CategoryId | null));
    } else if (outcome === 'would-update' && id !== undefined) {
      const moved = changes?.find((c) => c.field === parentField);
      if (moved) tree.placed(id, (moved.new ?? null) as CategoryId | null);
    }
  }
}

/** Sends the decisions' writes, `concurrency` at a time (those whose result is known send nothing). */
async function send(
  ctx: ExecutorContext,
  lookup: RecordLookup,
  entity: EntityModel,
  decisions: readonly Decision[],
  tree: CategoryTree | undefined,
  parentField: string | undefined,
): Promise<DraftResult[]> {
  const intents: WriteIntent[] = [];
  for (const d of decisions) {
    if ('result' in d) continue;
    intents.push({
      entity: entity.name,
      ref: d.draft.ref,
      action: d.send === 'patch' ? 'update' : 'create',
      ...(d.send === 'patch' && { changed: changedNames(d.changes) }),
    });
  }
  if (intents.length > 0) ctx.writeLog?.beforeWrites(intents);

  return mapConcurrent(decisions, ctx.settings.concurrency, async (d): Promise<DraftResult> => {
    if ('result' in d) return d.result;
    const { draft, withAssets } = d;
    const moved =
      d.send === 'patch' && parentField ? d.changes.find((c) => c.field === parentField) : undefined;
    try {
      await ctx.writeLog?.checkpoint?.('write');
      if (d.send === 'patch') {
        await ctx.catalog.patch(recordPath(entity.path, d.id), d.body);
        if (moved) tree?.placed(d.id, (moved.new ?? null) as CategoryId | null);
        return withAssets({ draft, outcome: 'updated', id: d.id, status: 204, changes: d.changes });
      }
      const id = await create(ctx, lookup, entity, draft, d.body);
      lookup.rememberId(entity.name, draft.ref, id);
      return withAssets({ draft, outcome: 'created', id, status: 201 });
    } catch (err) {
      // A move that failed may have been written all the same (a lost answer): its parent is read
      // again before a later move relies on it.
      if (moved && d.send === 'patch') tree?.forget(d.id);
      return withAssets(failure(draft, err));
    }
  });
}

/**
 * Fails, before anything is sent, the drafts whose write would give an attribute set id the tenant does
 * not have (its sets are read once per run, only when a write carries such an id).
 */
async function refuseUnknownSets(
  lookup: RecordLookup,
  fields: readonly string[],
  decisions: Decision[],
  links: Map<Draft, ResolvedLinks>,
): Promise<void> {
  let ids: ReadonlySet<number> | null | undefined;
  for (let at = 0; at < decisions.length; at++) {
    const d = decisions[at]!;
    const written: Record<string, unknown> | undefined =
      'result' in d
        ? d.result.outcome === 'would-create'
          ? // As the POST would carry it: a set named by its name (`typ_name`) gives the resolved id.
            { ...d.draft.fields, ...idsOf(links.get(d.draft)) }
          : d.result.outcome === 'would-update'
            ? changedValues(d.result.changes)
            : undefined
        : d.body;
    if (!written) continue;
    for (const field of fields) {
      const value = written[field];
      // A set the plan would create first (a copy's structure step) has no id of the tenant's yet.
      if (value === undefined || value === null || isPlannedId(value)) continue;
      // The sets could not be read (null): the API tells, as before.
      ids ??= await lookup.tenantSetIds().catch(() => null);
      if (ids === null || hasSetId(ids, value)) continue;
      const { draft } = d;
      decisions[at] = {
        draft,
        result: {
          draft,
          outcome: 'failed',
          message: `${field}: ${unknownSetMessage(value)}`,
          problem: placeOf(draft, field, value, UNKNOWN_SET_BRIEF),
        },
      };
      break;
    }
  }
}

function changedValues(changes: readonly FieldChange[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of changes ?? []) if (c.culture === undefined) out[c.field] = c.new;
  return out;
}

/**
 * Judges the decisions' category moves in row order, each against the tree with the earlier ones laid
 * over (validate's verdicts): a move below the category itself or one of its descendants fails before
 * anything is sent (the API refuses such a PATCH). In an import, a verdict that assumed a move of these
 * decisions not written yet is not given: those decisions are returned, to be judged again once the
 * moves before them are written (or have failed). In a plan, every verdict is given.
 */
async function judgeMoves(
  tree: CategoryTree,
  parentField: string,
  decisions: Decision[],
  plan: boolean,
): Promise<Decision[]> {
  const moves: Array<{ at: number; move: CategoryMove }> = [];
  decisions.forEach((d, at) => {
    const id =
      'result' in d
        ? d.result.outcome === 'would-update'
          ? d.result.id
          : undefined
        : d.send === 'patch'
          ? d.id
          : undefined;
    const changes = 'result' in d ? d.result.changes : d.send === 'patch' ? d.changes : undefined;
    const parent = changes?.find((c) => c.field === parentField)?.new;
    if (id === undefined || parent === undefined || parent === null) return;
    moves.push({ at, move: { id, parent: parent as CategoryId } });
  });
  if (moves.length === 0) return [];
  let verdicts: MoveVerdict[];
  try {
    verdicts = await judgeInOrder(
      tree,
      moves.map((m) => m.move),
    );
  } catch {
    // The tree could not be read: the API tells (a refused PATCH fails the row, as before).
    return [];
  }
  const later: Decision[] = [];
  moves.forEach(({ at, move }, i) => {
    const verdict = verdicts[i]!;
    if (!plan && verdict.assumes === 'group') {
      later.push(decisions[at]!);
      return;
    }
    if (!verdict.refused) return;
    const draft = decisions[at]!.draft;
    const parentRef = draft.links.parentRef;
    decisions[at] = {
      draft,
      result: {
        draft,
        outcome: 'failed',
        id: move.id,
        message: belowItselfMessage(parentField, move.id, parentRef),
        problem: placeOf(draft, 'link:parentRef', parentRef, BELOW_ITSELF_BRIEF, parentField),
      },
    };
  });
  return later;
}

type Decision =
  | { draft: Draft; result: DraftResult }
  | {
      draft: Draft;
      send: 'patch';
      id: number | string;
      body: Record<string, unknown>;
      changes: FieldChange[];
      withAssets: (r: DraftResult) => DraftResult;
    }
  | {
      draft: Draft;
      send: 'post';
      body: Record<string, unknown>;
      withAssets: (r: DraftResult) => DraftResult;
    };

/** What one draft needs: nothing (its result is known), a PATCH of the changed fields, or a POST. */
function decide(
  ctx: ExecutorContext,
  entity: EntityModel,
  draft: Draft,
  existing: Map<string, ExistingRecord>,
  assetResults: Map<Draft, AssetOutcome[]>,
  links: Map<Draft, ResolvedLinks>,
): Decision {
  const assets = assetResults.get(draft);
  // An image or file that may be registered, unchecked, is left out as one that failed.
  const failedAssets = assets?.filter((a) => a.status === 'failed' || a.status === 'uncertain') ?? [];
  let warnings: string[] | undefined;
  if (failedAssets.length > 0) {
    // A plain name the DAM does not hold is left out like a URL the DAM refused (the catalog would
    // refuse the whole write for it).
    if (ctx.settings.onAssetError === 'fail') {
      const first = failedAssets[0]!;
      const asset = draft.assets.find((a) => (a.url ?? a.name) === first.url);
      const key = asset ? (asset.culture ? `${asset.field}.${asset.culture}` : asset.field) : '';
      const problem = placeOf(
        draft,
        key,
        first.url,
        `${first.kind} not registered: ${first.message}`,
        asset?.field,
      );
      return {
        draft,
        result: {
          draft,
          outcome: 'failed',
          message: `${first.url}: ${first.message}`,
          assets: assets!,
          problem,
        },
      };
    }
    // The record is written without what could not be registered; the row says so.
    warnings = leaveOut(draft, failedAssets, ctx.model.baseLanguage);
  }
  const withAssets = (r: DraftResult): DraftResult => {
    if (!assets) return r;
    return warnings ? { ...r, assets, warnings } : { ...r, assets };
  };
  const done = (result: DraftResult): Decision => ({ draft, result: withAssets(result) });
  const link = links.get(draft);
  if (link && 'error' in link)
    return done({ draft, outcome: 'failed', message: link.error, problem: link.problem });
  const ids = idsOf(link);
  const found = existing.get(draft.ref);
  // A row this run was writing when it was cut short: what it did then counts, not what is left to do.
  const prior = ctx.writeLog?.prior(entity.name, draft.ref);

  if (draft.command === 'NEW' && found && prior?.action !== 'create') {
    return done({
      draft,
      outcome: 'failed',
      id: found.id,
      message: `${entity.refField} '${draft.ref}' already exists (id ${found.id}); the row asks for a new record`,
      problem: placeOf(draft, entity.refField, draft.ref, 'already exists; the row asks for a new record'),
    });
  }
  if (draft.command === 'UPDATE' && !found) {
    return done({
      draft,
      outcome: 'failed',
      message: `${entity.refField} '${draft.ref}' does not exist; the row asks to update it`,
      problem: placeOf(draft, entity.refField, draft.ref, 'does not exist; the row asks to update it'),
    });
  }
  if (found) {
    if (found.plannedBy !== undefined) return done(valuesUnknown(draft, found.id, found.plannedBy));
    const diff = diffDraft(draft, found, entity, ctx.model.baseLanguage, ids, ctx.settings.exactText);
    if (diff.changes.length === 0) {
      if (prior?.action === 'create') return done({ draft, outcome: 'created', id: found.id, status: 201 });
      if (prior?.action === 'update')
        return done({ draft, outcome: 'updated', id: found.id, status: 204, changes: priorChanges(prior) });
      return done({ draft, outcome: 'unchanged', id: found.id });
    }
    if (ctx.settings.plan)
      return done({ draft, outcome: 'would-update', id: found.id, changes: diff.changes });
    return { draft, send: 'patch', id: found.id, body: diff.body, changes: diff.changes, withAssets };
  }
  if (ctx.settings.plan) return done({ draft, outcome: 'would-create' });
  return { draft, send: 'post', body: { ...writeBody(draft, ctx.model), ...ids }, withAssets };
}

/**
 * Takes the assets that could not be registered out of the draft (a list keeps its other values; a
 * field left empty is not written, so an existing record keeps what it has). One warning per asset.
 */
function leaveOut(draft: Draft, failed: readonly AssetOutcome[], baseLanguage: string): string[] {
  const warnings: string[] = [];
  for (const outcome of failed) {
    for (const asset of draft.assets) {
      // A URL's outcome names the URL; a plain name's, the name.
      if ((asset.url ?? asset.name) !== outcome.url) continue;
      const values =
        asset.culture && asset.culture !== baseLanguage ? draft.cultures[asset.culture] : draft.fields;
      if (!values) continue;
      const value = values[asset.field];
      if (Array.isArray(value)) {
        const kept = value.filter((v) => v !== asset.name && v !== outcome.reference);
        if (kept.length > 0) values[asset.field] = kept;
        else delete values[asset.field];
      } else if (value === asset.name || value === outcome.reference) delete values[asset.field];
    }
    warnings.push(leftOutWarning(outcome.kind, outcome.url, outcome.message));
  }
  const gone = new Set(failed.map((o) => o.url));
  draft.assets = draft.assets.filter((a) => !gone.has(a.url ?? a.name));
  return warnings;
}

function idsOf(link: ResolvedLinks | undefined): Record<string, unknown> {
  return link && 'ids' in link ? link.ids : {};
}

/** A plan: a record an earlier row would write, whose values the plan no longer holds (`planned.ts`). */
function valuesUnknown(draft: Draft, id: number | string, plannedBy: string): DraftResult {
  return {
    draft,
    outcome: 'would-update',
    id,
    message: `${plannedBy} would already have written this record, but the plan no longer holds its values (it keeps those of the latest records, about ${PLANNED_VALUES_BUDGET / 2 ** 20} MB): the import updates what differs from them, or finds the record unchanged`,
  };
}

function changedNames(changes: readonly FieldChange[]): string {
  return changes.map((c) => (c.culture ? `${c.field}_${c.culture}` : c.field)).join(';');
}

/** The changes an interrupted update made, by name (their values are in the tenant now). */
function priorChanges(prior: WriteIntent): FieldChange[] {
  return (prior.changed ?? '')
    .split(';')
    .filter(Boolean)
    .map((field) => ({ field, old: undefined, new: undefined }));
}

/** POST, and when the outcome is unknown, look the ref up before sending again: never a duplicate. */
async function create(
  ctx: ExecutorContext,
  lookup: RecordLookup,
  entity: EntityModel,
  draft: Draft,
  body: Record<string, unknown>,
): Promise<number | string> {
  return createOnce(ctx, entity, body, async () => {
    const found = await lookup.records(entity, [draft], { baseOnly: true });
    return found.get(draft.ref)?.id;
  });
}

/** Failures of a check that leave the row unfinished as any request cut short (the run stopped, the service is gone). */
const CUT_SHORT: ReadonlySet<string> = new Set(['API_STOPPED', 'API_UNREACHABLE']);

/**
 * One POST of a new record: sent again only when its outcome is unknown (a timeout, a cut connection)
 * and `findId` (a lookup by ref) finds no record, so a record is never created twice. The last try's
 * unknown outcome is looked up as the others': its id when it was made, an `UnmadeWrite` when it was
 * not, an `UncertainWrite` when the look-up failed too; else the service's error.
 */
export async function createOnce(
  ctx: ExecutorContext,
  entity: EntityModel,
  body: Record<string, unknown>,
  findId: () => Promise<number | string | undefined>,
): Promise<number | string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await ctx.catalog.create(entity.path, body)).id;
    } catch (err) {
      if (!isApiError(err) || !err.ambiguous) throw err;
      const found = await findId().catch((checkErr: unknown) => {
        // The run stopped, or the service is gone: the row is not finished, as any cut short.
        if (!isApiError(checkErr) || CUT_SHORT.has(checkErr.code)) throw checkErr;
        // The record may have been created: not a failure, not a success either.
        throw new UncertainWrite(err, checkErr, attempt);
      });
      if (found !== undefined) return found;
      // No try made it, and none is left: the record is not there.
      if (attempt >= AMBIGUOUS_POST_ATTEMPTS) throw new UnmadeWrite(err, attempt);
    }
  }
}
