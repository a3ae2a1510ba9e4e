// What every sandbox service is given: its options, the clock, a way to say "state changed",
// and the narrow window the catalog has onto the DAM (does this asset name exist?).

export type SeedName = 'demo' | 'empty';

export interface SandboxOptions {
  /** 0 = ephemeral. Default 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 'demo'. */
  seed?: SeedName;
  /** Where the snapshot is kept. Undefined: in memory only (tests). The CLI defaults to `.catalog-io/sandbox/`. */
  dataDir?: string;
  /** Ignore an existing snapshot and start from the seed. */
  reset?: boolean;
  /** Write-log size past which a new snapshot is taken (also at least the snapshot's size). Default 16 MiB. */
  compactLogBytes?: number;
  /** Read-write API key. Default `sandbox-rw-key`. */
  apiKey?: string;
  /** Read-only API key (403 on writes). Default `sandbox-ro-key`. */
  readOnlyKey?: string;
  /** Added latency per catalog/DAM request, in ms (with +-25% jitter). Default 0. */
  latencyMs?: number;
  /** Requests per window per key; beyond it 429 with Retry-After. Default off. The real service allows 50 per 10 s. */
  rateLimit?: { requests: number; windowSeconds: number };
  /** Probability (0..1) of a random 500/502/503 answer instead of processing. Default 0. */
  faultRate?: number;
  /** Probability (0..1) that the connection is destroyed mid-request. Default 0. */
  resetRate?: number;
  /** How long the background worker takes to process an image (Up -> Ok/Er), in ms. Default 50. */
  processingMs?: number;
  /** Image library quota. Default 10,000. */
  imageQuota?: number;
  /** File library quota. Default 10,000. */
  fileQuota?: number;
  /** Extra loopback host:port values the DAM may fetch from besides the sandbox's own asset host. */
  allowHosts?: string[];
  /** Random seed for faults and jitter, so a run can be repeated. */
  randomSeed?: number;
  /** DAM collections carry `@readLink`/`@nextLink` (hypermedia enrichment). Default false: clients page by `$skip`. */
  damLinks?: boolean;
  /**
   * How the DAM treats a public host it cannot reach. `live` (default): the transport-failure 500.
   * `synthetic`: a small generated file of the type the URL names; hosts starting with `dead.` and
   * paths with a `/404/` segment answer 404. Offline trials of real supplier feeds.
   */
  remoteAssets?: RemoteAssets;
}

export type RemoteAssets = 'live' | 'synthetic';

export interface ResolvedOptions {
  port: number;
  host: string;
  seed: SeedName;
  dataDir: string | undefined;
  reset: boolean;
  compactLogBytes: number;
  apiKey: string;
  readOnlyKey: string;
  latencyMs: number;
  rateLimit: { requests: number; windowSeconds: number } | undefined;
  faultRate: number;
  resetRate: number;
  processingMs: number;
  imageQuota: number;
  fileQuota: number;
  allowHosts: string[];
  randomSeed: number | undefined;
  damLinks: boolean;
  remoteAssets: RemoteAssets;
}

export function resolveOptions(o: SandboxOptions): ResolvedOptions {
  return {
    port: o.port ?? 4010,
    host: o.host ?? '127.0.0.1',
    seed: o.seed ?? 'demo',
    dataDir: o.dataDir,
    reset: o.reset ?? false,
    compactLogBytes: o.compactLogBytes ?? 16 * 1024 * 1024,
    apiKey: o.apiKey ?? 'sandbox-rw-key',
    readOnlyKey: o.readOnlyKey ?? 'sandbox-ro-key',
    latencyMs: o.latencyMs ?? 0,
    rateLimit: o.rateLimit,
    faultRate: o.faultRate ?? 0,
    resetRate: o.resetRate ?? 0,
    processingMs: o.processingMs ?? 50,
    imageQuota: o.imageQuota ?? 10_000,
    fileQuota: o.fileQuota ?? 10_000,
    allowHosts: o.allowHosts ?? [],
    randomSeed: o.randomSeed,
    damLinks: o.damLinks ?? false,
    remoteAssets: o.remoteAssets ?? 'live',
  };
}

/** The catalog's view of the DAM: write validation checks that asset names exist. */
export interface AssetDirectory {
  imageExists(reference: string): boolean;
  fileExists(reference: string): boolean;
}

export interface ServiceContext {
  options: ResolvedOptions;
  /** Absolute URLs of the three mounted services (known once the server listens). */
  urls: { origin: string; catalogUrl: string; damUrl: string; assetsUrl: string };
  /** Call after every state change (with a data dir, a change no request waits for is then logged soon). */
  markDirty(): void;
  /** Monotonic wall clock: never returns the same millisecond twice, so changelog order is total. */
  now(): Date;
}

let lastNow = 0;
export function monotonicNow(): Date {
  const t = Math.max(Date.now(), lastNow + 1);
  lastNow = t;
  return new Date(t);
}
