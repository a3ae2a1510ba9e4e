// A workbook imported whole: each sheet placed on an entity or a structure table (placement.ts), the
// order the entities go in (a parent before what refers to it), and the one summary of the sheets' runs.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { CatalogIoError } from '../../errors.js';
import { openSource, type ReaderOptions } from '../../readers/index.js';
import { writeRunSummary } from '../../runs/summary.js';
import { type ImportReportLine, writeWorkbookReport } from '../../writers/import-report.js';
import { rejectsFileOf } from '../../writers/rejects.js';
import { type PlacedSheet, placeSheets } from '../placement.js';
import { importStructureSheets } from '../structure/sheets.js';
import type { FullSyncCounts } from './full-sync.js';
import { PlannedRecords } from './planned.js';
import { importFile, modelOf } from './run.js';
import {
  EXIT_CODES,
  type ImportOptions,
  type ImportSummary,
  ROW_OUTCOMES,
  type RunningImport,
} from './types.js';

/** A workbook's sheet and its run; none for a sheet not run (a header and no rows). */
interface SheetRun extends PlacedSheet {
  part?: ImportSummary;
}

/** Where a workbook import keeps the report lines of its sheet at `index` until the report is written. */
const reportOf = (reports: string, index: number) => path.join(reports, `${index}.jsonl`);

/**
 * Every sheet that holds an entity, one import each in dependency order (each with its own lock and
 * run folder), into one report with a sheet column and one summary. A sheet that stops (a signal,
 * --max-errors, the service) stops the workbook: the sheets after it are named in a warning.
 */
