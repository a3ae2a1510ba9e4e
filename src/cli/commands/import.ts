// `catalog-io import <source>`: the nightly supplier-feed job. Thin: flags -> options, connect,
// importFile(), then the summary on stderr (or one JSON object on stdout) and the exit code.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { type connect, connectionFlagsFrom, connectionOptions, numberFlag } from '../../config/index.js';
import { CatalogIoError, isCatalogIoError } from '../../errors.js';
import { holderWords } from '../../lock/held.js';
import type { ReaderOptions } from '../../readers/index.js';
import type { DuplicatePolicy } from '../../runner/import/assets.js';
import type { MaxMissing } from '../../runner/import/full-sync.js';
import type { ImportMode, ImportOptions, ImportSummary, RunStop } from '../../runner/import/run.js';
import { EXIT_CODES } from '../../runner/import/types.js';
import type { StructureTable } from '../../runner/structure/types.js';
import type { RunSummary } from '../../runner/summary-types.js';
import { tenantHash } from '../../runs/source-identity.js';
import { checkSummaryPath } from '../../runs/summary.js';
import { connectTelling } from '../outage-notice.js';
import { printJsonEnd } from '../output.js';
import { createProgress } from '../progress.js';
import { watchStopSignals } from '../stop-signals.js';
import {
  checkFeedSource,
  type FeedArgs,
  type FeedReading,
  fileName,
  modelScope,
  placeReading,
  profileFrom,
  readerOptionsFrom,
  sourceArg,
  withFeedOptions,
  workbookReading,
} from './feed.js';
import { countsText, printSummary } from './import-print.js';
import type { CommandFactory } from './index.js';
import {
  beginRun,
  endRun,
  notifyEarlyFailure,
  type RunStart,
  runSummary,
  withRunEndOptions,
} from './run-end.js';

export interface ImportArgs extends FeedArgs {
  mode: ImportMode;
  plan: boolean;
  'batch-size': number;
  'max-errors'?: number;
  'delete-variants': boolean;
  'on-duplicate-asset': DuplicatePolicy;
  'refresh-assets': boolean;
  'on-asset-error': 'warn' | 'fail';
  'wait-for-images': boolean;
  concurrency?: number;
  resume?: string;
  'max-failed-batches': number;
  'wait-lock'?: number;
  missing: 'delete' | 'ignore';
  'max-missing': string;
  'keep-variants': boolean;
  summary?: string;
  'full-compare': boolean;
}

