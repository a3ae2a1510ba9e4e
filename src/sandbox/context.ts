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

/**
 * An option the sandbox cannot start with: `code` CONFIG_INVALID (the sandbox imports nothing of the
 * client; the library's `startSandbox` gives it as a CatalogIoError).
 */
export class SandboxStartError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'SandboxStartError';
  }
}

/** A library caller's sandbox option that would start a sandbox other than the one asked for. */
function invalidOption(option: string, expected: string, value: unknown): SandboxStartError {
  const found =
    typeof value === 'string'
      ? JSON.stringify(value)
      : typeof value === 'number'
        ? String(value)
        : typeof value;
  return new SandboxStartError(`startSandbox: ${option} must be ${expected}; found ${found}`);
}

/** Refuses options of the wrong kind or out of range, naming the option and what it takes. */
function checkOptions(o: SandboxOptions): void {
  const words: Array<[keyof SandboxOptions, readonly string[]]> = [
    ['seed', ['demo', 'empty']],
    ['remoteAssets', ['live', 'synthetic']],
  ];
  for (const [key, allowed] of words) {
    const value: unknown = o[key];
    if (value !== undefined && !allowed.includes(value as string))
      throw invalidOption(key, `one of ${allowed.join(', ')}`, value);
  }
  const numbers: Array<[keyof SandboxOptions, number, number, boolean]> = [
    ['port', 0, 65_535, true],
    ['latencyMs', 0, 600_000, false],
    ['faultRate', 0, 1, false],
    ['resetRate', 0, 1, false],
    ['processingMs', 0, 600_000, false],
    ['imageQuota', 0, Number.MAX_SAFE_INTEGER, true],
    ['fileQuota', 0, Number.MAX_SAFE_INTEGER, true],
    ['compactLogBytes', 1, Number.MAX_SAFE_INTEGER, true],
  ];
  for (const [key, min, max, whole] of numbers) {
    const value: unknown = o[key];
    if (value === undefined) continue;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < min ||
      value > max ||
      (whole && !Number.isInteger(value))
    )
      throw invalidOption(key, `${whole ? 'a whole number' : 'a number'} from ${min} to ${max}`, value);
  }
  const rate: unknown = o.rateLimit;
  if (rate !== undefined) {
    const r = rate as { requests?: unknown; windowSeconds?: unknown } | null;
    const ok =
      r !== null &&
      typeof r === 'object' &&
      typeof r.requests === 'number' &&
      Number.isInteger(r.requests) &&
      r.requests >= 1 &&
      typeof r.windowSeconds === 'number' &&
      Number.isFinite(r.windowSeconds) &&
      r.windowSeconds > 0;
    if (!ok)
      throw invalidOption(
        'rateLimit',
        '{ requests: N, windowSeconds: S } (N a whole number from 1, S above 0), or left out for no limit',
        rate,
      );
  }
}

export function resolveOptions(o: SandboxOptions): ResolvedOptions {
  checkOptions(o);
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
