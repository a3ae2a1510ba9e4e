// An import run from start to end: the run folder and its journal (or the resumed one), the lock per
// tenant and entity (taken before the source is read), the row loop (`import-run.ts`), then images,
// the full sync, and summary.json. The pipeline itself: reader -> check -> batches -> executor ->
// one report line per source row, recorded in the journal first.

import { hostname } from 'node:os';
import path from 'node:path';
import type { CountersSnapshot } from '../../api/counters.js';
import { isApiError } from '../../api/errors.js';
import { CatalogIoError, type ErrorCode, isCatalogIoError } from '../../errors.js';
import { faultProblem } from '../../files.js';
import { FileLockStore } from '../../lock/file.js';
import type { HeldLock, RunLockStore } from '../../lock/types.js';
import { openSource } from '../../readers/index.js';
import { displayName } from '../../readers/sources/redact.js';
import { KnownStates } from '../../runs/known-states.js';
import { hashOf, type SourceIdentity, sourceIdentity } from '../../runs/source-identity.js';
import type { EntityModel, TenantModel } from '../../schema/model.js';
import { redactText } from '../../secrets.js';
import { openRejectsFor, type RejectsWriter } from '../../writers/rejects.js';
import type { RunSummary } from '../summary-types.js';
import { type FullSyncResult, notDeleted } from './full-sync.js';
import { ImportRun } from './import-run.js';
import { PlannedRecords } from './planned.js';
import { type RunEnd, RunRecorder } from './recorder.js';
import {
  EXIT_CODES,
  exitCodeOf,
  type ImportOptions,
  type ImportSummary,
  type RunningImport,
  type StopReason,
  stateOf,
} from './types.js';

export type { RowOutcome } from './report-line.js';
export {
  EXIT_CODES,
  exitCodeOf,
  type ImportMode,
  type ImportOptions,
  type ImportProgress,
  type ImportSummary,
  ROW_OUTCOMES,
  type RunStop,
  type StopReason,
} from './types.js';

const DEFAULT_MAX_MISSING = { percent: 5 };

/** Errors of flags and settings: a run refused for them before its first row is not kept as a run. */
const NOT_STARTED: readonly ErrorCode[] = [
  'CONFIG_INVALID',
  'CONFIG_MISSING',
  'PROFILE_INVALID',
  'FORMAT_UNKNOWN',
  'ENCODING_UNSUPPORTED',
  'SCHEMA_UNKNOWN_ENTITY',
];

/** Errors that ended a recorded run, and that run's id: its notification names the run kept. */
const failedRuns = new WeakMap<object, string>();

/** The run an import that failed kept (to resume), if it kept one. */
export function failedRunOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? failedRuns.get(err) : undefined;
}

/**
 * `carried`: a plan of several runs as one (a workbook's sheets): what the runs before it would have
 * written. Without it, a plan starts from the tenant as it is.
 */