export const importCommand: CommandFactory = (out, setExitCode) =>
  ({
    command: 'import <source>',
    describe:
      'Register images in the DAM, then create or update records by reference, writing only what changed',
    builder: (y) =>
      withRunEndOptions(
        withFeedOptions(y, {
          rejects: "Failed and invalid rows in the input's format, with an _error column",
        }),
      )
        .option('mode', {
          choices: ['upsert', 'create', 'update'] as const,
          default: 'upsert' as const,
          describe: 'Command of rows without _command: upsert = MERGE, create = NEW, update = UPDATE',
        })
        .option('plan', {
          type: 'boolean',
          default: false,
          describe: 'Look up and diff only: say what would change, write nothing',
        })
        .option('batch-size', {
          ...numberFlag(
            'batch-size',
            { min: 1, max: 100, whole: true, unit: 'records looked up per batch' },
            'Records looked up per batch (1-100)',
          ),
          default: 100,
        })
        .option(
          'max-errors',
          numberFlag(
            'max-errors',
            { min: 1, max: Number.MAX_SAFE_INTEGER, whole: true, unit: 'failed or invalid rows' },
            'Stop (exit 3) once this many rows failed or were invalid',
          ),
        )
        .option('delete-variants', {
          type: 'boolean',
          default: false,
          describe: 'DELETE of a product also deletes its variants (otherwise they stay, without a product)',
        })
        .option('on-duplicate-asset', {
          choices: ['reuse', 'replace', 'fail'] as const,
          default: 'reuse' as const,
          describe:
            'When the DAM already has an asset of that name: use it, replace its content, or fail the row',
        })
        .option('refresh-assets', {
          type: 'boolean',
          default: false,
          describe: 'Ignore the cache of URLs registered (or refused) in earlier runs',
        })
        .option('on-asset-error', {
          choices: ['warn', 'fail'] as const,
          default: 'warn' as const,
          describe:
            'An image or file the DAM cannot take: write the record without it and warn, or fail the row',
        })
        .option('wait-for-images', {
          type: 'boolean',
          default: false,
          describe: 'Wait until the new images are processed and report those that failed',
        })
        .option('resume', {
          type: 'string',
          describe:
            'Continue the last unfinished run of this source and profile, or start a new one and say why (with an id: that run, or an error): finished rows are not sent again',
        })
        .option('max-failed-batches', {
          ...numberFlag(
            'max-failed-batches',
            { min: 1, max: Number.MAX_SAFE_INTEGER, whole: true, unit: 'batches' },
            'Stop (exit 2) after this many batches in a row failed because the service did',
          ),
          default: 5,
        })
        .option(
          'wait-lock',
          numberFlag(
            'wait-lock',
            { min: 0, max: 86_400, whole: false, unit: 'seconds' },
            'When another import of this entity to this tenant runs, wait up to this many seconds',
          ),
        )
        .option('missing', {
          choices: ['delete', 'ignore'] as const,
          default: 'ignore' as const,
          describe:
            "Full sync: delete the entity's records the feed does not name (with a variants profile, also the variants of its products it does not name)",
        })
        .option('max-missing', {
          type: 'string',
          default: '5%',
          describe: 'Full sync: delete nothing (exit 3) when more records than this (N or P%) would go',
        })
        .option('keep-variants', {
          type: 'boolean',
          default: false,
          describe: 'Full sync: keep the variants of the products it deletes',
        })
        .option('full-compare', {
          type: 'boolean',
          default: false,
          describe:
            'Look every row up and compare it, ignoring what earlier runs recorded (.catalog-io/state/)',
        })
        .option('summary', {
          type: 'string',
          describe: "Copy the run's summary.json to this file",
          coerce: fileName('summary'),
        })
        .options(connectionOptions)
        .alias('rate-limit', 'rate'),
    handler: async (args: ImportArgs) => {
      // Numbers were checked by their flags (numberFlag).
      const batchSize = args['batch-size'];
      const maxErrors = args['max-errors'];
      const maxFailedBatches = args['max-failed-batches'];
      const waitLock = args['wait-lock'];
      const maxMissing = parseMaxMissing(args['max-missing']);
      // A missing file is said before anything is started or asked of the tenant.
      await checkFeedSource(sourceArg(args.source));
      if (args.summary) await checkSummaryPath(args.summary);
      const profile = await profileFrom(args);
      const readerOptions = readerOptionsFrom(args);
      // A pattern's newest match is picked once: the same file is read, resumed and moved.
      let start: RunStart;
      let sheets: string[] | undefined;
      let structure: StructureTable | undefined;
      let placing: FeedReading | undefined;
      let connection: Awaited<ReturnType<typeof connect>>;
      // Set once it exists: a service found unreachable shows on the progress line as well as in a line
      // of its own (as do 429s that lower the pace below --rate-limit, and its return to it).
      let progress: ReturnType<typeof createProgress> | undefined;
      try {
        start = await beginRun(sourceArg(args.source), args);
        const reading = await wholeWorkbook(start.source, readerOptions, args);
        sheets = reading.whole;
        structure = reading.structure;
        placing = reading;
        if (reading.entity) profile.entity = reading.entity;
        connection = await connectTelling(out, connectionFlagsFrom(args), {
          waiting: (now) => progress?.waiting(now),
          pastBudget: 'then the run stops and --resume finishes it',
          sayGone: true,
        });
        if (reading.note) out.error(`note: ${reading.note}`);
      } catch (err) {
        await notifyEarlyFailure(sourceArg(args.source), args, err, out);
        throw err;
      }
      // The progress line, while a service is waited for: the rows so far, what it waits for, since
      // when and until the outage budget runs out.
      progress = createProgress(out, args.plan ? 'plan' : 'import', { quiet: args.quiet || args.json });
      // First signal: no new request; those in flight get a short grace, then are cut; the rows not
      // finished are `not-attempted` and the report and journal are complete. Second: no grace. Third:
      // out at once (the journal is flushed; --resume still works).
      const stop: RunStop = {
        // Said at once and whatever the flags: a scheduler's log must show why the run ends.
        onLockLost: (err) =>
          out.error(
            `catalog-io: ${err.message}; stopping: no write is sent any more, the writes in flight end [LOCK_LOST]`,
          ),
      };
      const unwatchSignals = watchStopSignals({
        stop,
        interrupt: (grace) => connection.transport.interrupt(grace),
        say: (line) => out.error(line),
        quiet: () => progress.stop(),
        hint: (signal) => (signal === 'SIGINT' ? ' (Ctrl-C again to cut them now)' : ''),
      });
      // A job's run whose worker died ends at once, its journal consistent (as on a second Ctrl-C):
      // the job, given to another worker, resumes it, and must not find it still running.
      const { watchWorker, jobOfThisRun } = await import('../../jobs/job-process.js');
      const job = jobOfThisRun();
      const unwatch = watchWorker(() => {
        out.error('catalog-io: the worker that ran this job is gone: stopping now; the job resumes this run');
        stop.flushNow?.();
        process.exit(EXIT_CODES.SIGTERM);
      });
      const stateDir = path.join(process.cwd(), '.catalog-io');
      const tenant = tenantHash(connection.tenant.catalogUrl, connection.tenant.keyId);
      try {
        // A file its name says nothing of is placed by its header: the model is read before the run
        // takes its lock (the lock is the entity's); the run then reads that `/$metadata` no more. When
        // that read fails (the service unreachable, a signal), the run still starts and meets the same
        // failure where it reads its model: it is recorded, its summary written, an earlier report gone.
        let placementFailure: unknown;
        if (placing?.header) {
          try {
            const { note } = await placeReading(placing, profile, (scope) => connection.tenant.model(scope));
            if (note) out.error(`note: ${note}`);
          } catch (err) {
            placementFailure = err ?? new Error('placing the file by its header failed');
          }
        }
        // Loaded on use, like the other commands' runners: `--help` and other commands start faster.
        const { importFile } = await import('../../runner/import/run.js');
        const { FileLockStore } = await import('../../lock/file.js');
        const options: ImportOptions = {
          stateDir,
          // A queued job's run says whose it is: the job handed out again after its run finished
          // (Redis lost its end) is completed with it, not run again. A whole workbook is several
          // runs, none of which is the job's end: not recorded.
          ...(job && !sheets && { job: job.key }),
          ...(args.resume !== undefined && { resume: args.resume === '' ? true : args.resume }),
          tenant,
          // --redis: one lock for every machine of the tenant; else a lock file on this one.
          lockStore: connection.shared?.locks ?? new FileLockStore(connection.lockDir),
          ...(waitLock !== undefined && { waitLockMs: waitLock * 1000 }),
          // Said whatever the flags: a scheduler's log must show why the run has not started.
          onLockWait: (holder) =>
            out.error(
              `waiting up to ${waitLock} s for the lock of ${profile.entity}, held by ${holderWords(holder)}`,
            ),
          onLockTakeover: (previous) =>
            out.error(
              `warning: took over the lock of run ${previous.runId} (pid ${previous.pid} on ${previous.host}, started ${previous.startedAt}): its process is gone or stopped renewing it`,
            ),
          maxFailedBatches,
          missing: args.missing,
          maxMissing,
          keepVariants: args['keep-variants'],
          fullCompare: args['full-compare'],
          stop,
          ...(args.summary && { summaryFile: args.summary }),
          source: start.source,
          readerOptions,
          profile,
          // Read once the run holds its lock: a run refused by the lock sends no request. One file
          // needs its profile's entity (the `$metadata` of custom entities only for one of them); a
          // whole workbook places its sheets on any entity.
          model: () =>
            placementFailure === undefined
              ? connection.tenant.model(modelScope({ whole: sheets, structure }, profile.entity))
              : Promise.reject(placementFailure),
          catalog: connection.catalog,
          dam: () => connection.dam,
          mode: args.mode,
          plan: args.plan,
          batchSize,
          concurrency: args.concurrency ?? 8,
          ...(maxErrors !== undefined && { maxErrors }),
          strict: args.strict,
          raw: args.raw,
          deleteVariants: args['delete-variants'],
          onDuplicateAsset: args['on-duplicate-asset'],
          refreshAssets: args['refresh-assets'],
          onAssetError: args['on-asset-error'],
          assetCacheFile: path.join(process.cwd(), '.catalog-io', 'assets', `${connection.tenant.name}.json`),
          waitForImages: args['wait-for-images'],
          ...(args.report && { reportFile: args.report }),
          ...(args.rejects && { rejectsFile: args.rejects }),
          ...(args.profile && { profileFile: args.profile }),
          counters: () => connection.snapshot(),
          // Asked at each report: the pace may be lowered after 429s (src/api/limiter.ts).
          ...(connection.requestRate !== undefined && { requestRate: () => connection.requestRate }),
          onNote: (line) => out.error(line),
          onProgress: (p) =>
            progress.update({
              // Rows not attempted are not done: an interrupted run never shows 100%.
              done: p.rows - p.outcomes['not-attempted'],
              rowsRead: p.rowsRead,
              ...(p.rowsMade !== undefined && { rowsMade: p.rowsMade }),
              bytesRead: p.bytesRead,
              ...(p.totalBytes !== undefined && { totalBytes: p.totalBytes }),
              counts: countsText(p.outcomes),
              ...(p.requests && { requests: p.requests.requests, rateLimited: p.requests.rateLimited }),
              ...(connection.requestRate !== undefined && { requestRate: connection.requestRate }),
            }),
        };
        const summary = structure
          ? await (await import('../../runner/structure/sheets.js')).importStructureFile(options, structure)
          : sheets
            ? await (await import('../../runner/import/workbook.js')).importWorkbook(options, sheets)
            : await importFile(options);
        progress.stop();
        printSummary(out, summary, args);
        setExitCode(summary.exitCode);
        await endRun(
          start,
          await finishedRunSummary(summary, start, tenant, structure ?? profile.entity, args),
          args,
          out,
        );
      } catch (err) {
        // A run that could not run or finish is told too: nobody else would notice a nightly failure.
        const locked = isCatalogIoError(err, 'LOCKED');
        const errorCode = isCatalogIoError(err) ? err.code : undefined;
        // A signal before the first row (waiting for the lock, reading `$metadata`): nothing was done.
        const signal = isCatalogIoError(err, 'API_STOPPED') ? stop.signal : undefined;
        const { failedRunOf } = await import('../../runner/import/run.js');
        const end = runSummary(
          { ...start, runId: failedRunOf(err) ?? '' },
          {
            state: locked ? 'stopped' : signal ? 'interrupted' : 'crashed',
            exitCode: locked ? EXIT_CODES.locked : signal ? EXIT_CODES[signal] : EXIT_CODES.fatal,
            entity: structure ?? profile.entity,
            tenant,
            rows: 0,
            outcomes: {},
            requests: { total: connection.snapshot().requests, byMethod: connection.snapshot().byMethod },
            message: err instanceof Error ? err.message : String(err),
          },
        );
        if (signal) {
          const message = `interrupted (${signal}) before the first row: nothing was written. To import the file, run the same command again`;
          out.error(message);
          if (args.json) printJsonEnd(out, { code: 'API_STOPPED', message, exitCode: EXIT_CODES[signal] });
          setExitCode(EXIT_CODES[signal]);
          await endRun(start, end, args, out, errorCode);
          return;
        }
        if (!locked) {
          await endRun(start, end, args, out, errorCode);
          // A full disk under the report ends the run, not its work: the journal holds what was done.
          // (Not the --summary copy: it is written once the run is over and recorded.)
          if (
            !args.plan &&
            isCatalogIoError(err, 'OUTPUT_FAILED') &&
            !err.message.includes('the summary copy')
          )
            throw new CatalogIoError(
              'OUTPUT_FAILED',
              `${err.message}; the rows done so far are kept: make room, then run the same command with --resume to finish the run`,
              { cause: err },
            );
          throw err;
        }
        out.error(`catalog-io: ${(err as Error).message} [LOCKED]`);
        // Under --json the refusal is the one object on stdout: a script reading it learns why.
        if (args.json)
          printJsonEnd(out, { code: 'LOCKED', message: (err as Error).message, exitCode: EXIT_CODES.locked });
        setExitCode(EXIT_CODES.locked);
        await endRun(start, end, args, out, errorCode);
      } finally {
        unwatch();
        unwatchSignals();
        progress.stop();
        await connection.close();
      }
    },
  }) as CommandModule<object, ImportArgs>;

