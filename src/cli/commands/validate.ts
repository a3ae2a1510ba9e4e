// `catalog-io validate <source>`: dry-run a feed against the tenant's schemas, one report line per row.
// Thin: flags -> options, then validateFile(); the summary goes to stderr (or JSON on stdout).

import type { CommandModule } from 'yargs';
import type { CatalogClient } from '../../api/catalog.js';
import type { DamClient } from '../../api/dam.js';
// From flags.js, not the config index: an offline run (--schemas) loads no HTTP client.
import { connectionFlagsFrom, connectionOptions } from '../../config/flags.js';
import type { Connection, ConnectionFlags } from '../../config/index.js';
import { setIdsOf } from '../../runner/import/attribute-set-check.js';
import { tenantModelFor } from '../../runner/model-source.js';
import { type DamNameLookup, ReferenceCheck, type TenantRefLookup } from '../../runner/references.js';
import { type ValidateFileOptions, type ValidateFileResult, validateFile } from '../../runner/validate.js';
import type { ValidatedSheet } from '../../runner/validate-workbook.js';
import type { ModelScope } from '../../schema/load.js';
import type { TenantModel } from '../../schema/model.js';
import { redactText } from '../../secrets.js';
import { rejectsFileOf } from '../../writers/rejects.js';
import { connectTelling } from '../outage-notice.js';
import { EXIT, type Output } from '../output.js';
import { createProgress, type Wait } from '../progress.js';
import {
  checkFeedSource,
  type FeedArgs,
  type FeedReading,
  placeReading,
  printFindings,
  profileFrom,
  readerOptionsFrom,
  sourceArg,
  withFeedOptions,
  workbookReading,
} from './feed.js';
import type { CommandFactory } from './index.js';

type ValidateArgs = FeedArgs & { 'check-refs'?: boolean; 'on-asset-error': 'warn' | 'fail' };

export const validateCommand: CommandFactory = (out, setExitCode) =>
  ({
    command: 'validate <source>',
    describe: 'Check a feed against the tenant schemas without writing anything; report per row',
    builder: (y) =>
      withFeedOptions(y, { rejects: "Invalid rows in the input's format, with _error and _source columns" })
        .option('check-refs', {
          type: 'boolean',
          describe:
            "Check each row's references (a variant's product, a category's parent, a product's categories, DAM names) as the import resolves them: against the file and the tenant, 100 per request. On by default; with --schemas off unless asked (then against the file alone)",
        })
        .option('on-asset-error', {
          choices: ['warn', 'fail'] as const,
          default: 'warn' as const,
          describe:
            "As the import's: an image or file the DAM would refuse is a warning on a valid row, or makes the row invalid",
        })
        .options(connectionOptions),
    handler: async (args: ValidateArgs) => {
      // A missing file is said before anything is started or asked of the tenant.
      await checkFeedSource(sourceArg(args.source));
      const profile = await profileFrom(args);
      const flags = connectionFlagsFrom(args);
      // By default references are checked as the import resolves them: against the file and the tenant
      // (100 refs per request). Offline (--schemas) only when asked: then the file alone tells.
      const checkRefs = args['check-refs'] ?? checksRefsByDefault(flags);
      // A workbook of several sheets, with no --sheet nor --entity, is validated whole, as the import
      // imports it: every sheet placed on an entity. A file its name says nothing of, by its header.
      const readerOptions = readerOptionsFrom(args);
      const reading = await workbookReading(sourceArg(args.source), readerOptions, args);
      // Placing a file by its header reads the model, then the check reads it again: one connection.
      let progress: ReturnType<typeof createProgress> | undefined;
      // The services waited for now (reference lookups): the progress line says so while they are.
      let waits: readonly Wait[] = [];
      const connection =
        (checkRefs || reading.header) && !flags.schemas
          ? await connectTelling(out, flags, {
              waiting: (now) => {
                waits = now;
                progress?.waiting(now);
              },
            })
          : undefined;
      // Everything after the connection is inside its `finally`: an open connection (the embedded
      // sandbox's server) would keep the process alive after an error.
      let result: ValidateFileResult;
      try {
        // Not connected (offline, or live with no reference check and nothing to place): read once.
        let once: Promise<TenantModel> | undefined;
        const modelFor = (scope: ModelScope): Promise<TenantModel> => {
          if (connection) return connection.tenant.model(scope);
          once ??= tenantModelFor({ flags, scope, announce: (line) => out.error(line) });
          return once;
        };
        const { note, scope } = await placeReading(reading, profile, modelFor);
        if (note) out.error(`note: ${note}`);
        const model = await modelFor(scope);
        const bar = createProgress(out, 'validate', { quiet: args.quiet || args.json });
        bar.waiting(waits);
        progress = bar;
        let shown = 0;
        const fileOptions: ValidateFileOptions = {
          // A connection made only to place the file checks nothing against the tenant.
          ...(await referenceChecking(model, checkRefs, checkRefs ? connection : undefined)),
          source: sourceArg(args.source),
          readerOptions,
          model,
          profile,
          onAssetError: args['on-asset-error'],
          strict: args.strict,
          raw: args.raw,
          ...(args.report && { reportFile: args.report }),
          ...(args.rejects && { rejectsFile: args.rejects }),
          onRow: (s, read) => {
            // The bar is drawn by a timer; telling it the state every 1024 rows is often enough (a file
            // checked in parts tells it a part at a time).
            if (s.rows - shown < 1024) return;
            shown = s.rows;
            bar.update({
              done: s.rows,
              rowsRead: s.rows,
              bytesRead: read.bytesRead(),
              ...(read.totalBytes !== undefined && { totalBytes: read.totalBytes }),
              counts: `${s.outcomes.valid} valid · ${s.outcomes.invalid} invalid`,
            });
          },
        };
        result = await validateReading(fileOptions, reading);
      } finally {
        progress?.stop();
        await connection?.close();
      }
      printSummary(out, result, args);
      setExitCode(result.outcomes.invalid > 0 ? EXIT.ROWS_FAILED : EXIT.OK);
    },
  }) as CommandModule<object, ValidateArgs>;

