import type { FullSyncCounts } from '../../runner/import/full-sync.js';
import type { ImportSummary, RowOutcome } from '../../runner/import/run.js';
import { redactText } from '../../secrets.js';
import { rejectsFileOf } from '../../writers/rejects.js';
import { paceSummaryWords } from '../outage-notice.js';
import type { Output } from '../output.js';
import { printFindings } from './feed.js';
import type { ImportArgs } from './import.js';

/** How to finish a stopped run: resume it, or (a whole workbook) run it again. */
function again(s: ImportSummary): string {
  return s.sheets
    ? 'run the same command again (rows already imported come back unchanged and are not written again)'
    : `run the same command with --resume (run ${s.runId})`;
}

export function countsText(outcomes: Record<RowOutcome, number>): string {
  return Object.entries(outcomes)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${o} ${n}`)
    .join(' · ');
}

export function printSummary(out: Output, s: ImportSummary, args: ImportArgs): void {
  if (args.json) {
    // The summary names URLs (the source, images in messages): said without their secrets.
    out.print(
      redactText(
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
          assetWarnings: s.assetWarnings,
          ...(s.categoriesCreated.count > 0 && { categoriesCreated: s.categoriesCreated }),
          failedImages: s.failedImages,
          requests: s.requests,
          stopped: s.stopped,
          ...(s.stopReason && { stopReason: s.stopReason }),
          state: s.state,
          exitCode: s.exitCode,
          runId: s.runId,
          ...(s.sheets && { sheets: s.sheets }),
          ...(s.fullSync && { fullSync: s.fullSync }),
          durationMs: s.durationMs,
          ...(args.report && { report: args.report }),
          ...(args.rejects && {
            rejects: s.sheets ? s.sheets.map((p) => rejectsFileOf(args.rejects!, p.sheet)) : args.rejects,
          }),
        }),
      ),
    );
    // A run that stopped says so on stderr also with --json: whoever reads the log learns what to do.
    printStop(out, s, args);
    return;
  }
  const seconds = (s.durationMs / 1000).toFixed(1);
  out.error(`${s.source}: ${s.rows} rows in ${seconds} s${s.plan ? ' (plan: nothing was written)' : ''}`);
  out.error(`  ${countsText(s.outcomes) || 'nothing to do'}`);
  if (s.sheets) {
    out.error(
      `  sheets: ${s.sheets.map((p) => `${p.sheet} (${p.entity}, ${p.rows} rows${p.exitCode ? `, exit ${p.exitCode}` : ''})`).join(', ')}`,
    );
  }
  const a = s.assets;
  if (a.registered + a.reused + a.cached + a.planned + a.failed + (a.uncertain ?? 0) > 0) {
    out.error(
      `  assets: ${a.registered} registered, ${a.reused} reused, ${a.cached} known from earlier runs${a.planned ? `, ${a.planned} to register` : ''}, ${a.failed} failed${a.uncertain ? `, ${a.uncertain} uncertain (their registration may have been made: the next run checks them)` : ''}`,
    );
  }
  const c = s.categoriesCreated;
  if (c.count > 0) {
    const more = c.count > c.paths.length ? `, and ${c.count - c.paths.length} more` : '';
    out.error(
      `  categories ${s.plan ? 'that would be created' : 'created'} for their paths: ${c.count} (${c.paths.join('; ')}${more})`,
    );
  }
  if (s.assetWarnings > 0) {
    out.error(
      `  ${s.assetWarnings} rows written without an image or file that could not be registered (the report's warnings column)`,
    );
  }
  if (s.failedImages.length) out.error(`  images that failed processing: ${s.failedImages.join(', ')}`);
  const methods = Object.entries(s.requests.byMethod)
    .map(([m, n]) => `${m} ${n}`)
    .join(', ');
  out.error(
    `  requests: ${s.requests.total}${methods ? ` (${methods})` : ''}, ${s.requests.retries} retries, ${s.requests.rateLimited} × 429`,
  );
  const pace = paceSummaryWords(s.requests.pace);
  if (pace) out.error(`  pace: ${pace}`);
  printFindings(out, s);
  if (s.fullSync) {
    const f = s.fullSync;
    const done = (c: FullSyncCounts) =>
      s.plan
        ? ' (would be deleted)'
        : f.guard
          ? ''
          : `, ${c.deleted} deleted${c.failed ? `, ${c.failed} failed` : ''}`;
    const variants = f.variants
      ? `; ${f.variants.missing} of ${f.variants.total} variants not in the feed while their product is${done(f.variants)}`
      : '';
    // Variants are full-synced with a products feed only (one sheet's, or a workbook's sheets added up).
    const what = args.entity ?? (f.variants && !s.sheets ? 'products' : 'records');
    out.error(`  full sync: ${f.missing} of ${f.total} ${what} not in the feed${done(f)}${variants}`);
  }
  printStop(out, s, args);
  if (args.report) out.error(`report: ${args.report}`);
  if (args.rejects && s.outcomes.failed + s.outcomes.invalid > 0) {
    // A workbook's sheets each have their rejects file, named after the sheet.
    const files = s.sheets
      ? s.sheets.filter((p) => p.exitCode !== 0).map((p) => rejectsFileOf(args.rejects!, p.sheet))
      : [args.rejects];
    out.error(`rejects: ${files.join(', ')} (fix them and run again)`);
  }
}

/** Why the run stopped before its end, and what to do next (nothing for a run that finished). */
function printStop(out: Output, s: ImportSummary, args: ImportArgs): void {
  const notAttempted = s.outcomes['not-attempted'];
  switch (s.stopReason) {
    case 'SIGINT':
    case 'SIGTERM':
      out.error(`interrupted (${s.stopReason}): ${notAttempted} rows not attempted. To finish, ${again(s)}`);
      break;
    case 'max-errors':
      out.error(
        `stopped: --max-errors ${args['max-errors']} reached; ${notAttempted} rows after that were not attempted`,
      );
      break;
    case 'outage':
      out.error(
        `interrupted: the service could not be reached for longer than the outage budget (--outage-budget); ${notAttempted} rows not attempted. When it is back, ${again(s)}`,
      );
      break;
    case 'service':
      out.error(
        `stopped: ${args['max-failed-batches']} batches in a row failed because the service did; ${notAttempted} rows not attempted. When it is back, ${again(s)}`,
      );
      break;
    case 'auth':
      out.error(`stopped: the API key was refused; ${notAttempted} rows not attempted`);
      break;
    case 'max-missing':
      out.error(`stopped: ${s.fullSync?.guard}; the records that would have gone are in the report`);
      break;
    case 'source':
      out.error(
        `stopped: the source could not be read on: ${s.sourceError}; the ${s.rows} rows before were done (see the report). Fix the file, then run it again`,
      );
      break;
    case 'lock-lost':
      out.error(
        `interrupted: the run lost its lock [LOCK_LOST]; ${notAttempted} rows not attempted. Check no other import of this entity runs, then ${again(s)}`,
      );
      break;
    case undefined:
      // A run that went to its end with rows whose write may have been made, unchecked (the report says).
      if (notAttempted > 0)
        out.error(
          `${notAttempted} rows not finished: their write may have been made and could not be checked. To check and finish them, ${again(s)}`,
        );
      break;
  }
}
