// The structure tables of a workbook imported whole (`attribute-sets`, `layouts`, as the export writes
// them), applied before the sheets of records: a product names its attribute set by name, and the set
// must be there first. One report line per row, in the workbook report's shape.
import { writeFile } from 'node:fs/promises';
import { isCatalogIoError } from '../../errors.js';
import { openSource } from '../../readers/index.js';
import type { ImportReportLine } from '../../writers/import-report.js';
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
import { ATTRIBUTE_SETS_TABLE, LAYOUTS_TABLE, type Structure, type StructureResult } from './types.js';

/** The sheet's table name when it is one of the structure tables (any case), else undefined. */
export function structureTable(sheet: string): string | undefined {
  const name = sheet.trim().toLowerCase();
  return [ATTRIBUTE_SETS_TABLE, LAYOUTS_TABLE].find((t) => t === name);
}

/**
 * Reads the structure sheets, applies them to the tenant (or plans them), and writes each sheet's report
 * lines to `reportFile(i)` (JSON Lines) when given. Sets a plan would create are recorded in `planned`.
 * One summary per sheet, in the order given.
 */
export async function importStructureSheets(
  options: RunningImport,
  sheets: string[],
  reportFile: ((index: number) => string) | undefined,
  planned: PlannedRecords | undefined,
): Promise<ImportSummary[]> {
  const started = Date.now();
  const structure: Structure = { attributeSets: [], layouts: [] };
  const invalid: StructureResult[] = [];
  /** Location text -> the sheet it is on. */
  const sheetOf = new Map<string, string>();
  const rows = new Map<string, number>();
  for (const sheet of sheets) {
    const opened = await openSource(options.source, { ...options.readerOptions, sheet: [sheet] });
    try {
      for await (const row of opened.rows) {
        rows.set(sheet, (rows.get(sheet) ?? 0) + 1);
        sheetOf.set(row.location.text, sheet);
        const table = structureTable(sheet);
        try {
          if (table === ATTRIBUTE_SETS_TABLE) structure.attributeSets.push(attributeSetOfRow(row));
          else structure.layouts.push(layoutOfRow(row, options.model));
        } catch (err) {
          if (!isCatalogIoError(err)) throw err;
          invalid.push({
            location: row.location.text,
            entity: table ?? sheet,
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
  const summaries: ImportSummary[] = [];
  for (const [i, sheet] of sheets.entries()) {
    const own = results.filter((r) => sheetOf.get(r.location) === sheet);
    if (reportFile)
      await writeFile(reportFile(i), own.map((r) => `${JSON.stringify(reportLine(r))}\n`).join(''));
    summaries.push(structureSummary(options, own, rows.get(sheet) ?? 0, started));
  }
  return summaries;
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
    },
    stopped: false,
    state: 'finished',
    plan: options.plan === true,
    durationMs: Date.now() - started,
    exitCode: bad > 0 ? EXIT_CODES.rowsFailed : EXIT_CODES.ok,
  };
}
