// The DAM step of a copy: every image and file of the source (or, with --since, those modified since the
// last copy) registered in the target from its `originalUrl`, with its tags, unless the target already
// holds that name (then only its tags are brought over, when they differ). Pages of 100: one existence lookup per page, then a POST per missing asset; a 409
// (the name arrived meanwhile) counts as there. Runs before the records, which name the assets.
import type { AssetKind, DamClient } from '../../api/dam.js';
import { isApiError } from '../../api/errors.js';
import { gt } from '../../api/filter.js';
import type { ImportReportWriter } from '../../writers/import-report.js';
import { safeReference } from '../import/assets.js';
import type { StructureOutcome } from '../structure/types.js';

const PAGE = 100;
/** Registrations in flight at once (each makes the DAM fetch a file). */
const PARALLEL = 4;
/** Errors that are not one asset's: they end the copy. */
const ENDS_THE_COPY: ReadonlySet<string> = new Set(['API_STOPPED', 'API_UNREACHABLE']);

interface AssetRecord {
  reference: string;
  originalUrl?: string;
  tags?: string[];
  modifiedOn?: string;
}

export interface AssetCopyResult {
  outcomes: Partial<Record<StructureOutcome, number>>;
  /** The newest `modifiedOn` among the source's assets read (the next `--since` starts there). */
  newest?: string;
}

export async function copyAssets(
  from: DamClient,
  to: DamClient,
  options: {
    plan: boolean;
    since?: string;
    report: ImportReportWriter;
    stopped?: () => boolean;
    /** A plan: a name it would register (the records' plan then finds it). */
    wouldRegister?: (kind: AssetKind, name: string) => void;
  },
): Promise<AssetCopyResult> {
  const result: AssetCopyResult = { outcomes: {} };
  for (const kind of ['image', 'file'] as const) {
    let page: AssetRecord[] = [];
    const flush = async () => {
      await copyPage(kind, page, to, options, result);
      page = [];
    };
    for await (const asset of from.list<AssetRecord>(kind, {
      ...(options.since && { filter: gt('modifiedOn', new Date(options.since)) }),
      pageSize: PAGE,
    })) {
      if (asset.modifiedOn && (!result.newest || asset.modifiedOn > result.newest))
        result.newest = asset.modifiedOn;
      page.push(asset);
      if (page.length === PAGE) await flush();
      if (options.stopped?.()) return result;
    }
    await flush();
  }
  return result;
}

async function copyPage(
  kind: AssetKind,
  page: AssetRecord[],
  to: DamClient,
  options: {
    plan: boolean;
    report: ImportReportWriter;
    wouldRegister?: (kind: AssetKind, name: string) => void;
  },
  result: AssetCopyResult,
): Promise<void> {
  if (page.length === 0) return;
  /** The target's assets of this page by name, with their tags. */
  const present = new Map<string, string[]>();
  for await (const record of to.existing<{ reference: string; tags?: string[] }>(
    kind,
    page.map((a) => a.reference),
  ))
    present.set(record.reference, record.tags ?? []);
  const count = (outcome: StructureOutcome) => {
    result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
  };
  const line = async (asset: AssetRecord, outcome: StructureOutcome, status = '', message = '') => {
    count(outcome);
    await options.report.write({
      location: `${kind} ${asset.reference}`,
      entity: `${kind}s`,
      ref: asset.reference,
      outcome,
      id: '',
      status,
      changed: '',
      field: '',
      column: '',
      value: '',
      message,
      warnings: '',
      assets: asset.originalUrl ?? '',
    });
  };
  const missing: AssetRecord[] = [];
  for (const asset of page) {
    const there = present.get(asset.reference);
    if (!there) missing.push(asset);
    else if (sameTags(there, asset.tags)) await line(asset, 'unchanged');
    else {
      // The name is there, its tags are not the source's: they are brought over (the file is the name's).
      const o = await retag(kind, asset, to, options.plan);
      await line(asset, o.outcome, o.status, o.message);
    }
  }
  for (let i = 0; i < missing.length; i += PARALLEL) {
    const outcomes = await Promise.all(
      missing.slice(i, i + PARALLEL).map((asset) => register(kind, asset, to, options.plan)),
    );
    for (const [k, o] of outcomes.entries()) {
      if (o.outcome === 'would-create') options.wouldRegister?.(kind, missing[i + k]!.reference);
      await line(missing[i + k]!, o.outcome, o.status, o.message);
    }
  }
}

function tagsOf(tags: readonly string[] | undefined): string[] {
  return (tags ?? []).filter((t) => t.trim() !== '');
}

/** Tags compare as a set: the DAM keeps them in no promised order. */
function sameTags(a: readonly string[], b: readonly string[] | undefined): boolean {
  const x = [...new Set(tagsOf(a))].sort();
  const y = [...new Set(tagsOf(b))].sort();
  return x.length === y.length && x.every((t, i) => t === y[i]);
}

async function retag(
  kind: AssetKind,
  asset: AssetRecord,
  to: DamClient,
  plan: boolean,
): Promise<{ outcome: StructureOutcome; status?: string; message?: string }> {
  if (plan) return { outcome: 'would-update', message: `tags: ${tagsOf(asset.tags).join(', ') || '(none)'}` };
  try {
    await to.patchAsset(kind, asset.reference, { tags: tagsOf(asset.tags) });
    return { outcome: 'updated', status: '204' };
  } catch (err) {
    // An image still being processed refuses changes (409): the next copy brings them.
    if (isApiError(err) && err.status !== undefined && err.status < 500 && err.status !== 401)
      return { outcome: 'failed', status: String(err.status), message: `tags not changed: ${err.message}` };
    throw err;
  }
}

async function register(
  kind: AssetKind,
  asset: AssetRecord,
  to: DamClient,
  plan: boolean,
): Promise<{ outcome: StructureOutcome; status?: string; message?: string }> {
  const url = asset.originalUrl;
  const usable = !!url && safeReference(url) === asset.reference;
  if (!url || !usable) {
    return {
      outcome: 'failed',
      message: `the source DAM gives no URL ending in '${asset.reference}' (originalUrl ${url ?? 'empty'}): it cannot be registered under that name`,
    };
  }
  if (plan) return { outcome: 'would-create' };
  try {
    await to.register(
      kind,
      url,
      asset.tags?.filter((t) => t.trim() !== ''),
    );
    return { outcome: 'created', status: '201' };
  } catch (err) {
    // A stop, a refused key or a service gone past the outage budget ends the copy (then --resume);
    // anything else is this asset's line.
    if (!isApiError(err) || ENDS_THE_COPY.has(err.code) || err.status === 401 || err.status === 403)
      throw err;
    const message = err.failures.map((f) => f.message).join('; ') || err.message;
    if (err.status === 409 && /already exists/i.test(message)) return { outcome: 'unchanged', status: '409' };
    // A POST without a clear answer may have gone through: the target says whether the name is there.
    if (err.ambiguous && (await holds(to, kind, asset.reference))) return { outcome: 'created' };
    // The DAM's own 500 for a source it could not fetch (a dead URL in the source tenant) fails this
    // asset alone, like a 400: the next copy tries it again.
    return { outcome: 'failed', status: err.status === undefined ? '' : String(err.status), message };
  }
}

async function holds(to: DamClient, kind: AssetKind, reference: string): Promise<boolean> {
  for await (const _ of to.existing(kind, [reference])) return true;
  return false;
}
