// `catalog-io import <source>`: the nightly supplier-feed job. Thin: flags -> options, connect,
// importFile(), then the summary on stderr (or one JSON object on stdout) and the exit code.
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { connect, connectionFlagsFrom, connectionOptions } from '../../config/index.js';
import { CatalogIoError } from '../../errors.js';
import type { HeldLock } from '../../lock/types.js';
import { checkSource } from '../../readers/index.js';
import type { DuplicatePolicy } from '../../runner/import/assets.js';
import type { ImportMode, ImportSummary, RowOutcome } from '../../runner/import/run.js';
import { EXIT, type Output } from '../output.js';
import { createProgress } from '../progress.js';
import {
  type FeedArgs,
  printFindings,
  profileFrom,
  readerOptionsFrom,
  sourceArg,
  withFeedOptions,
} from './feed.js';
import type { CommandFactory } from './index.js';
import { beginRun, endRun, holdSharedLock, runSummary, withRunEndOptions } from './run-end.js';

interface ImportArgs extends FeedArgs {
  mode: ImportMode;
  plan: boolean;
  'batch-size': number;
  'max-errors'?: number;
  'delete-variants': boolean;
  'on-duplicate-asset': DuplicatePolicy;
  'refresh-assets': boolean;
  'wait-for-images': boolean;
  concurrency?: number;
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
          type: 'number',
          default: 100,
          describe: 'Records looked up per batch (1-100)',
        })
        .option('max-errors', {
          type: 'number',
          describe: 'Stop (exit 3) once this many rows failed or were invalid',
        })
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
          describe: 'Ignore the cache of URLs registered by earlier runs',
        })
        .option('wait-for-images', {
          type: 'boolean',
          default: false,
          describe: 'Wait until the new images are processed and report those that failed',
        })
        .options(connectionOptions)
        .alias('rate-limit', 'rate'),
    handler: async (args: ImportArgs) => {
      const batchSize = args['batch-size'];
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100) {
        throw new CatalogIoError(
          'CONFIG_INVALID',
          `--batch-size must be a whole number from 1 to 100; got ${batchSize}`,
        );
      }
      const maxErrors = args['max-errors'];
      if (maxErrors !== undefined && (!Number.isInteger(maxErrors) || maxErrors < 1)) {
        throw new CatalogIoError(
          'CONFIG_INVALID',
          `--max-errors must be a whole number of at least 1; got ${maxErrors}`,
        );
      }
      // A missing file is said before anything is started or asked of the tenant.
      await checkSource(sourceArg(args.source));
      const profile = await profileFrom(args);
      const start = await beginRun(sourceArg(args.source), args);
      const connection = await connect({
        flags: connectionFlagsFrom(args),
        announce: (line) => out.error(line),
      });
      const progress = createProgress(out, args.plan ? 'plan' : 'import', { quiet: args.quiet || args.json });
      const tenant = connection.shared?.tenant ?? connection.tenant.name;
      let lock: HeldLock | undefined;
      try {
        if (!args.plan)
          lock = await holdSharedLock(
            connection,
            profile.entity,
            start.runId,
            args['wait-lock'] as number | undefined,
            out,
          );
        const model = await connection.tenant.model();
        // Loaded on use, like the other commands' runners: `--help` and other commands start faster.
        const { importFile } = await import('../../runner/import/run.js');
        const summary = await importFile({
          source: start.source,
          readerOptions: readerOptionsFrom(args),
          profile,
          model,
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
          assetCacheFile: path.join(process.cwd(), '.catalog-io', 'assets', `${connection.tenant.name}.json`),
          waitForImages: args['wait-for-images'],
          ...(args.report && { reportFile: args.report }),
          ...(args.rejects && { rejectsFile: args.rejects }),
          counters: () => connection.snapshot(),
          onProgress: (p) =>
            progress.update({
              done: p.rows,
              bytesRead: p.bytesRead,
              ...(p.totalBytes !== undefined && { totalBytes: p.totalBytes }),
              counts: countsText(p.outcomes),
              ...(p.requests && { requests: p.requests.requests, rateLimited: p.requests.rateLimited }),
            }),
        });
        progress.stop();
        printSummary(out, summary, args);
        const exitCode = exitCodeOf(summary);
        setExitCode(exitCode);
        await lock?.release();
        const bad = summary.outcomes.failed + summary.outcomes.invalid;
        const run = runSummary(start, {
          state: summary.stopped ? 'stopped' : 'finished',
          exitCode,
          entity: profile.entity,
          tenant,
          rows: summary.rows,
          outcomes: summary.outcomes,
          requests: { total: summary.requests.total, byMethod: summary.requests.byMethod },
          ...(args.report && { reportFile: args.report }),
          message:
            bad > 0
              ? `${bad} rows were not imported${args.rejects ? `: fix them in ${args.rejects} and run again` : ''}`
              : summary.stopped
                ? `stopped: --max-errors ${maxErrors} reached`
                : `all ${summary.rows} rows imported`,
        });
        await endRun(start, run, args, out);
      } catch (err) {
        // A run that could not finish is told too: nobody else would notice a nightly failure.
        const run = runSummary(start, {
          state: 'crashed',
          exitCode: EXIT.FATAL,
          entity: profile.entity,
          tenant,
          rows: 0,
          outcomes: {},
          requests: { total: connection.snapshot().requests, byMethod: connection.snapshot().byMethod },
          message: err instanceof Error ? err.message : String(err),
        });
        await endRun(start, run, args, out);
        throw err;
      } finally {
        progress.stop();
        await lock?.release();
        await connection.close();
      }
    },
  }) as CommandModule<object, ImportArgs>;

