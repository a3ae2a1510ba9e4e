// Registering image and file URLs in the DAM before the catalog writes that name them.
// - The same URL is registered once per run: concurrent requests for it share one promise.
// - A cache file (URL -> reference) skips URLs registered by earlier runs (`--refresh-assets` ignores it).
// - 409 "already exists" follows the duplicate policy; 409 quota stops every later registration;
//   a 400 fails only the rows that use that URL. Two URLs with the same file name are reported.
// - A URL the DAM could not take (a 400, or its own 500: the source could not be fetched) costs one
//   POST per run, and is remembered in the cache file for a while (`failedTtlMs`): the runs after it
//   do not spend a request on it until then.
// - What is remembered between runs (the cache file, failed URLs, the image library's mark) is
//   asset-cache.ts.

import type { AssetKind, DamClient } from '../../api/dam.js';
import { isApiError } from '../../api/errors.js';
import { RETRY_DEFAULTS } from '../../api/retry.js';
import { setBounded } from '../../bounded-map.js';
import { refusedHost, severalUrls } from '../asset-check.js';
import { AssetCache, CACHE_LIMIT } from './asset-cache.js';
import type { PlannedRecords } from './planned.js';

export { CACHE_LIMIT, FAILED_LIMIT, FAILED_TTL_MS } from './asset-cache.js';

export type DuplicatePolicy = 'reuse' | 'replace' | 'fail';

export type AssetErrorPolicy = 'warn' | 'fail';

/**
 * `uncertain`: its registration's answer was lost and the look-up that would tell whether the DAM took
 * it failed too; the record is written without it, the next run checks it.
 */
export type AssetStatus = 'registered' | 'reused' | 'cached' | 'planned' | 'failed' | 'uncertain';

/** Distinct URLs by outcome; `uncertain` only when there are some. */
export type AssetCounts = Record<Exclude<AssetStatus, 'uncertain'>, number> & { uncertain?: number };

export interface AssetOutcome {
  url: string;
  kind: AssetKind;
  /** The DAM reference the catalog write names. */
  reference: string;
  status: AssetStatus;
  /** Why it failed, in the DAM's words. */
  message?: string;
  /** A failure of the DAM, not of the URL: a later attempt of this run (--resume) tries it again. */
  retry?: true;
}

export interface AssetRegistrarOptions {
  onDuplicate: DuplicatePolicy;
  /** Where URLs registered by earlier runs are remembered; undefined: no cache. */
  cacheFile?: string;
  /** Ignore what the cache says (it is still updated). */
  refresh?: boolean;
  /** --plan: decide references, register nothing. */
  plan?: boolean;
  /** A plan over several runs (a workbook's sheets): the names the runs before would register. */
  planned?: Pick<PlannedRecords, 'registers' | 'wouldRegister'>;
  /** How long `replace` waits for an image to leave processing before giving up. */
  replaceWaitMs?: number;
  /** How long a URL that failed is not tried again (runs read it from the cache file). Default 7 days. */
  failedTtlMs?: number;
  /** The run's journal: registrations are noted before they are sent, so a resume knows them. */
  log?: AssetLog;
  /** `--wait-for-images`: the images this run registers are kept by name (else only counted). */
  keepNewImages?: boolean;
}

/** What an earlier attempt of this run did with a URL (`pending`: sent, outcome unknown). */
export interface EarlierAsset {
  kind: AssetKind;
  reference: string;
  status: 'pending' | 'registered' | 'reused' | 'cached' | 'failed';
  /** Why it failed (a `failed` one). */
  message?: string;
  /** A `failed` one the DAM failed (not the URL): tried again, and counted once. */
  retry?: true;
}

/** Where the registrar notes what it does, and what a killed attempt of the same run did. */
export interface AssetLog {
  earlier(url: string): EarlierAsset | undefined;
  /** Distinct URLs by outcome, of the attempts before (they count as this run's). */
  earlierCounts(): Partial<Record<AssetStatus, number>>;
  /** Written at once, before the registration goes out. */
  pending(kind: AssetKind, url: string, reference: string): void;
  outcome(outcome: AssetOutcome): void;
}

/** A POST whose outcome is unknown is looked up and, if nothing was created, sent again: at most this many times. */
export const AMBIGUOUS_POST_ATTEMPTS = RETRY_DEFAULTS.maxAttempts;