export async function importFile(request: ImportOptions, carried?: PlannedRecords): Promise<ImportSummary> {
  // A library caller's option of no known value is refused before anything starts (no run is kept).
  checkChoices(request);
  // Until the lock is held the model may be unread: only the profile's entity is needed for the lock.
  let options = request;
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const recorder = await RunRecorder.open({
    ...(options.stateDir !== undefined && { stateDir: options.stateDir }),
    ...(options.resume !== undefined && { resume: options.resume }),
    ...(options.keepRuns !== undefined && { keepRuns: options.keepRuns }),
    ...(options.job !== undefined && { job: options.job }),
    identity: await identityOf(options.source),
    source: displayName(options.source),
    spec: options.source,
    ...(options.readerOptions && { readerOptions: options.readerOptions }),
    ...(options.onNote && { onNote: options.onNote }),
    profileHash: hashOf({ profile: options.profile, mode: options.mode ?? 'upsert' }),
    entity: options.profile.entity,
    tenant: options.tenant ?? 'unnamed',
    ...(options.reportFile !== undefined && { reportFile: options.reportFile }),
    ...(options.rejectsFile !== undefined && { rejectsFile: path.resolve(options.rejectsFile) }),
    ...(options.profileFile !== undefined && { profileFile: options.profileFile }),
    ...(options.plan && { plan: true }),
  });
  // The lock store given, else (a library caller) a lock file in the state folder; `false`: none.
  const lockStore = lockStoreOf(options);
  let lock: HeldLock | undefined;
  let opened: Awaited<ReturnType<typeof openSource>> | undefined;
  let rejects: RejectsWriter | undefined;
  let planned: PlannedRecords | undefined;
  let known: KnownStates | undefined;
  /** What kept the import state from being used, for the summary's warnings. */
  const stateWarnings: string[] = [];
  /** The row loop began: from here on, a run that fails is a run (crashed, resumable). */
  let looping = false;
  /** The services whose writes ask this run's lock first: told to stop asking at the run's end. */
  const guarded = new Set<{ guardWrites(guard: undefined): void }>();
  try {
    // One run per tenant and entity, refused before the source is read; a plan writes nothing.
    if (lockStore && !options.plan) {
      lock = await lockStore.acquire(
        { tenant: options.tenant ?? 'unnamed', entity: options.profile.entity },
        { runId: recorder.runId, pid: process.pid, host: hostname(), startedAt },
        {
          ...(options.waitLockMs !== undefined && { waitMs: options.waitLockMs }),
          ...(options.onLockTakeover && { onTakeover: options.onLockTakeover }),
          ...(options.onLockWait && { onWait: options.onLockWait }),
          stopped: () => options.stop?.signal !== undefined,
        },
      );
    }
    // No write is sent unless the run surely still holds its lock: checked before each write (a clock
    // comparison), a write waits for the lock's next refresh when the last is too old (the process
    // stalled or was stopped), and is not sent once the lock is lost (its row: not attempted).
    const held = lock;
    if (held) {
      const guard = () =>
        options.stop?.lockLost ? Promise.reject(new Error('the run lost its lock')) : held.confirmed?.();
      const dam = options.dam;
      options = {
        ...options,
        dam: () => {
          const client = dam();
          client.http.guardWrites(guard);
          guarded.add(client.http);
          return client;
        },
      };
      options.catalog.http.guardWrites(guard);
      guarded.add(options.catalog.http);
    }
    // Nothing is asked of the tenant before the lock is held: a refused run spends none of its budget.
    const running: RunningImport = { ...options, model: await modelOf(options) };
    options = running;
    if (running.plan) planned = carried ?? new PlannedRecords(running.model.baseLanguage);
    await recorder.start();
    // The batches read `stop`: a signal, or a lost lock (another run may have taken over), ends the run
    // before its next batch, so no record is written by two runs at once.
    options.stop ??= {};
    const stop = options.stop;
    stop.flushNow = () => recorder.flush();
    lock?.lost.catch((err: Error) => {
      stop.lockLost = true;
      stop.onLockLost?.(err);
    });
    // A resumed stream source is read from the copy its check made; a first read is hashed as it goes.
    const tap = recorder.tap;
    opened = await openSource(recorder.readFrom ?? options.source, {
      ...options.readerOptions,
      ...(tap && { tap }),
    });
    if (options.rejectsFile)
      rejects = await openRejectsFor(options.rejectsFile, opened, { guard: options.raw !== true });
    known = await openKnownState(running, (warning) => stateWarnings.push(warning));
    const source = opened;
    const run = new ImportRun(
      running,
      opened.format === 'csv',
      recorder,
      rejects,
      () => ({
        bytesRead: source.bytesRead(),
        ...(source.totalBytes !== undefined && { totalBytes: source.totalBytes }),
        ...(source.rowsMade && { rowsMade: source.rowsMade() }),
      }),
      known,
      planned,
    );
    looping = true;
    const loop = await run.execute(opened.rows);
    // The duplicate check's spill files (a feed of more than a million refs) go with the rows.
    run.checker.close();
    await run.registrar?.saveCache();

    let stopReason: StopReason | undefined = loop.stopReason;
    const warnings = [...stateWarnings, ...run.checker.warnings()];
    let failedImages: string[] = [];
    if (!stopReason && options.waitForImages && run.registrar && !options.plan) {
      const { waitForImages } = await import('./images.js');
      const settings = typeof options.waitForImages === 'object' ? options.waitForImages : {};
      const images = await waitForImages(options.dam(), run.registrar, run.imageRows, settings, recorder);
      failedImages = images.failed;
      warnings.push(...images.warnings);
      // Stopped while it waited: the images' outcome is not known, and the exit code must not say all is well.
      if (options.stop?.signal) stopReason = options.stop.signal;
    }
    let fullSync: FullSyncResult | undefined;
    // A run that stopped early never deletes: what it did not read is not missing.
    if (options.missing === 'delete' && !stopReason && !options.stop?.signal) {
      try {
        fullSync = await retire(running, recorder, run);
        if (fullSync.guard) stopReason = 'max-missing';
        if (fullSync.stoppedBy) {
          stopReason = fullSync.stoppedBy === 'signal' ? stoppedBy(options) : 'outage';
          warnings.push(
            `full sync not finished: ${notDeleted(fullSync)} records not in the feed were not deleted`,
          );
        }
        if (fullSync.guard) warnings.push(fullSync.guard);
      } catch (err) {
        // Stopped (a signal) or the catalog gone while listing what to delete: nothing more is deleted,
        // and the run ends as interrupted, like a run stopped in its rows.
        if (isApiError(err, 'API_STOPPED')) stopReason = stoppedBy(options);
        else if (isApiError(err, 'API_UNREACHABLE')) stopReason = 'outage';
        else throw err;
        warnings.push(`full sync not finished: ${(err as Error).message}`);
      }
    }
    if (known) {
      if (fullSync) known.distrust();
      // The state only spares lookups: one that cannot be written (a full disk) costs the next run its
      // lookups, not this run its end. The last state stays, and the changelog since it is read.
      try {
        await known.save();
      } catch (err) {
        warnings.push(
          `the import state was not saved (${faultProblem(err)}): the next run looks up the rows this one wrote`,
        );
      }
    }
    recorder.flush();

    const requests = options.counters?.();
    const partial: Omit<ImportSummary, 'exitCode'> = {
      runId: recorder.runId,
      ...(options.stateDir !== undefined && { runDir: recorder.dir }),
      source: recorder.readFrom ? displayName(options.source) : opened.source,
      rows: loop.rows,
      outcomes: loop.outcomes,
      topErrors: run.checker.topErrors(),
      warnings,
      notes: [...opened.notes, ...(known?.notes() ?? [])],
      // A resume whose rows left name no URL makes no registrar: the attempts before counted theirs.
      assets: run.registrar?.counts ?? {
        registered: 0,
        reused: 0,
        cached: 0,
        planned: 0,
        failed: 0,
        ...(!options.plan && recorder.assetLog.earlierCounts()),
      },
      assetWarnings: loop.assetWarnings,
      categoriesCreated: run.categoriesCreated,
      failedImages,
      requests: {
        total: requests?.requests ?? 0,
        byMethod: requests?.byMethod ?? {},
        // A POST the registrar sent again after an unknown outcome is a retry too.
        retries: (requests?.retries ?? 0) + (run.registrar?.resends ?? 0),
        rateLimited: requests?.rateLimited ?? 0,
        ...(requests?.pace && { pace: requests.pace }),
      },
      stopped: stopReason !== undefined,
      ...(stopReason && { stopReason }),
      ...(loop.sourceError && {
        sourceError: `${redactText(loop.sourceError.message)} [${loop.sourceError.code}]`,
      }),
      // Rows whose write may have been made, unchecked, leave the run to --resume: it is not finished.
      state: stopReason === undefined && loop.outcomes['not-attempted'] > 0 ? 'stopped' : stateOf(stopReason),
      ...(fullSync && { fullSync }),
      plan: options.plan ?? false,
      durationMs: Date.now() - started,
    };
    const summary: ImportSummary = { ...partial, exitCode: exitCodeOf(partial) };
    await rejects?.close();
    rejects = undefined;
    await recorder.close(
      {
        source: summary.source,
        entity: options.profile.entity,
        state: summary.state,
        exitCode: summary.exitCode,
        outcomes: Object.fromEntries(Object.entries(summary.outcomes).filter(([, n]) => n > 0)),
        rows: summary.rows,
        ...(summary.assetWarnings > 0 && { assetWarnings: summary.assetWarnings }),
        requests: runRequests(requests),
        startedAt: recorder.meta.startedAt,
        finishedAt: new Date().toISOString(),
        durationMs: summary.durationMs,
        ...(options.reportFile && { reportFile: path.resolve(options.reportFile) }),
        message: sentence(summary),
      },
      options.summaryFile,
    );
    return summary;
  } catch (err) {
    await rejects?.close().catch(() => {});
    // A run that could not go on still leaves its summary: a scheduler must not read yesterday's.
    const locked = isCatalogIoError(err, 'LOCKED');
    // A signal before the first row (waiting for the lock, reading `$metadata`): interrupted, not failed.
    const signal = isCatalogIoError(err, 'API_STOPPED') ? options.stop?.signal : undefined;
    // Refused by its flags or settings before its first row, or stopped while waiting for the lock:
    // not a run, nothing to list or resume.
    const neverStarted =
      (!looping && NOT_STARTED.some((code) => isCatalogIoError(err, code)) && !options.resume) ||
      (signal !== undefined && !lock && !options.plan && lockStore !== undefined);
    // A service gone past the outage budget, or a signal: nothing wrong with the run, run it again.
    const interrupted = signal !== undefined || isCatalogIoError(err, 'API_UNREACHABLE');
    const end: RunEnd = {
      source: displayName(options.source),
      entity: options.profile.entity,
      state: locked ? 'stopped' : interrupted ? 'interrupted' : looping ? 'crashed' : 'stopped',
      exitCode: locked ? EXIT_CODES.locked : signal ? EXIT_CODES[signal] : EXIT_CODES.fatal,
      outcomes: {},
      rows: 0,
      requests: runRequests(options.counters?.()),
      startedAt: recorder.meta.startedAt,
      finishedAt: new Date().toISOString(),
      durationMs: Date.now() - started,
      message: locked
        ? `${(err as Error).message}.`
        : `The run could not go on: ${err instanceof Error ? err.message : String(err)}. Fix that, then run the same command with --resume.`,
    };
    await (locked || neverStarted
      ? recorder.discard(end, options.summaryFile)
      : recorder.abandon(end, options.summaryFile)
    ).catch(() => {});
    if (!(locked || neverStarted) && typeof err === 'object' && err !== null)
      failedRuns.set(err, recorder.runId);
    throw err;
  } finally {
    for (const service of guarded) service.guardWrites(undefined);
    if (planned !== carried) planned?.close();
    // A run that failed before saving its import state leaves the last one as it was.
    known?.discard();
    await opened?.close();
    await lock?.release();
  }
}