/** The run's summary.json as the run wrote it (a plan or a whole workbook: made from the summary). */
async function finishedRunSummary(
  s: ImportSummary,
  start: RunStart,
  tenant: string,
  entity: string,
  args: ImportArgs,
): Promise<RunSummary> {
  // A whole workbook ran one import per sheet: its summary is the sum, made below.
  if (s.runDir && !s.sheets) {
    try {
      return JSON.parse(await readFile(path.join(s.runDir, 'summary.json'), 'utf8')) as RunSummary;
    } catch {
      // not written (a plan): made below
    }
  }
  return runSummary(
    { ...start, runId: s.runId },
    {
      state: s.state,
      exitCode: s.exitCode,
      entity,
      tenant,
      rows: s.rows,
      outcomes: s.outcomes,
      requests: {
        total: s.requests.total,
        byMethod: s.requests.byMethod,
        rateLimited: s.requests.rateLimited,
        ...(s.requests.pace && { pace: s.requests.pace }),
      },
      ...(args.report && { reportFile: args.report }),
      message: `${s.rows} rows`,
    },
  );
}

/**
 * How a source is imported (workbookReading): a workbook whole, a structure table, or one sheet or file
 * on the entity its name or header says. Neither a workbook imported whole nor a structure table is
 * one run that can be resumed.
 */
async function wholeWorkbook(
  source: string,
  readerOptions: ReaderOptions,
  args: ImportArgs,
): Promise<FeedReading> {
  const reading = await workbookReading(source, readerOptions, args);
  if (reading.whole && args.resume !== undefined) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `--resume continues one sheet's run: ${source} has ${reading.whole.length} sheets and is imported whole; name the sheet (--sheet) that was interrupted, or run the workbook again (finished rows come back unchanged)`,
    );
  }
  if (reading.structure && args.resume !== undefined) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `--resume continues a run of records: ${source} is the export's ${reading.structure} table, applied whole; run it again (what is already applied comes back unchanged)`,
    );
  }
  return reading;
}

/** `--max-missing 200` or `--max-missing 5%`. */
function parseMaxMissing(text: string): MaxMissing {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!m || (!m[2] && !Number.isInteger(Number(m[1])))) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `--max-missing must be a number of records (200) or a percentage (5%); got ${text}`,
    );
  }
  if (m[2] && Number(m[1]) > 100) {
    throw new CatalogIoError('CONFIG_INVALID', `--max-missing is a percentage of at most 100%; got ${text}`);
  }
  return m[2] ? { percent: Number(m[1]) } : { count: Number(m[1]) };
}