export function exitCodeOf(summary: ImportSummary): number {
  if (summary.stopped) return EXIT.STOPPED;
  const bad = summary.outcomes.failed + summary.outcomes.invalid + summary.failedImages.length;
  return bad > 0 ? EXIT.ROWS_FAILED : EXIT.OK;
}

function countsText(outcomes: Record<RowOutcome, number>): string {
  return Object.entries(outcomes)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${o} ${n}`)
    .join(' · ');
}

function printSummary(out: Output, s: ImportSummary, args: ImportArgs): void {
  if (args.json) {
    out.print(
      JSON.stringify({
        source: s.source,
        plan: s.plan,
        rows: s.rows,
        outcomes: Object.fromEntries(
          Object.entries(s.outcomes).filter(([o, n]) => n > 0 || !o.startsWith('would-')),
        ),
        topErrors: s.topErrors,
        warnings: s.warnings,
        assets: s.assets,
        failedImages: s.failedImages,
        requests: s.requests,
        stopped: s.stopped,
        durationMs: s.durationMs,
        ...(args.report && { report: args.report }),
        ...(args.rejects && { rejects: args.rejects }),
      }),
    );
    return;
  }
  const seconds = (s.durationMs / 1000).toFixed(1);
  out.error(`${s.source}: ${s.rows} rows in ${seconds} s${s.plan ? ' (plan: nothing was written)' : ''}`);
  out.error(`  ${countsText(s.outcomes) || 'nothing to do'}`);
  const a = s.assets;
  if (a.registered + a.reused + a.cached + a.planned + a.failed > 0) {
    out.error(
      `  assets: ${a.registered} registered, ${a.reused} reused, ${a.cached} known from earlier runs${a.planned ? `, ${a.planned} to register` : ''}, ${a.failed} failed`,
    );
  }
  if (s.failedImages.length) out.error(`  images that failed processing: ${s.failedImages.join(', ')}`);
  const methods = Object.entries(s.requests.byMethod)
    .map(([m, n]) => `${m} ${n}`)
    .join(', ');
  out.error(
    `  requests: ${s.requests.total}${methods ? ` (${methods})` : ''}, ${s.requests.retries} retries, ${s.requests.rateLimited} × 429`,
  );
  printFindings(out, s);
  if (s.stopped)
    out.error(`stopped: --max-errors ${args['max-errors']} reached; rows after that were not read`);
  if (args.report) out.error(`report: ${args.report}`);
  if (args.rejects && s.outcomes.failed + s.outcomes.invalid > 0)
    out.error(`rejects: ${args.rejects} (fix them and run again)`);
}
