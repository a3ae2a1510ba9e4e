// What one batch step says about each draft: the outcome of its write (or, in a plan, of the write it
// would be), and the shared settings every step of the executor reads.
import type { CatalogClient } from '../../api/catalog.js';
import { ApiError } from '../../api/errors.js';
import type { ErrorCode } from '../../errors.js';
import type { Draft } from '../../mappers/types.js';
import type { WriteIntent } from '../../runs/journal.js';
import type { TenantModel } from '../../schema/model.js';
import type { AssetOutcome, AssetRegistrar } from './assets.js';
import type { FieldChange } from './diff.js';
import type { PlannedRecords } from './planned.js';

export type WriteOutcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'skipped' | 'failed';
export type PlanOutcome = 'would-create' | 'would-update' | 'would-delete';

export interface DraftResult {
  draft: Draft;
  outcome: WriteOutcome | PlanOutcome;
  id?: number | string;
  /** HTTP status of the write (or of the failure). */
  status?: number;
  changes?: FieldChange[];
  message?: string;
  assets?: AssetOutcome[];
  /**
   * The service, not the record, failed: `service` (retries ran out), `auth` (the key was refused),
   * `unreachable` (waited for past the outage budget), `stopped` (the run stopped before an answer).
   */
  fault?: 'service' | 'auth' | 'unreachable' | 'stopped';
}

export interface ExecutorSettings {
  plan: boolean;
  /** Writes in flight at once (the shared limiter still caps the rate). */
  concurrency: number;
  /** Delete a product's remaining variants before the product. */
  deleteVariants: boolean;
}

export interface ExecutorContext {
  catalog: CatalogClient;
  model: TenantModel;
  assets: AssetRegistrar;
  settings: ExecutorSettings;
  /** The journal of the run, when it keeps one. */
  writeLog?: WriteLog;
  /** A plan: what it would have written so far (in this run, and in the sheets of a workbook before it). */
  planned?: PlannedRecords;
}

/** Where a batch says what it is about to write before sending it, and a resume reads what was. */
export interface WriteLog {
  /** Called before a group's writes are sent (not called when the group writes nothing). */
  beforeWrites(intents: WriteIntent[]): void;
  /** What an interrupted earlier attempt of this run was writing to this record, if anything. */
  prior(entity: string, ref: string): WriteIntent | undefined;
  /** A named step a test can pause the run at (`write`, `dam`). */
  checkpoint?(point: string): Promise<void> | undefined;
}

/** A write the service refused: the draft fails with what the service said. Anything else is a bug and goes up. */
export function failure(draft: Draft, err: unknown): DraftResult {
  if (err instanceof ApiError) {
    const details = err.failures
      .map((f) =>
        f.field && f.field !== 'error' && f.field !== 'body' ? `${f.field}: ${f.message}` : f.message,
      )
      .join('; ');
    const fault = faultOf(err);
    return {
      draft,
      outcome: 'failed',
      ...(err.status !== undefined ? { status: err.status } : {}),
      message: details
        ? `${err.service} refused the ${err.method} (${err.status ?? err.code}): ${details}`
        : triesMessage(err),
      ...(fault && { fault }),
    };
  }
  throw err;
}

/** A step of the batch (a lookup, the DAM) could not be done: every draft of it fails, the run goes on. */
export function stepFailed(drafts: readonly Draft[], err: unknown): DraftResult[] {
  if (!(err instanceof ApiError)) throw err;
  const fault = faultOf(err) ?? 'service';
  return drafts.map((draft) => ({
    draft,
    outcome: 'failed',
    ...(err.status !== undefined ? { status: err.status } : {}),
    message: triesMessage(err),
    fault,
  }));
}

const SERVICE_FAULTS: readonly ErrorCode[] = ['API_SERVER', 'API_NETWORK', 'API_TIMEOUT', 'API_RATE_LIMITED'];

function faultOf(err: ApiError): DraftResult['fault'] {
  if (err.code === 'API_UNAUTHORIZED') return 'auth';
  // A DAM that is gone costs the rows their new images, not the run: only the catalog's stops it.
  if (err.code === 'API_UNREACHABLE') return err.service === 'Catalog API' ? 'unreachable' : 'service';
  if (err.code === 'API_STOPPED') return 'stopped';
  return SERVICE_FAULTS.includes(err.code) ? 'service' : undefined;
}

/** `API_SERVER after 6 tries: the service failed (GET /Products: 503)`. */
function triesMessage(err: ApiError): string {
  return err.attempts > 1
    ? `${err.code} after ${err.attempts} tries: ${err.message}`
    : `${err.code}: ${err.message}`;
}