/** The DAM reference of a URL: the decoded file name of its path. */
export function referenceOf(url: string): string {
  const path = new URL(url).pathname;
  const name = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

export class AssetRegistrar {
  private readonly inFlight = new Map<string, Promise<AssetOutcome>>();
  /** Outcomes of this run by URL (bounded like the cache). */
  private readonly done = new Map<string, AssetOutcome>();
  /** Reference -> the URL that claimed it this run (bounded like the cache). */
  private readonly claimed = new Map<string, string>();
  /** What earlier runs registered or could not register, and the image library's mark. */
  private readonly memory: AssetCache;
  /** POSTs sent again after an answer that left their outcome unknown (counted as retries). */
  resends = 0;
  private quotaMessage: Partial<Record<AssetKind, string>> = {};
  /** References the DAM already holds, found by lookup (bounded like the cache). */
  private readonly known = new Map<string, true>();
  /** Images this run registered, by name only for `--wait-for-images`: a large feed's run holds no list. */
  private readonly registeredImages: string[] = [];
  private imagesRegistered = 0;
  /** Distinct URLs by outcome. */
  readonly counts: AssetCounts = {
    registered: 0,
    reused: 0,
    cached: 0,
    planned: 0,
    failed: 0,
  };

  constructor(
    private readonly dam: DamClient,
    private readonly options: AssetRegistrarOptions,
  ) {
    this.memory = new AssetCache(dam, {
      file: options.cacheFile,
      refresh: options.refresh,
      plan: options.plan,
      failedTtlMs: options.failedTtlMs,
    });
    for (const [status, n] of Object.entries(options.log?.earlierCounts() ?? {}))
      this.counts[status as AssetStatus] = (this.counts[status as AssetStatus] ?? 0) + n;
  }

  /** Images registered by this run, when `keepNewImages` (--wait-for-images) asked for them. */
  get newImages(): readonly string[] {
    return this.registeredImages;
  }

  /**
   * Looks up, 100 references per request, which of these URLs' references the DAM already holds, so
   * registering them costs no POST (and no 409). URLs known from this run or the cache are skipped.
   */
  async lookup(all: ReadonlyArray<{ kind: AssetKind; url: string; unusable?: string }>): Promise<void> {
    // A name the catalog refuses is not registered (`register`): nothing to look up, nor to check.
    const assets = all.filter(
      ({ url, unusable }) => unusable === undefined && safeReference(url) !== undefined,
    );
    if (assets.some((a) => a.kind === 'image')) await this.checkCache();
    const byKind = new Map<AssetKind, Set<string>>();
    for (const { kind, url } of assets) {
      if (this.done.has(url) || this.inFlight.has(url)) continue;
      if (this.memory.cached(kind, url) !== undefined) continue;
      const earlier = this.options.log?.earlier(url);
      if (earlier && earlier.status !== 'pending' && !earlier.retry) continue;
      if (this.memory.failure(url, kind)) continue;
      const reference = safeReference(url);
      if (reference === undefined || this.known.has(`${kind}:${reference}`)) continue;
      const set = byKind.get(kind) ?? new Set<string>();
      set.add(reference);
      byKind.set(kind, set);
    }
    for (const [kind, references] of byKind) {
      for await (const record of this.dam.existing<{ reference: string }>(kind, references)) {
        setBounded(this.known, `${kind}:${record.reference}`, true, CACHE_LIMIT);
      }
    }
  }

  /**
   * A plan's check of the plain names drafts give (no URL to register): which of them the DAM does not
   * hold, nor would hold after this plan's registrations. The import's write would be refused for them.
   * One lookup per 100 names; the names found are remembered.
   */
  async missingNames(assets: ReadonlyArray<{ kind: AssetKind; name: string }>): Promise<Set<string>> {
    const byKind = new Map<AssetKind, Set<string>>();
    const has = (kind: AssetKind, name: string) =>
      this.known.has(`${kind}:${name}`) ||
      this.claimed.has(name) ||
      !!this.options.planned?.registers(kind, name);
    for (const { kind, name } of assets) {
      if (has(kind, name)) continue;
      const set = byKind.get(kind) ?? new Set<string>();
      set.add(name);
      byKind.set(kind, set);
    }
    for (const [kind, names] of byKind) {
      for await (const record of this.dam.existing<{ reference: string }>(kind, names)) {
        setBounded(this.known, `${kind}:${record.reference}`, true, CACHE_LIMIT);
      }
    }
    return new Set(assets.filter((a) => !has(a.kind, a.name)).map((a) => `${a.kind}:${a.name}`));
  }

  /**
   * Registers a URL (with DAM tags the first time) once per run; later calls share the outcome.
   * `unusable`: why the catalog refuses the URL's name in the field it goes to (the AssetRef's verdict,
   * `unusableName`), or undefined.
   */
  register(kind: AssetKind, url: string, tags?: string[], unusable?: string): Promise<AssetOutcome> {
    const reference = referenceOf(url);
    // A name the catalog would refuse in the record: the DAM would register it all the same, for
    // nothing. Before the URL's known outcome: the same URL may serve a list field, where a comma is fine.
    if (unusable !== undefined)
      return Promise.resolve(this.count({ url, kind, reference, status: 'failed', message: unusable }));
    const known = this.done.get(url) ?? this.inFlight.get(url);
    if (known) return Promise.resolve(known);
    const several = severalUrls(url);
    if (several !== undefined)
      return Promise.resolve(this.count({ url, kind, reference, status: 'failed', message: several }));
    // An earlier attempt of this run settled it (and counted it): the same outcome, not counted again.
    const earlier = this.options.log?.earlier(url);
    if (earlier && earlier.status !== 'pending' && !earlier.retry && earlier.kind === kind) {
      const outcome: AssetOutcome = {
        url,
        kind,
        reference: earlier.reference,
        status: earlier.status,
        ...(earlier.message !== undefined && { message: earlier.message }),
      };
      setBounded(this.claimed, earlier.reference, url, CACHE_LIMIT);
      setBounded(this.done, url, outcome, CACHE_LIMIT);
      if (outcome.status === 'registered' && kind === 'image') this.newImage(outcome.reference);
      return Promise.resolve(outcome);
    }
    const claimedBy = this.claimed.get(reference);
    // The name is an earlier run's image of another URL (rows reordered since): `reuse` would give
    // this row that URL's file. `replace` asks for exactly that; `fail` finds out by the 409.
    const owner =
      this.options.onDuplicate === 'reuse'
        ? this.memory.registeredFromElsewhere(kind, url, reference)
        : undefined;
    const taken =
      claimedBy !== undefined && claimedBy !== url
        ? `is already used in this run by ${claimedBy}`
        : owner !== undefined
          ? `is the DAM's ${kind} registered by an earlier run from ${owner}`
          : undefined;
    if (taken !== undefined) {
      const message = `The file name '${reference}' ${taken}; the DAM keys assets by file name, so rename one of them`;
      return Promise.resolve(this.count({ url, kind, reference, status: 'failed', message }));
    }
    setBounded(this.claimed, reference, url, CACHE_LIMIT);
    const pending = this.registerOnce(kind, url, reference, tags).then((outcome) => {
      this.inFlight.delete(url);
      setBounded(this.done, url, outcome, CACHE_LIMIT);
      if (!this.options.plan) this.options.log?.outcome(outcome);
      return outcome;
    });
    this.inFlight.set(url, pending);
    // A URL the DAM failed in an earlier attempt is counted (earlierCounts) as failed: once in all.
    const recount = earlier?.status === 'failed' && earlier.retry === true && earlier.kind === kind;
    return pending.then((o) => {
      if (recount) this.counts.failed -= 1;
      return this.count(o);
    });
  }

  /** Checks the cache's images against the DAM, once per run (see AssetCache.check). */
  checkCache(): Promise<void> {
    return this.memory.check();
  }

  /** The reference the checked cache vouches an image URL resolved to (see AssetCache.vouchedReference). */
  vouchedReference(kind: AssetKind, url: string): string | undefined {
    return this.memory.vouchedReference(kind, url);
  }

  /** Writes what this run learned to the cache file (see AssetCache.save). */
  saveCache(): Promise<void> {
    return this.memory.save(this.imagesRegistered);
  }

  private newImage(reference: string): void {
    this.imagesRegistered += 1;
    if (this.options.keepNewImages) this.registeredImages.push(reference);
  }

  private count(outcome: AssetOutcome): AssetOutcome {
    this.counts[outcome.status] = (this.counts[outcome.status] ?? 0) + 1;
    return outcome;
  }

  private async registerOnce(
    kind: AssetKind,
    url: string,
    reference: string,
    tags?: string[],
  ): Promise<AssetOutcome> {
    if (kind === 'image') await this.checkCache();
    const cached = this.memory.cached(kind, url);
    if (cached !== undefined) return { url, kind, reference: cached, status: 'cached' };
    const failedBefore = this.memory.failure(url, kind);
    if (failedBefore) {
      const until = this.memory.retryAfter(failedBefore);
      return {
        url,
        kind,
        reference,
        status: 'failed',
        message: `${failedBefore.message} (at ${failedBefore.failedAt}; not tried again before ${until}, --refresh-assets tries it now)`,
      };
    }
    const exists = this.known.has(`${kind}:${reference}`);
    if (this.options.plan) {
      // A host the DAM refuses by its name or address alone: the registration would be refused. The
      // import still asks the DAM (its deployment may allow a host of its own), once: a refusal is
      // remembered in the cache file like any URL the DAM could not take.
      const host = !exists ? refusedHostOf(url, this.dam.url('/')) : undefined;
      if (host !== undefined)
        return { url, kind, reference, status: 'failed', message: `URL host '${host}' is not allowed.` };
      if (!exists) this.options.planned?.wouldRegister(kind, reference);
      return { url, kind, reference, status: exists ? 'reused' : 'planned' };
    }
    if (exists && this.options.log?.earlier(url)?.status === 'pending') {
      // This run sent it before it was killed: registered by this run, as an unbroken run would say.
      if (kind === 'image') this.newImage(reference);
      this.memory.remember(url, kind, reference);
      return { url, kind, reference, status: 'registered' };
    }
    if (exists) {
      const noun = kind === 'image' ? 'An image' : 'A file';
      return this.onDuplicate(
        kind,
        url,
        reference,
        `${noun} with the filename '${reference}' already exists`,
      );
    }
    const quota = this.quotaMessage[kind];
    if (quota) return { url, kind, reference, status: 'failed', message: quota };

    this.options.log?.pending(kind, url, reference);
    for (let attempt = 1; ; attempt++) {
      try {
        const created = await this.dam.register(kind, url, tags);
        if (kind === 'image') this.newImage(created.reference);
        this.memory.remember(url, kind, created.reference);
        return { url, kind, reference: created.reference, status: 'registered' };
      } catch (err) {
        // A run that stops, or a DAM gone past the outage budget, leaves the registration unfinished:
        // its rows are not finished either (the run stops, --resume registers it).
        if (!isApiError(err) || endsTheRun(err.code)) throw err;
        const message = err.failures.map((f) => f.message).join('; ') || err.message;
        if (err.status === 409 && /limit reached/i.test(message)) {
          this.quotaMessage[kind] = message;
          return { url, kind, reference, status: 'failed', message };
        }
        if (err.status === 409) return this.onDuplicate(kind, url, reference, message);
        if (!err.ambiguous) {
          const outcome = this.failed(url, kind, reference, message, err.status === 400);
          return isDamFault(err.code) ? { ...outcome, retry: true } : outcome;
        }
        // The POST may have gone through: the asset exists now, or it is safe to send again.
        let checkFailed: string | undefined;
        const there = await this.exists(kind, reference).catch((lookupErr: unknown) => {
          if (!isApiError(lookupErr) || endsTheRun(lookupErr.code)) throw lookupErr;
          checkFailed = lookupErr.message;
          return undefined;
        });
        // It may be registered: not failed, not registered either. The journal keeps it pending, so a
        // resume looks it up; the record is written without it, and the next run checks it.
        if (there === undefined)
          return {
            url,
            kind,
            reference,
            status: 'uncertain',
            message: `${message}; the look-up that would tell failed (${checkFailed}): the next run checks it`,
          };
        if (there) {
          if (kind === 'image') this.newImage(reference);
          this.memory.remember(url, kind, reference);
          return { url, kind, reference, status: 'registered' };
        }
        // The DAM could not fetch the source (the spec's 500 for transport failures reaching the source
        // URL and download time-outs): sending it again would only fail again. Once per run. Other
        // 500s (storage, database) may pass on another try.
        if (err.status === 500 && isSourceFailure(message))
          return this.failed(url, kind, reference, message, true);
        // No try made it (the look-up after each found nothing), and none is left: not registered, said
        // as such (the DAM failed, not the URL: a resume tries it again).
        if (attempt >= AMBIGUOUS_POST_ATTEMPTS) {
          const said = err.failures.map((f) => f.message).join('; ') || err.unmarkedMessage;
          const notThere = `${err.code} after ${attempt} tries: ${said}; the look-up after each try found no ${kind}: not registered`;
          return { ...this.failed(url, kind, reference, notThere, false), retry: true };
        }
        this.resends += 1;
      }
    }
  }

  private async onDuplicate(
    kind: AssetKind,
    url: string,
    reference: string,
    message: string,
  ): Promise<AssetOutcome> {
    switch (this.options.onDuplicate) {
      case 'fail':
        return { url, kind, reference, status: 'failed', message };
      case 'reuse':
        this.memory.remember(url, kind, reference);
        return { url, kind, reference, status: 'reused' };
      case 'replace': {
        const deadline = Date.now() + (this.options.replaceWaitMs ?? 60_000);
        this.options.log?.pending(kind, url, reference);
        for (let wait = 250; ; wait = Math.min(wait * 2, 5_000)) {
          try {
            await this.dam.patchAsset(kind, reference, { url });
            if (kind === 'image') this.newImage(reference);
            this.memory.remember(url, kind, reference);
            return { url, kind, reference, status: 'registered' };
          } catch (err) {
            if (isApiError(err) && endsTheRun(err.code)) throw err;
            // 409 while the image is being processed: wait for it, then replace.
            if (!isApiError(err) || err.status !== 409 || Date.now() + wait > deadline) {
              const why = isApiError(err)
                ? err.failures.map((f) => f.message).join('; ') || err.message
                : String(err);
              return { url, kind, reference, status: 'failed', message: why };
            }
            await new Promise((resolve) => setTimeout(resolve, wait));
          }
        }
      }
    }
  }

  /** A failed outcome; `remember`: the URL itself is at fault, the next runs skip it for a while. */
  private failed(
    url: string,
    kind: AssetKind,
    reference: string,
    message: string,
    remember_: boolean,
  ): AssetOutcome {
    if (remember_) this.memory.rememberFailure(url, kind, message);
    return { url, kind, reference, status: 'failed', message };
  }

  private async exists(kind: AssetKind, reference: string): Promise<boolean> {
    for await (const _ of this.dam.existing(kind, [reference])) return true;
    return false;
  }
}

/**
 * The run stops (a signal), or the DAM stayed unreachable past the outage budget (the run stops too):
 * the registration is not failed, it is not done; its rows are not written without it.
 */
export function endsTheRun(code: string): boolean {
  return code === 'API_STOPPED' || code === 'API_UNREACHABLE';
}

/** The DAM failed (or could not be reached), not the URL: another attempt may pass. */
function isDamFault(code: string): boolean {
  return (
    code === 'API_SERVER' ||
    code === 'API_NETWORK' ||
    code === 'API_TIMEOUT' ||
    code === 'API_RATE_LIMITED' ||
    code === 'API_UNREACHABLE'
  );
}

/** A DAM 500 that says the source URL could not be fetched (not a fault of the DAM itself). */
function isSourceFailure(message: string): boolean {
  return /could not download|could not be reached|download timed out|source (host|url)/i.test(message);
}

/** `referenceOf`, or undefined for a URL that does not parse. */
export function safeReference(url: string): string | undefined {
  try {
    return referenceOf(url);
  } catch {
    return undefined;
  }
}

/** The host of `url` when the DAM refuses it by name or address (its own origin aside), else undefined. */
function refusedHostOf(url: string, damUrl: string): string | undefined {
  try {
    const { hostname, host } = new URL(url);
    return refusedHost(hostname.toLowerCase()) && host !== new URL(damUrl).host ? hostname : undefined;
  } catch {
    return undefined;
  }
}