/** Why the run's requests stopped: a signal, else a lost lock (its deletions not sent), else a stop. */
function stoppedBy(options: ImportOptions): StopReason {
  return options.stop?.signal ?? (options.stop?.lockLost ? 'lock-lost' : 'SIGTERM');
}

/**
 * The run's lock store: the one given (the CLI's: the machine's lock folder, or Redis); none given, a
 * lock file in `<stateDir>/locks`, so two calls on one state folder never write at once; `false`, or
 * no state folder (a temporary journal), no lock.
 */
export function lockStoreOf(options: ImportOptions): RunLockStore | undefined {
  if (options.lockStore === false) return undefined;
  if (options.lockStore) return options.lockStore;
  return options.stateDir === undefined ? undefined : new FileLockStore(path.join(options.stateDir, 'locks'));
}

/** The options that take one of a few words, and those words. */
const CHOICES = {
  mode: ['upsert', 'create', 'update'],
  missing: ['ignore', 'delete'],
  onAssetError: ['warn', 'fail'],
  onDuplicateAsset: ['reuse', 'replace', 'fail'],
} as const satisfies Partial<Record<keyof ImportOptions, readonly string[]>>;

/** `importFile({ mode: 'bogus' })` would have upserted: a value not among the option's words is refused. */
function checkChoices(options: ImportOptions): void {
  for (const [key, allowed] of Object.entries(CHOICES) as Array<[keyof typeof CHOICES, readonly string[]]>) {
    const value: unknown = options[key];
    if (value === undefined || allowed.includes(value as string)) continue;
    const found = typeof value === 'string' ? JSON.stringify(value) : typeof value;
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `importFile: ${key} must be one of ${allowed.join(', ')}; found ${found}`,
    );
  }
}

