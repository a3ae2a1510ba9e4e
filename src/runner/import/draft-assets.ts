// The DAM step of a batch: register the drafts' image and file URLs (once per URL per run, after one
// lookup per 100 names), and point each draft at the reference the DAM gave.
import type { AssetRef, Draft } from '../../mappers/types.js';
import type { AssetOutcome, AssetRegistrar } from './assets.js';

/** `registrar`: asked for only when a draft names a URL (the DAM client is created on first use). */
export async function registerDraftAssets(
  registrar: () => AssetRegistrar,
  baseLanguage: string,
  drafts: readonly Draft[],
  /** Awaited once a draft's URLs are registered (a test pauses the run there). */
  checkpoint?: () => Promise<void> | undefined,
): Promise<Map<Draft, AssetOutcome[]>> {
  const out = new Map<Draft, AssetOutcome[]>();
  const urls = drafts.flatMap((d) =>
    d.assets.filter((a): a is AssetRef & { url: string } => typeof a.url === 'string'),
  );
  if (urls.length === 0) return out;
  const assets = registrar();
  // One lookup per 100 references instead of a POST (and a 409) per asset the DAM already has.
  await assets.lookup(urls);
  await Promise.all(
    drafts.map(async (draft) => {
      const withUrl = draft.assets.filter((a): a is AssetRef & { url: string } => typeof a.url === 'string');
      if (withUrl.length === 0) return;
      const outcomes = await Promise.all(withUrl.map((a) => assets.register(a.kind, a.url, a.tags)));
      // The DAM's reference is what the catalog write names (it is the file name, normally as drafted).
      withUrl.forEach((a, i) => {
        const o = outcomes[i]!;
        if (o.status !== 'failed' && o.reference !== a.name) renameAsset(draft, a, o.reference, baseLanguage);
      });
      out.set(draft, outcomes);
      await checkpoint?.();
    }),
  );
  return out;
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
