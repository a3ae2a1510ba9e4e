// The DAM step of a batch: register the drafts' image and file URLs (once per URL per run, after one
// lookup per 100 names), and point each draft at the reference the DAM gave.

import { isApiError } from '../../api/errors.js';
import type { AssetRef, Draft } from '../../mappers/types.js';
import { type AssetOutcome, type AssetRegistrar, endsTheRun } from './assets.js';

/** `registrar`: asked for only when a draft names a URL (the DAM client is created on first use). */
export async function registerDraftAssets(
  registrar: () => AssetRegistrar,
  baseLanguage: string,
  drafts: readonly Draft[],
  /** Awaited once a draft's URLs are registered (a test pauses the run there). */
  checkpoint?: () => Promise<void> | undefined,
  /** A plan: also find the plain names the DAM does not hold (the import's write would be refused). */
  plan = false,
): Promise<Map<Draft, AssetOutcome[]>> {
  const out = new Map<Draft, AssetOutcome[]>();
  const urls = drafts.flatMap((d) =>
    d.assets.filter((a): a is AssetRef & { url: string } => typeof a.url === 'string'),
  );
  if (urls.length > 0) await registerUrls(registrar(), baseLanguage, drafts, out, urls, checkpoint);
  await missingPlainNames(registrar, drafts, out, plan);
  return out;
}

/**
 * The plain names (no URL) the DAM does not hold, nor will after this run's registrations: the catalog
 * would refuse the write, so they fail like a URL the DAM refused (left out with a warning by default).
 * One lookup per 100 names not known yet. Without a DAM configured, the import leaves them to the catalog.
 */
async function missingPlainNames(
  registrar: () => AssetRegistrar,
  drafts: readonly Draft[],
  out: Map<Draft, AssetOutcome[]>,
  plan: boolean,
): Promise<void> {
  const plain = drafts.flatMap((d) => d.assets.filter((a) => a.url === undefined));
  if (plain.length === 0) return;
  // A name the catalog refuses in a record fails without a lookup (and without a DAM configured).
  const failed = (draft: Draft, a: AssetRef, message: string) => {
    const outcomes = out.get(draft) ?? [];
    outcomes.push({ url: a.name, kind: a.kind, reference: a.name, status: 'failed', message });
    out.set(draft, outcomes);
  };
  for (const draft of drafts) {
    for (const a of draft.assets)
      if (a.url === undefined && a.unusable !== undefined) failed(draft, a, a.unusable);
  }
  const named = plain.filter((a) => a.unusable === undefined);
  if (named.length === 0) return;
  let assets: AssetRegistrar;
  try {
    assets = registrar();
  } catch (err) {
    if (plan) throw err;
    return;
  }
  const missing = await assets.missingNames(named);
  for (const draft of drafts) {
    for (const a of draft.assets) {
      if (a.url !== undefined || a.unusable !== undefined || !missing.has(`${a.kind}:${a.name}`)) continue;
      failed(draft, a, `the ${a.kind} '${a.name}' does not exist in the DAM`);
    }
  }
}

async function registerUrls(
  assets: AssetRegistrar,
  baseLanguage: string,
  drafts: readonly Draft[],
  out: Map<Draft, AssetOutcome[]>,
  urls: ReadonlyArray<AssetRef & { url: string }>,
  checkpoint?: () => Promise<void> | undefined,
): Promise<void> {
  // One lookup per 100 references instead of a POST (and a 409) per asset the DAM already has. It
  // only saves requests: when the DAM cannot answer it, each URL's registration says what happened to
  // that URL, and the drafts without URLs are not held back by it. A DAM gone past the outage budget
  // (or a stop) ends the run: the batch's rows are not written.
  try {
    await assets.lookup(urls);
  } catch (err) {
    if (!isApiError(err) || endsTheRun(err.code)) throw err;
  }
  await Promise.all(
    drafts.map(async (draft) => {
      const withUrl = draft.assets.filter((a): a is AssetRef & { url: string } => typeof a.url === 'string');
      if (withUrl.length === 0) return;
      const outcomes = await Promise.all(
        withUrl.map((a) => assets.register(a.kind, a.url, a.tags, a.unusable)),
      );
      // The DAM's reference is what the catalog write names (it is the file name, normally as drafted).
      withUrl.forEach((a, i) => {
        const o = outcomes[i]!;
        if (o.status !== 'failed' && o.status !== 'uncertain' && o.reference !== a.name)
          renameAsset(draft, a, o.reference, baseLanguage);
      });
      out.set(draft, outcomes);
      await checkpoint?.();
    }),
  );
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