export async function importWorkbook(request: ImportOptions, sheets: string[]): Promise<ImportSummary> {
  // Placing sheets on entities needs the model first (each sheet's run then takes its own lock).
  const options: RunningImport = { ...request, model: await modelOf(request) };
  const startedAt = new Date().toISOString();
  const headers: SheetHead[] = [];
  for (const name of sheets) headers.push(await sheetHeaders(options.source, options.readerOptions, name));
  const {
    placed,
    structure: structureSheets,
    unplaced,
  } = placeSheets(headers, options.model, options.profile.sheets);
  // A sheet with a header and no rows (an export's sheet of an entity with no records) is nothing to
  // import for its entity: said in a note, listed with 0 rows, not run (a run refuses a feed with no data).
  const headerOnly = new Set(headers.filter((h) => h.headerOnly).map((h) => h.name));
  // The export's structure tables (attribute sets, layouts) go first: records name their sets.
  const structure = structureSheets.filter((s) => !headerOnly.has(s.sheet));
  if (placed.length === 0 && structureSheets.length === 0) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `No sheet of ${options.source} names an entity (${unplaced.map((s) => `"${s}"`).join(', ')}): name the sheets after the entities (products, variants, categories), map them in the profile's "sheets", or import one with --sheet and --entity`,
    );
  }
  const warnings: string[] = [];
  const notes: string[] = [];
  if (unplaced.length > 0) {
    warnings.push(
      `sheets not imported, no entity found for them: ${unplaced.map((s) => `"${s}"`).join(', ')} (name one with --sheet and --entity, or map it in the profile's "sheets")`,
    );
  }
  const reports = options.reportFile ? await mkdtemp(path.join(tmpdir(), 'catalog-io-workbook-')) : undefined;
  /**
   * The sheets in the order they ran, each with its run (none for a sheet not run, header only): the
   * summary lists them all; a sheet's report lines are in `<its index>.jsonl` under `reports`.
   */
  const sheetRuns: SheetRun[] = [];
  const skip = (sheet: PlacedSheet) => {
    notes.push(headerOnlyNote(sheet, 'import'));
    if (options.missing === 'delete')
      warnings.push(
        `--missing delete: nothing deleted from ${sheet.entity}, its sheet "${sheet.sheet}" has no rows (a full sync of it needs at least one)`,
      );
    sheetRuns.push(sheet);
  };
  // A plan carries what each sheet would write to the sheets after it (a variant of a product the
  // products sheet would create), as the import's sheets find what the ones before them wrote.
  const planned = options.plan ? new PlannedRecords(options.model.baseLanguage) : undefined;
  try {
    if (structure.length > 0) {
      const runs = await importStructureSheets(options, structure, planned);
      for (const [i, { sheet, table }] of structure.entries()) {
        const { part, lines } = runs[i]!;
        if (reports)
          await writeFile(
            reportOf(reports, sheetRuns.length),
            lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
          );
        sheetRuns.push({ sheet, entity: table, part });
      }
    }
    for (const { sheet, table } of structureSheets) if (headerOnly.has(sheet)) skip({ sheet, entity: table });
    let reached = 0;
    for (const { sheet, entity } of placed) {
      reached++;
      if (headerOnly.has(sheet)) {
        skip({ sheet, entity });
        continue;
      }
      const profile = entity === options.profile.entity ? options.profile : { entity };
      const { reportFile: _report, summaryFile: _summary, rejectsFile, ...rest } = options;
      const part = await importFile(
        {
          ...rest,
          readerOptions: { ...options.readerOptions, sheet: [sheet] },
          profile,
          workbookSheet: true,
          ...(reports && { reportFile: reportOf(reports, sheetRuns.length) }),
          ...(rejectsFile && { rejectsFile: rejectsFileOf(rejectsFile, sheet) }),
        },
        planned,
      );
      sheetRuns.push({ sheet, entity, part });
      if (part.stopped || options.stop?.signal) break;
    }
    const left = placed.slice(reached);
    if (left.length > 0)
      warnings.push(`stopped before the sheets ${left.map((p) => `"${p.sheet}"`).join(', ')}`);
    const ran = sheetRuns.filter((s): s is Required<SheetRun> => s.part !== undefined);
    const parts = ran.map((s) => s.part);
    const listed = sheetRuns.map(({ sheet, entity, part }) => ({
      sheet,
      entity,
      rows: part?.rows ?? 0,
      exitCode: part?.exitCode ?? EXIT_CODES.ok,
    }));
    const folded = foldSummaries(parts[0]?.source ?? options.source, parts, warnings);
    const summary: ImportSummary = {
      ...folded,
      notes: [...notes, ...folded.notes],
      // Every sheet header only: no run says it was a plan.
      plan: folded.plan || options.plan === true,
      sheets: listed,
    };
    if (options.reportFile && reports) {
      await writeWorkbookReport(
        options.reportFile,
        (async function* () {
          for (const [i, { sheet, part }] of sheetRuns.entries())
            if (part) yield { sheet, lines: jsonLines<ImportReportLine>(reportOf(reports, i)) };
        })(),
        [
          ['source', summary.source],
          [
            'sheets',
            listed.map((d) => `${d.sheet} (${d.entity}${d.rows === 0 ? ', 0 rows' : ''})`).join(', '),
          ],
          ['rows', summary.rows],
          ...Object.entries(summary.outcomes)
            .filter(([, n]) => n > 0)
            .map(([o, n]) => [o, n] as const),
          ['requests', summary.requests.total],
          ['duration (s)', Math.round(summary.durationMs / 100) / 10],
        ],
      );
    }
    if (options.summaryFile) {
      const failed = summary.outcomes.failed + summary.outcomes.invalid;
      // Rows whose write may have been made, unchecked (a sheet's run left them to be checked).
      const unfinished = summary.outcomes['not-attempted'];
      const notFinished =
        unfinished > 0
          ? ` ${unfinished} rows not finished: their write may have been made and could not be checked; run the same command again to check and finish them.`
          : '';
      await writeRunSummary(options.summaryFile, {
        runId: summary.runId,
        command: 'import',
        source: summary.source,
        entity: ran.map((s) => s.entity).join(','),
        tenant: options.tenant ?? 'unnamed',
        state: summary.state,
        exitCode: summary.exitCode,
        outcomes: Object.fromEntries(Object.entries(summary.outcomes).filter(([, n]) => n > 0)),
        rows: summary.rows,
        ...(summary.assetWarnings > 0 && { assetWarnings: summary.assetWarnings }),
        requests: { total: summary.requests.total, byMethod: summary.requests.byMethod },
        startedAt,
        finishedAt: new Date().toISOString(),
        durationMs: summary.durationMs,
        ...(options.reportFile && { reportFile: path.resolve(options.reportFile) }),
        message: summary.stopped
          ? `Stopped (${summary.stopReason}) in the workbook's sheets; see each sheet's run: ${summary.runId}.`
          : failed > 0
            ? `Finished with ${failed} of ${summary.rows} rows failed or invalid: see the report.${notFinished}`
            : `Finished: ${summary.rows} rows in ${ran.length} sheets, none failed.${notFinished}`,
      });
    }
    return summary;
  } finally {
    planned?.close();
    if (reports) await rm(reports, { recursive: true, force: true });
  }
}

/** What sheetHeaders() found of a sheet. */
export interface SheetHead {
  name: string;
  /** Its header; undefined for a sheet without one (an empty sheet, or one that cannot be read). */
  headers: string[] | undefined;
  /**
   * A header and no rows (an export's sheet of an entity with no records): placed as any other sheet,
   * then not run (0 rows, and a note says so).
   */
  headerOnly?: true;
}