/** The tenant's model, read now when the caller gave the way to read it. */
export async function modelOf(options: ImportOptions): Promise<TenantModel> {
  return typeof options.model === 'function' ? options.model() : options.model;
}

/**
 * What earlier runs left on the tenant (not for a plan, nor without a state folder and a tenant name):
 * the state of the profile's entity, and of the variants a products profile with `variants` drafts.
 */
async function openKnownState(
  options: RunningImport,
  onProblem: (warning: string) => void,
): Promise<KnownStates | undefined> {
  const entity = options.model.entity(options.profile.entity);
  if (options.plan || options.stateDir === undefined || options.tenant === undefined || !entity)
    return undefined;
  const variants = draftedVariants(options, entity);
  return KnownStates.open(
    {
      stateDir: options.stateDir,
      tenant: options.tenant,
      entity,
      catalog: options.catalog,
      profileHash: hashOf({ profile: options.profile, mode: options.mode ?? 'upsert' }),
      ...(options.fullCompare !== undefined && { fullCompare: options.fullCompare }),
    },
    variants ? [variants] : [],
    onProblem,
  );
}

/**
 * The variants entity when the profile's rows draft variants (a products profile with `variants`, one
 * row per variant): their state is kept, and a full sync retires the ones the feed no longer names.
 */
