// What an import is given and what it says at the end: the library's contract with the CLI.
import type { CatalogClient } from '../../api/catalog.js';
import type { CountersSnapshot } from '../../api/counters.js';
import type { DamClient } from '../../api/dam.js';
import type { PaceSummary } from '../../api/pace.js';
import type { LockHolder, RunLockStore } from '../../lock/types.js';
import type { Profile } from '../../mappers/profile-types.js';
import type { Command } from '../../mappers/types.js';
import type { ReaderOptions } from '../../readers/index.js';
import type { TenantModel } from '../../schema/model.js';
import type { TopProblem } from '../check.js';
import type { RunState } from '../summary-types.js';
import type { AssetCounts, AssetErrorPolicy, DuplicatePolicy } from './assets.js';
import type { CreatedCategories } from './category-paths.js';
import type { FullSyncResult, MaxMissing } from './full-sync.js';
import type { RowOutcome } from './report-line.js';

export type ImportMode = 'upsert' | 'create' | 'update';

export const MODE_COMMAND: Record<ImportMode, Command> = { upsert: 'MERGE', create: 'NEW', update: 'UPDATE' };

/** Drafts per batch when `--batch-size` is not given. */
export const DEFAULT_BATCH_SIZE = 100;

/** The order a batch writes its entities in: a record's parents and links before it. */
export const WRITE_ORDER: Readonly<Record<string, number>> = {
  categories: 0,
  products: 1,
  custom: 2,
  variants: 3,
};

export const ROW_OUTCOMES: readonly RowOutcome[] = [
  'created',
  'updated',
  'unchanged',
  'deleted',
  'skipped',
  'invalid',
  'failed',
  'not-attempted',
  'would-create',
  'would-update',
  'would-delete',
];

/** Why a run ended before its last row (or, `max-missing`, before its deletions). */
export type StopReason =
  | 'SIGINT'
  | 'SIGTERM'
  | 'max-errors'
  | 'service'
  | 'auth'
  | 'max-missing'
  | 'lock-lost'
  /** A service stayed unreachable past the outage budget. */
  | 'outage'
  /** The source could not be read on (a quote never closed, a truncated JSON, a broken download). */
  | 'source';

/**
 * Set by the caller to stop a run between batches (a signal); the run sets `flushNow` so that a caller
 * exiting at once can leave the journal and report consistent first.
 */
export interface RunStop {
  signal?: 'SIGINT' | 'SIGTERM';
  /** The run's lock was lost (its store no longer says we hold it): another run may take over. */
  lockLost?: boolean;
  /** Told once, as soon as the lock is lost (the CLI says so on stderr, also under --quiet). */
  onLockLost?: (err: Error) => void;
  flushNow?: () => void;
}

export interface ImportOptions {
  source: string;
  readerOptions?: ReaderOptions;
  profile: Profile;
  /**
   * The tenant's model, or how to read it: read only once the run holds its lock, so a run refused
   * by the lock asks the tenant nothing.
   */
  model: TenantModel | (() => Promise<TenantModel>);
  catalog: CatalogClient;
  /** Needed only when the feed names image or file URLs. */
  dam: () => DamClient;
  mode?: ImportMode;
  /** Look up and diff only; write nothing. */
  plan?: boolean;
  /**
   * A sheet's run of a workbook imported whole (set by importWorkbook): `--resume` is refused for the
   * workbook, so a row left to check says the next run checks it, not --resume.
   */
  workbookSheet?: boolean;
  /** Drafts per batch (one lookup request per 100 refs). Default 100. */
  batchSize?: number;
  /** Writes in flight at once. Default 4. */
  concurrency?: number;
  /** Stop on purpose once this many rows failed or were invalid. */
  maxErrors?: number;
  /** Stop (exit 2) after this many batches in a row failed because the service did. Default 5. */
  maxFailedBatches?: number;
  strict?: boolean;
  deleteVariants?: boolean;
  onDuplicateAsset?: DuplicatePolicy;
  /**
   * An image or file that cannot be registered: `warn` (default) writes the record without it and
   * gives the row a warning; `fail` fails the row.
   */
  onAssetError?: AssetErrorPolicy;
  /** How long a URL that could not be registered is not tried again (kept in the asset cache). Default 7 days. */
  failedAssetTtlMs?: number;
  /** Ignore the asset cache (URLs registered, and URLs that failed, in earlier runs). */
  refreshAssets?: boolean;
  /** URL -> DAM reference cache of earlier runs. */
  assetCacheFile?: string;
  /** Poll the images registered by this run until processed, and report the ones that failed. */
  waitForImages?: boolean | { timeoutMs?: number; intervalMs?: number };
  reportFile?: string;
  rejectsFile?: string;
  /** The profile file as given, kept in the run folder for the command that resumes the run. */
  profileFile?: string;
  /** Keep CSV cells exactly as written: do not take off the export's formula guard. */
  raw?: boolean;
  /** The run's request counters (from the connection). */
  counters?: () => CountersSnapshot;
  /**
   * Requests per second the tenant's limit lets start (the connection's), for the console's ETA; a
   * function is asked at each report, so the ETA follows a pace lowered after 429s.
   */
  requestRate?: number | (() => number | undefined);
  onProgress?: (progress: ImportProgress) => void;
  /** One line for people: what `--resume` did (the run it continues, or why it started a new one). */
  onNote?: (line: string) => void;