/** A sheet's header, and whether any row follows it; for placing it on an entity. */
export async function sheetHeaders(
  source: string,
  readerOptions: ReaderOptions | undefined,
  sheet: string,
): Promise<SheetHead> {
  try {
    const opened = await openSource(source, { ...readerOptions, sheet: [sheet], allowNoData: true });
    try {
      // The open has read the first row already: asking for it costs nothing.
      const first = await opened.rows[Symbol.asyncIterator]().next();
      return { name: sheet, headers: opened.headers, ...(first.done && { headerOnly: true as const }) };
    } finally {
      await opened.close();
    }
  } catch {
    // An empty sheet has no header: it is placed by its name or not at all (and its run, if it is
    // placed, fails with the reader's error, as does a sheet that cannot be read).
    return { name: sheet, headers: undefined };
  }
}

/** The note for a placed sheet with a header and no rows, which is not run. */
export function headerOnlyNote(sheet: PlacedSheet, doing: 'import' | 'validate'): string {
  return `sheet "${sheet.sheet}" (${sheet.entity}) has a header and no rows: nothing to ${doing} for it`;
}

/** The records of a JSON Lines file (a sheet's report lines), one at a time. */
export async function* jsonLines<T>(file: string): AsyncGenerator<T> {
  for await (const line of createInterface({
    input: createReadStream(file),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    if (line) yield JSON.parse(line) as T;
  }
}

/** The sheets' runs as one: counts added up, the worst exit code, the first stop. */
export function foldSummaries(source: string, parts: ImportSummary[], warnings: string[]): ImportSummary {
  const outcomes = Object.fromEntries(ROW_OUTCOMES.map((o) => [o, 0])) as ImportSummary['outcomes'];
  for (const part of parts) for (const o of ROW_OUTCOMES) outcomes[o] += part.outcomes[o];
  const assets: ImportSummary['assets'] = { registered: 0, reused: 0, cached: 0, planned: 0, failed: 0 };
  for (const part of parts)
    for (const k of ['registered', 'reused', 'cached', 'planned', 'failed'] as const)
      assets[k] += part.assets[k];
  const uncertain = parts.reduce((n, p) => n + (p.assets.uncertain ?? 0), 0);
  if (uncertain > 0) assets.uncertain = uncertain;
  const stopped = parts.find((p) => p.stopped);
  const last = parts[parts.length - 1];
  const fullSyncs = parts.flatMap((p) => (p.fullSync ? [p.fullSync] : []));
  return {
    runId: parts.map((p) => p.runId).join(','),
    source,
    rows: parts.reduce((n, p) => n + p.rows, 0),
    outcomes,
    topErrors: parts
      .flatMap((p) => p.topErrors)
      .sort((a, b) => b.count - a.count)
      .slice(0, 10),
    warnings: [...warnings, ...parts.flatMap((p) => p.warnings)],
    notes: parts.flatMap((p) => p.notes),
    assets,
    assetWarnings: parts.reduce((n, p) => n + p.assetWarnings, 0),
    categoriesCreated: {
      count: parts.reduce((n, p) => n + p.categoriesCreated.count, 0),
      paths: parts.flatMap((p) => p.categoriesCreated.paths).slice(0, 50),
    },
    failedImages: parts.flatMap((p) => p.failedImages),
    // The connection counts requests over the whole command: the last sheet's count holds them all.
    requests: last?.requests ?? { total: 0, byMethod: {}, retries: 0, rateLimited: 0 },
    stopped: stopped !== undefined,
    ...(stopped?.stopReason && { stopReason: stopped.stopReason }),
    ...(fullSyncs.length > 0 && {
      fullSync: {
        ...addedUp(fullSyncs),
        ...(fullSyncs.some((f) => f.variants) && {
          variants: addedUp(fullSyncs.flatMap((f) => (f.variants ? [f.variants] : []))),
        }),
        ...(fullSyncs.find((f) => f.guard) && { guard: fullSyncs.find((f) => f.guard)!.guard! }),
      },
    }),
    // A sheet left with rows to check (`stopped` without a stop) leaves the workbook so, whichever sheet.
    state: stopped?.state ?? parts.find((p) => p.state === 'stopped')?.state ?? last?.state ?? 'finished',
    plan: last?.plan ?? false,
    durationMs: parts.reduce((n, p) => n + p.durationMs, 0),
    exitCode: parts.reduce<number>((worst, p) => Math.max(worst, p.exitCode), EXIT_CODES.ok),
  };
}

function addedUp(counts: FullSyncCounts[]): FullSyncCounts {
  return {
    total: counts.reduce((n, f) => n + f.total, 0),
    missing: counts.reduce((n, f) => n + f.missing, 0),
    deleted: counts.reduce((n, f) => n + f.deleted, 0),
    failed: counts.reduce((n, f) => n + f.failed, 0),
  };
}
