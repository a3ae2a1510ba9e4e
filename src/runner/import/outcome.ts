// What one batch step says about each draft: the outcome of its write (or, in a plan, of the write it
// would be), and the shared settings every step of the executor reads.

import type { CatalogClient } from '../../api/catalog.js';
import { ApiError } from '../../api/errors.js';
import type { ErrorCode } from '../../errors.js';
import type { Draft } from '../../mappers/types.js';
import type { CategoryMatches } from '../../runs/category-matches.js';
import type { WriteIntent } from '../../runs/journal.js';
import type { TenantModel } from '../../schema/model.js';
import type { AssetErrorPolicy, AssetOutcome, AssetRegistrar } from './assets.js';
import type { FieldChange } from './diff.js';
import type { PlannedRecords } from './planned.js';

export type WriteOutcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'skipped' | 'failed';

/** A result's warning for an image or file left out of the record (`image 1.jpg left out: ...`). */
export function leftOutWarning(kind: string, url: string, message: string | undefined): string {
  return `${kind} ${url} left out: ${message}`;
}

/** A left-out warning (leftOutWarning) among a report line's `; `-joined warnings. */
export const LEFT_OUT_WARNING = /(?:^|; )(?:image|file) .+? left out: /;
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
  /** What was written short of the row: the images and files left out because they could not be registered. */
  warnings?: string[];
  /** Where a failure is in the source row, and the failure's sentence without the row's value. */
  problem?: FailurePlace;
  /**
   * The service, not the record, failed: `service` (retries ran out), `auth` (the key was refused),
   * `unreachable` (waited for past the outage budget), `stopped` (the run stopped before an answer),
   * `lock-lost` (not sent: the run lost its lock, another run may hold it), `uncertain` (a write whose
   * answer was lost, and the look-up that would tell failed: it may have been made; the row is not
   * finished, --resume checks it).
   */
  fault?: 'service' | 'auth' | 'unreachable' | 'stopped' | 'lock-lost' | 'uncertain';
  /**
   * A failure's kind for the summary's most frequent problems: what the service said, without the
   * record's address, the request's id or the number of tries, so equal failures count together.
   */
  kind?: string;
}

/**
 * A failure placed in the source row, as a validation error is: the API field, the source column and
 * the value the row gave; `brief` is the sentence without that value, so equal failures count together.
 */
export interface FailurePlace {
  field?: string;
  column?: string;
  value?: string;
  brief: string;
}

/** The failure's place: the column that gave `key` (a write path, or `link:<kind>`) in this draft. */
export function placeOf(
  draft: Draft,
  key: string,
  value: unknown,
  brief: string,
  field: string = key,
): FailurePlace {
  const column = draft.source.columns[key];
  const shown =
    value === undefined || value === null
      ? undefined
      : Array.isArray(value)
        ? value.join('|')
        : String(value);
  return {
    ...(field.startsWith('link:') ? {} : { field }),
    ...(column !== undefined && { column }),
    ...(shown !== undefined && { value: shown }),
    brief,
  };
}

export interface ExecutorSettings {
  plan: boolean;
  /** Writes in flight at once (the shared limiter still caps the rate). */
  concurrency: number;
  /** Delete a product's remaining variants before the product. */
  deleteVariants: boolean;
  /** An image or file that cannot be registered: write the record without it (`warn`) or fail the row. */
  onAssetError: AssetErrorPolicy;
  /**
   * Texts compared exactly: one that differs from the tenant's only in line ends, control characters or
   * spaces at its ends is a change (a copy between tenants, whose values come from an API, not a file).
   */
  exactText?: boolean;
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
  /** Categories earlier runs found by title for paths (the import state's; not in a plan). */
  categoryMatches?: CategoryMatches;
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

/**
 * A message with the row's own values taken out (quoted texts, numbers): the kind of problem many rows
 * share, as the summary counts it (`Reference '…' already exists`, once, not once a ref).
 */
export function withoutValues(text: string): string {
  return text
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'…'")
    .replace(/\b\d+(?:[.,]\d+)?\b/g, 'N');
}

/**
 * A write whose outcome is unknown (its answer was lost: `write`, an ambiguous ApiError) and whose
 * check, the look-up by ref that would tell whether it was made, failed too (`check`); `tries`: the
 * write's tries, this one included (the ones before it were looked up and found not made).
 */
export class UncertainWrite extends Error {
  /** Why it is not known: the write's failure, the check's, and what checks it (the message without `not finished: `). */
  readonly why: string;