function draftedVariants(options: RunningImport, entity: EntityModel): EntityModel | undefined {
  if (entity.kind !== 'products' || !options.profile.variants) return undefined;
  return options.model.entities.find((e) => e.kind === 'variants');
}

async function identityOf(source: string): Promise<SourceIdentity> {
  try {
    return await sourceIdentity(source);
  } catch {
    // Not readable now: the reader says why, with its own error.
    return { key: source };
  }
}

async function retire(
  options: RunningImport,
  recorder: RunRecorder,
  run: ImportRun,
): Promise<FullSyncResult> {
  const entity = options.model.entity(options.profile.entity);
  if (!entity) throw new Error(`entity ${options.profile.entity} is not in the tenant model`);
  recorder.flush();
  const { retireMissing } = await import('./full-sync.js');
  const variants = draftedVariants(options, entity);
  return retireMissing({
    catalog: options.catalog,
    model: options.model,
    entity,
    ...(variants && { variants }),
    journalFile: recorder.journalFile,
    workDir: path.join(recorder.dir, 'full-sync'),
    maxMissing: options.maxMissing ?? DEFAULT_MAX_MISSING,
    keepVariants: options.keepVariants ?? false,
    plan: options.plan ?? false,
    concurrency: options.concurrency ?? 4,
    record: (line) => {
      recorder.extra(line);
      run.outcomes[line.outcome as keyof typeof run.outcomes] += 1;
    },
  });
}

/** summary.json's one sentence: what happened and what to do next. */
function sentence(s: Omit<ImportSummary, 'exitCode'> & { exitCode: number }): string {
  const failed = s.outcomes.failed + s.outcomes.invalid;
  switch (s.stopReason) {
    case 'SIGINT':
    case 'SIGTERM':
      return `Interrupted (${s.stopReason}) after ${s.rows - s.outcomes['not-attempted']} rows; ${s.outcomes['not-attempted']} not attempted. Run the same command with --resume ${s.runId} to finish.`;
    case 'outage':
      return `Interrupted: the service could not be reached for longer than the outage budget; ${s.outcomes['not-attempted']} rows not finished. Run the same command with --resume ${s.runId} when it is back.`;
    case 'service':
      return `Stopped: the service kept failing; ${s.outcomes['not-attempted']} rows not attempted. Run again with --resume ${s.runId} when it is back.`;
    case 'auth':
      return 'Stopped: the API key was refused. Check the key, then run again with --resume.';
    case 'lock-lost':
      return `Interrupted (LOCK_LOST): the run lost its lock (its lock file or Redis key was removed, or went stale while Redis was unreachable), so it stopped before another run could write the same records; ${s.outcomes['not-attempted']} rows not attempted. Run the same command with --resume ${s.runId} to finish.`;
    case 'max-errors':
      return `Stopped: --max-errors reached with ${failed} rows failed or invalid; fix them (see the report) and run again.`;
    case 'max-missing':
      return `Nothing was deleted: ${s.fullSync?.guard ?? 'too many records are missing from the feed'}. Check the feed is complete, or raise --max-missing.`;
    case 'source':
      return `Stopped: the source could not be read on (${s.sourceError ?? 'a read error'}); the ${s.rows} rows before were done. Fix the file, then run it again.`;
    default: {
      const warned =
        s.assetWarnings > 0
          ? ` ${s.assetWarnings} rows were written without an image or file that could not be registered (see the report's warnings).`
          : '';
      const unfinished = s.outcomes['not-attempted'];
      const notFinished =
        unfinished > 0
          ? ` ${unfinished} rows not finished: their write may have been made and could not be checked; run the same command with --resume ${s.runId} to check and finish them.`
          : '';
      return failed > 0
        ? `Finished with ${failed} of ${s.rows} rows failed or invalid: see the report.${notFinished}${warned}`
        : unfinished > 0
          ? `Finished: ${s.rows} rows, none failed.${notFinished}${warned}`
          : `Finished: ${s.rows} rows, none failed.${warned}`;
    }
  }
}

/**
 * summary.json's requests: by method, the 429s, and the pace the run kept under its rate limit (how low
 * the 429s brought it, how long it ran below the limit), so a slow run says why.
 */
function runRequests(counted: CountersSnapshot | undefined): RunSummary['requests'] {
  return {
    total: counted?.requests ?? 0,
    byMethod: counted?.byMethod ?? {},
    rateLimited: counted?.rateLimited ?? 0,
    ...(counted?.pace && { pace: counted.pace }),
  };
}