  /**
   * The `.catalog-io` folder that keeps run folders (and, when no `lockStore` is given, the run locks in
   * `<stateDir>/locks`); none: a temporary journal, no lock file.
   */
  stateDir?: string;
  /** Continue an unfinished run: `true` the last one of this source, or a run id. */
  resume?: boolean | string;
  /** Finished runs kept in the state folder. Default 50. */
  keepRuns?: number;
  /** The queued job this run is for (RunMeta.job), when a worker started it. */
  job?: string;
  /** The tenant as locks and summaries name it: a hash of its base URL and key id. */
  tenant?: string;
  /**
   * One run per tenant and entity: taken before the source is read (not for a plan); a second run is
   * refused with `LOCKED`. Default: a lock file in `<stateDir>/locks` when `stateDir` is given (the CLI
   * passes the machine's lock folder, or Redis); `false` takes no lock (the caller keeps runs apart).
   */
  lockStore?: RunLockStore | false;
  /** Wait this long for a running import to finish instead of refusing at once. */
  waitLockMs?: number;
  onLockTakeover?: (previous: LockHolder) => void;
  /** Told once when another run holds the lock and this one starts to wait for it (`waitLockMs`). */
  onLockWait?: (holder: LockHolder | undefined) => void;
  /** Full sync: delete the entity's records the feed does not name. Default `ignore`. */
  missing?: 'delete' | 'ignore';
  /** How many may go before the full sync refuses to delete anything. Default 5%. */
  maxMissing?: MaxMissing;
  /** Full sync: keep the variants of deleted products. */
  keepVariants?: boolean;
  stop?: RunStop;
  /** Copy summary.json here too. */
  summaryFile?: string;
  /** Look every row up, ignoring what earlier runs recorded in the state folder. */
  fullCompare?: boolean;
  /**
   * Texts compared exactly (`catalog-io copy`, with a profile of `trim: false`): a difference in line
   * ends, control characters or spaces at the ends is written, not taken for a file's rendering.
   */
  exactText?: boolean;
}

/** The options once the run holds its lock: the model read. */
export type RunningImport = ImportOptions & { model: TenantModel };

export interface ImportProgress {
  /** Source rows done (reported). */
  rows: number;
  /** Source rows read so far: done, in a batch, or waiting for one. */
  rowsRead: number;
  outcomes: Record<RowOutcome, number>;
  bytesRead: number;
  totalBytes?: number;
  /** Rows the reader made from the bytes read (handed out or not), when it knows: see OpenedSource.rowsMade. */
  rowsMade?: number;
  requests?: CountersSnapshot;
}

export interface ImportSummary {
  runId: string;
  /** The run's folder (its journal and summary.json), when the run keeps one. */
  runDir?: string;
  source: string;
  rows: number;
  outcomes: Record<RowOutcome, number>;
  topErrors: TopProblem[];
  warnings: string[];
  notes: string[];
  /** Distinct URLs by registration outcome. */
  assets: AssetCounts;
  /** Rows written without an image or file that could not be registered (each has a `warnings` cell). */
  assetWarnings: number;
  /** Categories created for the paths of `categoryPath` columns (in a plan: that would be). */
  categoriesCreated: CreatedCategories;
  /** Images registered by this run whose processing failed (`--wait-for-images`). */
  failedImages: string[];
  requests: {
    total: number;
    byMethod: Record<string, number>;
    retries: number;
    rateLimited: number;
    /** The pace kept under the rate limit: how low the 429s brought it and how long it ran below the limit. */
    pace?: PaceSummary;
  };
  /** The run ended before its last row (see `stopReason`). */
  stopped: boolean;
  stopReason?: StopReason;
  /** `stopReason` `source`: what stopped the reading, as a person reads it (`... (line 252) [CSV_QUOTE_NOT_CLOSED]`). */
  sourceError?: string;
  state: RunState;
  /** `--missing delete`: what the full sync found and did. */
  fullSync?: FullSyncResult;
  plan: boolean;
  durationMs: number;
  exitCode: number;
  /** A workbook imported whole: its sheets in the order they ran, with the entity each held. */
  sheets?: Array<{ sheet: string; entity: string; rows: number; exitCode: number }>;
}

/** Exit codes (docs/exit-codes.md). */
export const EXIT_CODES = {
  ok: 0,
  rowsFailed: 1,
  fatal: 2,
  stopped: 3,
  locked: 75,
  SIGINT: 130,
  SIGTERM: 143,
} as const;

export function exitCodeOf(s: Omit<ImportSummary, 'exitCode'>): number {
  switch (s.stopReason) {
    case 'SIGINT':
    case 'SIGTERM':
      return EXIT_CODES[s.stopReason];
    case 'service':
    case 'auth':
    case 'lock-lost':
    case 'outage':
    case 'source':
      return EXIT_CODES.fatal;
    case 'max-errors':
    case 'max-missing':
      return EXIT_CODES.stopped;
    default: {
      // A row not finished in a run that did not stop: its write may have been made (--resume checks it).
      const bad =
        s.outcomes.failed + s.outcomes.invalid + s.outcomes['not-attempted'] + s.failedImages.length;
      return bad > 0 ? EXIT_CODES.rowsFailed : EXIT_CODES.ok;
    }
  }
}

export function stateOf(reason: StopReason | undefined): RunState {
  // A lost lock or an outage ends the run like a signal: nothing wrong with the rows, resume it.
  if (reason === 'SIGINT' || reason === 'SIGTERM' || reason === 'outage' || reason === 'lock-lost')
    return 'interrupted';
  return reason ? 'stopped' : 'finished';
}