  constructor(
    readonly write: ApiError,
    readonly check: ApiError,
    tries = 1,
  ) {
    const why = uncertainWhy(write, check, tries);
    super(`not finished: ${why}`);
    this.why = why;
    this.name = 'UncertainWrite';
  }
}

/**
 * What the report says of an uncertain write: the write may have been made (the words of an ambiguous
 * ApiError) and the check that failed. The row's report line adds what checks it (`checkAdvice`, stop-messages.ts).
 */
function uncertainWhy(write: ApiError, check: ApiError, tries: number): string {
  const sent = tries > 1 ? `${write.code} after ${tries} tries: ${write.message}` : triesMessage(write);
  return `${sent}; the look-up by ref that would tell failed (${triesMessage(check)})`;
}

/**
 * A POST none of whose tries gave an answer that tells whether it was made (`write`: the last one's
 * ambiguous ApiError), and after each of which the look-up by ref found no record: not made. It fails,
 * and nothing is left to check.
 */
export class UnmadeWrite extends Error {
  constructor(
    readonly write: ApiError,
    readonly tries: number,
  ) {
    super(
      `${write.code} after ${tries} tries: ${write.unmarkedMessage}; the look-up by ref after each try found no record: not created`,
    );
    this.name = 'UnmadeWrite';
  }
}

/** A write the service refused: the draft fails with what the service said. Anything else is a bug and goes up. */
export function failure(draft: Draft, err: unknown): DraftResult {
  if (err instanceof UnmadeWrite) {
    const fault = faultOf(err.write);
    return {
      draft,
      outcome: 'failed',
      ...(err.write.status !== undefined ? { status: err.write.status } : {}),
      message: err.message,
      kind: kindOf(err.write),
      ...(fault && { fault }),
    };
  }
  if (err instanceof UncertainWrite) {
    // Not failed: the record may be there. The row is reported not finished, for --resume to check.
    return {
      draft,
      outcome: 'failed',
      message: err.message,
      kind: kindOf(err.write),
      fault: 'uncertain',
    };
  }
  if (err instanceof ApiError) {
    const details = err.failures
      .map((f) =>
        f.field && f.field !== 'error' && f.field !== 'body' ? `${f.field}: ${f.message}` : f.message,
      )
      .join('; ');
    const fault = faultOf(err);
    const refused = `${err.service} refused the ${err.method} (${err.status ?? err.code})`;
    // The first field the service named, placed in the source row when a column gave it.
    const named = err.failures.find((f) => f.field && draft.source.columns[f.field] !== undefined);
    const problem =
      details && named?.field
        ? placeOf(
            draft,
            named.field,
            draft.fields[named.field],
            `${refused}: ${named.field}: ${named.message}`,
          )
        : undefined;
    return {
      draft,
      outcome: 'failed',
      ...(err.status !== undefined ? { status: err.status } : {}),
      message: details ? `${refused}: ${details}` : triesMessage(err),
      kind: details ? `${err.code}: ${refused}: ${withoutValues(details)}` : kindOf(err),
      ...(problem && { problem }),
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
    kind: kindOf(err),
    fault,
  }));
}

/** `API_SERVER: Catalog API GET failed (503)`: the failure without its record, request id or tries. */
function kindOf(err: ApiError): string {
  return `${err.code}: ${err.service} ${err.method} failed (${err.status ?? err.code})`;
}

const SERVICE_FAULTS: readonly ErrorCode[] = ['API_SERVER', 'API_NETWORK', 'API_TIMEOUT', 'API_RATE_LIMITED'];

function faultOf(err: ApiError): DraftResult['fault'] {
  if (err.code === 'API_UNAUTHORIZED') return 'auth';
  // A service gone past the outage budget stops the run, the DAM as the catalog: the rows that needed
  // it are not written (a record without its images is not finished), and --resume finishes them.
  if (err.code === 'API_UNREACHABLE') return 'unreachable';
  if (err.code === 'API_STOPPED') return err.details.lockLost === true ? 'lock-lost' : 'stopped';
  return SERVICE_FAULTS.includes(err.code) ? 'service' : undefined;
}

/** `API_SERVER after 6 tries: the service failed (GET /Products: 503)`. */
function triesMessage(err: ApiError): string {
  return err.attempts > 1
    ? `${err.code} after ${err.attempts} tries: ${err.message}`
    : `${err.code}: ${err.message}`;
}
