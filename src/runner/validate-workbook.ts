// A workbook of several sheets validated whole, as `catalog-io import` imports it (runner/import/
// workbook.ts): each sheet placed on an entity by the same rules (placement.ts: the profile's `sheets`,
// the sheet's name, its header), validated in the import's order (the attribute-sets and layouts tables,
// categories, products, variants, custom entities), into one report, one rejects file per sheet and one summary. The profile reads the sheets of its own
// entity; the others are read as an import without a profile reads them. A reference check, when there
// is one, follows the whole workbook: a variant finds the product its products sheet defines.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CatalogIoError } from '../errors.js';
import { rejectsFileOf } from '../writers/rejects.js';
import { openReport, type ReportLine } from '../writers/report.js';
import type { TopProblem } from './check.js';
import { headerOnlyNote, jsonLines, type SheetHead, sheetHeaders } from './import/workbook.js';
import { placeSheets } from './placement.js';
import type { StructureTable } from './structure/types.js';
import { validateStructureTable } from './structure/validate.js';
import { type ValidateFileOptions, type ValidateFileResult, validateFile } from './validate.js';
import type { SourceProgress, ValidateSummary } from './validate-rows.js';

export interface ValidatedSheet {
  sheet: string;
  entity: string;
  rows: number;
}

export interface ValidateWorkbookResult extends ValidateFileResult {
  sheets: ValidatedSheet[];
}

/** Problem kinds the summary lists (as one file's). */
const TOP = 10;

export async function validateWorkbook(
  options: ValidateFileOptions,
  sheetNames: readonly string[],
): Promise<ValidateWorkbookResult> {
  const headers: SheetHead[] = [];
  for (const name of sheetNames)
    headers.push(await sheetHeaders(options.source, options.readerOptions, name));
  const { placed, structure, unplaced } = placeSheets(headers, options.model, options.profile.sheets);
  // A header and no rows is nothing to validate for the sheet's entity, as the import says.
  const headerOnly = new Set(headers.filter((h) => h.headerOnly).map((h) => h.name));
  const notes: string[] = [];
  if (placed.length === 0 && structure.length === 0) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `No sheet of ${options.source} names an entity (${unplaced.map((s) => `"${s}"`).join(', ')}): name the sheets after the entities (products, variants, categories), map them in the profile's "sheets", or validate one with --sheet and --entity`,
    );
  }
  const warnings: string[] = [];
  if (unplaced.length > 0)
    warnings.push(
      `sheets not validated, no entity found for them: ${unplaced.map((s) => `"${s}"`).join(', ')} (name one with --sheet and --entity, or map it in the profile's "sheets")`,
    );
  // Each sheet's report lines go to a file of their own, then into the one report in the sheets' order.
  const lines = options.reportFile ? await mkdtemp(path.join(tmpdir(), 'catalog-io-validate-')) : undefined;
  const parts: ValidateFileResult[] = [];
  const sheets: ValidatedSheet[] = [];
  // Progress counts the workbook's rows, not the sheet's: one view, filled again on each call.
  const before = { rows: 0, valid: 0, invalid: 0, skipped: 0, warned: 0 };
  const view: ValidateSummary = {
    rows: 0,
    outcomes: { valid: 0, invalid: 0, skipped: 0 },
    warned: 0,
    topErrors: [],
    warnings: [],
  };
  const onRow = options.onRow;
  try {
    // The structure tables first, as the import applies them first; then the entities in its order.
    const order: Array<{ sheet: string; entity: string; table?: StructureTable }> = [
      ...structure.map(({ sheet, table }) => ({ sheet, entity: table, table })),
      ...placed,
    ];
    for (const { sheet, entity, table } of order) {
      if (headerOnly.has(sheet)) {
        notes.push(headerOnlyNote({ sheet, entity }, 'validate'));
        sheets.push({ sheet, entity, rows: 0 });
        continue;
      }
      const { reportFile: _report, rejectsFile, onRow: _onRow, ...rest } = options;
      const sheetOptions: ValidateFileOptions = {
        ...rest,
        ...(onRow && {
          onRow: (s: Readonly<ValidateSummary>, read: SourceProgress) => {
            view.rows = before.rows + s.rows;
            view.outcomes.valid = before.valid + s.outcomes.valid;
            view.outcomes.invalid = before.invalid + s.outcomes.invalid;
            view.outcomes.skipped = before.skipped + s.outcomes.skipped;
            view.warned = before.warned + s.warned;
            onRow(view, read);
          },
        }),
        readerOptions: { ...options.readerOptions, sheet: [sheet] },
        profile: entity === options.profile.entity ? options.profile : { entity },
        ...(lines && { reportFile: path.join(lines, `${parts.length}.jsonl`) }),
        ...(rejectsFile && { rejectsFile: rejectsFileOf(rejectsFile, sheet) }),
      };
      const part = table
        ? await validateStructureTable(sheetOptions, table)
        : await validateFile(sheetOptions);
      parts.push(part);
      sheets.push({ sheet, entity, rows: part.rows });
      before.rows += part.rows;
      before.valid += part.outcomes.valid;
      before.invalid += part.outcomes.invalid;
      before.skipped += part.outcomes.skipped;
      before.warned += part.warned;
    }
    const folded = fold(options.source, parts, warnings);
    const result: ValidateWorkbookResult = { ...folded, notes: [...notes, ...folded.notes], sheets };
    if (options.reportFile && lines) {
      const report = await openReport(options.reportFile);
      try {
        for (let i = 0; i < parts.length; i++)
          for await (const line of jsonLines<ReportLine>(path.join(lines, `${i}.jsonl`))) {
            const written = report.write(line);
            if (written) await written;
          }
      } finally {
        await report.close([
          ['source', result.source],
          ['sheets', sheets.map((s) => `${s.sheet} (${s.entity})`).join(', ')],
          ['rows', result.rows],
          ...Object.entries(result.outcomes).map(([outcome, n]) => [outcome, n] as const),
          ['with warnings', result.warned],
        ]);
      }
    }
    return result;
  } finally {
    if (lines) await rm(lines, { recursive: true, force: true });
  }
}

/** The sheets' results as one file's: counts added up, problem kinds merged, notes and warnings once. */
function fold(source: string, parts: readonly ValidateFileResult[], warnings: string[]): ValidateFileResult {
  const outcomes = { valid: 0, invalid: 0, skipped: 0 };
  const kinds = new Map<string, TopProblem>();
  let rows = 0;
  let warned = 0;
  for (const part of parts) {
    rows += part.rows;
    warned += part.warned;
    outcomes.valid += part.outcomes.valid;
    outcomes.invalid += part.outcomes.invalid;
    outcomes.skipped += part.outcomes.skipped;
    for (const top of part.topErrors) {
      const known = kinds.get(top.message);
      if (known) known.count += top.count;
      else kinds.set(top.message, { ...top });
    }
  }
  return {
    source: parts[0]?.source ?? source,
    rows,
    outcomes,
    warned,
    // The first sheet's first row of a kind stays the first: sheets ran in order.
    topErrors: [...kinds.values()].sort((a, b) => b.count - a.count).slice(0, TOP),
    warnings: [...new Set([...warnings, ...parts.flatMap((p) => p.warnings)])],
    notes: [...new Set(parts.flatMap((p) => p.notes))],
  };
}
