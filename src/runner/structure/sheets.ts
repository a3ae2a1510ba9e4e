// The structure tables of an export (`attribute-sets`, `layouts`): a workbook's sheets, or files of their
// own, applied before any record (a product names its attribute set by name, and the set must be there
// first). One report line per row, in the import report's shape.
import path from 'node:path';
import { isCatalogIoError } from '../../errors.js';
import { openSource } from '../../readers/index.js';
import type { SourceRow } from '../../readers/types.js';
import { writeRunSummary } from '../../runs/summary.js';
import type { TenantModel } from '../../schema/model.js';
import { type ImportReportLine, writeImportReport } from '../../writers/import-report.js';
import type { PlannedRecords } from '../import/planned.js';
import {
  EXIT_CODES,
  type ImportOptions,
  type ImportSummary,
  ROW_OUTCOMES,
  type RunningImport,
} from '../import/types.js';
import { applyStructure } from './apply.js';
import { attributeSetOfRow, layoutOfRow } from './read.js';
import { ATTRIBUTE_SETS_TABLE, type Structure, type StructureResult, type StructureTable } from './types.js';

/**
 * One row of a structure table as the import and validate read it: its set or layout, or the coded
 * error that makes the row invalid.
 */
export function structureOfRow(table: StructureTable, row: SourceRow, model: TenantModel): Structure {
  return table === ATTRIBUTE_SETS_TABLE
    ? { attributeSets: [attributeSetOfRow(row)], layouts: [] }
    : { attributeSets: [], layouts: [layoutOfRow(row, model)] };
}

/** A structure table to read: its table, and the workbook's sheet it is on (none: a file of its own). */
export interface StructurePart {
  table: StructureTable;
  sheet?: string;
}

/** What a structure part's import did: its summary, and its report lines (a few: held whole). */
export interface StructureRun {
  part: ImportSummary;
  lines: ImportReportLine[];
}

/**
 * Reads the structure tables (a workbook's sheets, or the source itself), applies them to the tenant (or
 * plans them). Sets a plan would create are recorded in `planned`. One run per part, in the order given.
 */
export async function importStructureSheets(
  options: RunningImport,
  parts: readonly StructurePart[],
  planned: PlannedRecords | undefined,
): Promise<StructureRun[]> {
  const started = Date.now();
  const structure: Structure = { attributeSets: [], layouts: [] };
  const invalid: StructureResult[] = [];
  /** Location text -> the index of the part it is in. */
  const partOf = new Map<string, number>();
  const rows = parts.map(() => 0);
  for (const [i, { table, sheet }] of parts.entries()) {
    const opened = await openSource(options.source, {
      ...options.readerOptions,
      ...(sheet !== undefined && { sheet: [sheet] }),
    });
    try {
      for await (const row of opened.rows) {
        rows[i]! += 1;
        partOf.set(row.location.text, i);
        try {
          const doc = structureOfRow(table, row, options.model);
          structure.attributeSets.push(...doc.attributeSets);
          structure.layouts.push(...doc.layouts);
        } catch (err) {
          if (!isCatalogIoError(err)) throw err;
          invalid.push({
            location: row.location.text,
            entity: table,
            ref: '',
            outcome: 'invalid',
            changed: [],
            message: err.message,
          });
        }
      }
    } finally {
      await opened.close();
    }
  }
  const results = [
    ...(await applyStructure(structure, {
      catalog: options.catalog,
      model: options.model,
      plan: options.plan === true,
    })),
    ...invalid,
  ];
  for (const r of results)
    if (r.outcome === 'would-create' && r.entity === ATTRIBUTE_SETS_TABLE) planned?.attributeSets.add(r.ref);
  return parts.map((_, i) => {
    const own = results.filter((r) => partOf.get(r.location) === i);
    return { part: structureSummary(options, own, rows[i]!, started), lines: own.map(reportLine) };
  });
}

/**
 * A structure table that is a file of its own (`attribute-sets.csv` of an export to a folder), imported
 * as its workbook sheet is: applied to the tenant (or planned), one report line per row. No lock, run
 * folder nor journal, as for the sheet: a few documents, applied whole, and the same again is unchanged.
 */
