// What one batch step says about each draft: the outcome of its write (or, in a plan, of the write it
// would be), and the shared settings every step of the executor reads.
import type { CatalogClient } from '../../api/catalog.js';
import { ApiError } from '../../api/errors.js';
import type { Draft } from '../../mappers/types.js';
import type { TenantModel } from '../../schema/model.js';
import type { AssetOutcome, AssetRegistrar } from './assets.js';
import type { FieldChange } from './diff.js';

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
}

/** A write the service refused: the draft fails with what the service said. Anything else is a bug and goes up. */
export function failure(draft: Draft, err: unknown): DraftResult {
  if (err instanceof ApiError) {
    const details = err.failures
      .map((f) =>
        f.field && f.field !== 'error' && f.field !== 'body' ? `${f.field}: ${f.message}` : f.message,
      )
      .join('; ');
    return {
      draft,
      outcome: 'failed',
      ...(err.status !== undefined ? { status: err.status } : {}),
      message: details
        ? `${err.service} refused the ${err.method} (${err.status ?? err.code}): ${details}`
        : err.message,
    };
  }
  throw err;
}
