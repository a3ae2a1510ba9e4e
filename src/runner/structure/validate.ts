// `validate` of a structure table (an export's `attribute-sets` or `layouts`, a sheet or a file): each
// row read as the import reads it (structureOfRow) and its layouts' fields checked against the tenant's
// `$metadata`, as the import checks them before it writes. What only the tenant's own sets and layouts
// tell (created, updated or unchanged) is the import's `--plan`'s to say.
import { isCatalogIoError } from '../../errors.js';
import { openSource } from '../../readers/index.js';
import { openRejectsFor, type RejectsWriter } from '../../writers/rejects.js';
import { openReport, type ReportWriter } from '../../writers/report.js';
import type { TopProblem } from '../check.js';
import type { ValidateFileOptions, ValidateFileResult } from '../validate.js';
import { layoutFieldProblems } from './apply.js';
import { structureOfRow } from './sheets.js';
import type { StructureTable } from './types.js';

export async function validateStructureTable(
  options: ValidateFileOptions,
  table: StructureTable,
): Promise<ValidateFileResult> {
  const opened = await openSource(options.source, options.readerOptions);
  let report: ReportWriter | undefined;
  let rejects: RejectsWriter | undefined;
  const outcomes = { valid: 0, invalid: 0, skipped: 0 };
  const problems = new Map<string, TopProblem>();
  let rows = 0;
  try {
    if (options.reportFile) report = await openReport(options.reportFile);
    if (options.rejectsFile)
      rejects = await openRejectsFor(options.rejectsFile, opened, { guard: options.raw !== true });
    for await (const row of opened.rows) {
      options.signal?.throwIfAborted();
      rows++;
      let ref = '';
      let message: string | undefined;
      try {
        const doc = structureOfRow(table, row, options.model);
        ref = doc.attributeSets[0]?.name ?? doc.layouts[0]?.target ?? '';
        message = layoutFieldProblems(doc, options.model).join('; ') || undefined;
      } catch (err) {
        if (!isCatalogIoError(err)) throw err;
        message = err.message;
      }
      const location = row.location.text;
      if (message === undefined) {
        outcomes.valid++;
        await report?.writeValid(location, table, ref);
      } else {
        outcomes.invalid++;
        const known = problems.get(message);
        if (known) known.count++;
        else problems.set(message, { message, count: 1, first: location });
        await report?.write({
          location,
          entity: table,
          ref,
          outcome: 'invalid',
          field: '',
          column: '',
          value: '',
          message,
          warnings: '',
        });
        await rejects?.write(row.cells, message, row.location);
      }
    }
  } catch (err) {
    await Promise.allSettled([report?.close(), rejects?.close(), opened.close()]);
    throw err;
  }
  await Promise.all([
    report?.close([
      ['source', opened.source],
      ['table', table],
      ['rows', rows],
      ...Object.entries(outcomes).map(([outcome, n]) => [outcome, n] as const),
    ]),
    rejects?.close(),
    opened.close(),
  ]);
  return {
    source: opened.source,
    rows,
    outcomes,
    warned: 0,
    topErrors: [...problems.values()].sort((a, b) => b.count - a.count).slice(0, 10),
    warnings: [],
    notes: opened.notes,
  };
}