export async function importStructureFile(
  request: ImportOptions,
  table: StructureTable,
): Promise<ImportSummary> {
  const startedAt = new Date().toISOString();
  const model = typeof request.model === 'function' ? await request.model() : request.model;
  const options: RunningImport = { ...request, model };
  const [run] = await importStructureSheets(options, [{ table }], undefined);
  const { part, lines } = run!;
  const summary: ImportSummary = {
    ...part,
    // No run was recorded: no run id (not one made up).
    runId: '',
    warnings:
      options.missing === 'delete'
        ? [`--missing delete: the ${table} table deletes nothing; only records are full-synced`]
        : [],
  };
  if (options.reportFile) {
    await writeImportReport(options.reportFile, lines, [
      ['source', summary.source],
      ['table', table],
      ['rows', summary.rows],
      ...Object.entries(summary.outcomes)
        .filter(([, n]) => n > 0)
        .map(([o, n]) => [o, n] as const),
      ['requests', summary.requests.total],
    ]);
  }
  if (options.summaryFile) {
    const bad = summary.outcomes.failed + summary.outcomes.invalid;
    await writeRunSummary(options.summaryFile, {
      runId: '',
      command: 'import',
      source: summary.source,
      entity: table,
      tenant: options.tenant ?? 'unnamed',
      state: summary.state,
      exitCode: summary.exitCode,
      outcomes: Object.fromEntries(Object.entries(summary.outcomes).filter(([, n]) => n > 0)),
      rows: summary.rows,
      requests: { total: summary.requests.total, byMethod: summary.requests.byMethod },
      startedAt,
      finishedAt: new Date().toISOString(),
      durationMs: summary.durationMs,
      ...(options.reportFile && { reportFile: path.resolve(options.reportFile) }),
      message:
        bad > 0
          ? `Finished with ${bad} of ${summary.rows} rows failed or invalid: see the report.`
          : `Finished: ${summary.rows} rows of ${table}, none failed.`,
    });
  }
  return summary;
}

export function reportLine(r: StructureResult): ImportReportLine {
  return {
    location: r.location,
    entity: r.entity,
    ref: r.ref,
    outcome: r.outcome,
    id: r.id === undefined ? '' : String(r.id),
    status: r.status === undefined ? '' : String(r.status),
    changed: r.changed.join('; '),
    field: '',
    column: '',
    value: '',
    message: r.message ?? '',
    warnings: '',
    assets: '',
  };
}

/** The structure's results as one part of a workbook's summary. */
function structureSummary(
  options: ImportOptions,
  results: StructureResult[],
  rows: number,
  started: number,
): ImportSummary {
  const outcomes = Object.fromEntries(ROW_OUTCOMES.map((o) => [o, 0])) as ImportSummary['outcomes'];
  for (const r of results) outcomes[r.outcome] += 1;
  const problems = new Map<string, number>();
  for (const r of results) if (r.message) problems.set(r.message, (problems.get(r.message) ?? 0) + 1);
  const counters = options.counters?.();
  const bad = outcomes.failed + outcomes.invalid;
  return {
    runId: 'structure',
    source: options.source,
    rows,
    outcomes,
    topErrors: [...problems].map(([message, count]) => ({ message, count })),
    warnings: [],
    notes: [],
    assets: { registered: 0, reused: 0, cached: 0, planned: 0, failed: 0 },
    assetWarnings: 0,
    categoriesCreated: { count: 0, paths: [] },
    failedImages: [],
    requests: {
      total: counters?.requests ?? 0,
      byMethod: counters?.byMethod ?? {},
      retries: counters?.retries ?? 0,
      rateLimited: counters?.rateLimited ?? 0,
      ...(counters?.pace && { pace: counters.pace }),
    },
    stopped: false,
    state: 'finished',
    plan: options.plan === true,
    durationMs: Date.now() - started,
    exitCode: bad > 0 ? EXIT_CODES.rowsFailed : EXIT_CODES.ok,
  };
}