/** Checks a source as it was placed (placeReading): a structure table, a workbook whole, or one file. */
export async function validateReading(
  options: ValidateFileOptions,
  reading: FeedReading,
): Promise<ValidateFileResult> {
  if (reading.structure)
    return (await import('../../runner/structure/validate.js')).validateStructureTable(
      options,
      reading.structure,
    );
  if (reading.whole)
    return (await import('../../runner/validate-workbook.js')).validateWorkbook(options, reading.whole);
  return validateFile(options);
}

/** `--check-refs` when not given: on, but off with --schemas (offline: no tenant to ask). */
export function checksRefsByDefault(flags: ConnectionFlags): boolean {
  return !flags.schemas;
}

/**
 * How `validate` checks references (`--check-refs`): against the file, and, connected, the tenant's
 * records and its DAM's names; the DAM's own host for its images. The console's "Check a file" uses it
 * too, so both judge a row the same way.
 */
export async function referenceChecking(
  model: TenantModel,
  checkRefs: boolean,
  connection: Connection | undefined,
): Promise<Pick<ValidateFileOptions, 'references' | 'damHosts'>> {
  const references = checkRefs
    ? new ReferenceCheck(
        model,
        connection && tenantRefLookup(connection.catalog),
        connection?.tenant.damUrl ? damNameLookup(connection.dam) : undefined,
      )
    : undefined;
  if (references && connection) {
    // The tenant's attribute set ids, read once when a row first gives one (`typ_id`).
    const catalog = connection.catalog;
    references.attributeSets = async () => {
      const { readAttributeSets } = await import('../../runner/structure/read.js');
      return setIdsOf(await readAttributeSets(catalog));
    };
    const categories = model.entities.find((e) => e.kind === 'categories');
    if (categories) {
      // The tenant's category tree: a row moving a category below its own descendant is invalid.
      const { CategoryTree, categoryParentField } = await import('../../runner/import/category-tree.js');
      const { isPlannedId } = await import('../../runner/import/planned.js');
      references.categoryTree = new CategoryTree(
        connection.catalog,
        categories,
        categoryParentField(categories),
        isPlannedId,
      );
    }
  }
  const damUrl = connection?.tenant.damUrl;
  return {
    ...(references && { references }),
    // A DAM on loopback (a sandbox) fetches from its own origin.
    ...(damUrl && { damHosts: [new URL(damUrl).host] }),
  };
}

function printSummary(out: Output, result: ValidateFileResult, args: ValidateArgs): void {
  if (args.json) {
    // The summary names URLs (the source, images in messages): said without their secrets.
    out.print(
      redactText(
        JSON.stringify({
          source: result.source,
          rows: result.rows,
          outcomes: result.outcomes,
          warned: result.warned,
          topErrors: result.topErrors,
          warnings: result.warnings,
          ...('sheets' in result && { sheets: result.sheets }),
          ...(args.report && { report: args.report }),
          ...(args.rejects && { rejects: rejectsFiles(result, args.rejects) }),
        }),
      ),
    );
    return;
  }
  const { valid, invalid, skipped } = result.outcomes;
  const warned = result.warned ? ` (${result.warned} with warnings: see the report's warnings column)` : '';
  out.error(
    `${result.source}: ${result.rows} rows: ${valid} valid${warned}, ${invalid} invalid, ${skipped} skipped`,
  );
  if ('sheets' in result)
    out.error(
      `sheets: ${(result.sheets as ValidatedSheet[]).map((s) => `${s.sheet} (${s.entity}, ${s.rows} row${s.rows === 1 ? '' : 's'})`).join(', ')}`,
    );
  printFindings(out, result);
  if (args.report) out.error(`report: ${args.report}`);
  if (args.rejects && invalid > 0) {
    const files = rejectsFiles(result, args.rejects);
    out.error(`rejects: ${Array.isArray(files) ? files.join(', ') : files} (fix them and run again)`);
  }
}

/** The rejects file, or a whole workbook's: one per sheet, named after it (as the import names them). */
function rejectsFiles(result: ValidateFileResult, file: string): string | string[] {
  return 'sheets' in result
    ? (result.sheets as ValidatedSheet[]).map((s) => rejectsFileOf(file, s.sheet))
    : file;
}

/** Which image or file names the DAM has: `$filter=reference in (...)`, 100 names per request. */
function damNameLookup(dam: DamClient): DamNameLookup {
  return async (kind, names) => {
    const found = new Set<string>();
    for await (const record of dam.existing<{ reference: string }>(kind, names)) found.add(record.reference);
    return found;
  };
}

/** Which refs the tenant has: `$filter=<ref> in (...)`, 100 refs per request, only the ref selected. */
function tenantRefLookup(catalog: CatalogClient): TenantRefLookup {
  return async (entity, refs) => {
    // The id too: a NEW row whose record exists is told its id, as the import tells it.
    const found = new Map<string, number | string>();
    for await (const record of catalog.listIn<Record<string, unknown>>(entity.path, entity.refField, refs, {
      query: { $select: `${entity.refField},${entity.idField}` },
      maxValues: 100,
    })) {
      found.set(String(record[entity.refField]), record[entity.idField] as number | string);
    }
    return found;
  };
}
