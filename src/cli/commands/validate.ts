// `catalog-io validate <source>`: dry-run a feed against the tenant's schemas, one report line per row.
// Thin: flags -> options, then validateFile(); the summary goes to stderr (or JSON on stdout).
import type { Argv, CommandModule } from 'yargs';
import { connectionFlagsFrom, connectionOptions } from '../../config/index.js';
import { CatalogIoError } from '../../errors.js';
import { loadProfile } from '../../mappers/profile.js';
import type { Profile } from '../../mappers/profile-types.js';
import type { ReaderOptions } from '../../readers/index.js';
import { tenantModelFor } from '../../runner/model-source.js';
import { type ValidateFileResult, validateFile } from '../../runner/validate.js';
import { EXIT, type Output } from '../output.js';
import { createProgress } from '../progress.js';
import type { CommandFactory } from './index.js';

interface ValidateArgs {
  source: string;
  entity?: string;
  profile?: string;
  report?: string;
  rejects?: string;
  strict: boolean;
  json: boolean;
  quiet: boolean;
  format?: string;
  encoding?: string;
  delimiter?: string;
  'header-row'?: number;
  sheet?: string[];
  'json-path'?: string;
  [key: string]: unknown;
}

/** The reader flags shared by commands that read a source. */
export function withReaderOptions<T>(y: Argv<T>) {
  return y
    .option('format', { type: 'string', describe: 'csv | xlsx | json | ndjson (default: detected)' })
    .option('encoding', { type: 'string', describe: 'Text encoding, e.g. windows-1252 (default: detected)' })
    .option('delimiter', { type: 'string', describe: 'CSV delimiter, e.g. ";" or "\\t" (default: detected)' })
    .option('header-row', { type: 'number', describe: '1-based line (CSV) or row (XLSX) of the header' })
    .option('sheet', {
      type: 'string',
      array: true,
      describe: 'XLSX sheet name or 1-based index (repeatable)',
    })
    .option('json-path', { type: 'string', describe: 'JSON: dotted path to the array of records' });
}

export function readerOptionsFrom(args: Record<string, unknown>): ReaderOptions {
  const s = (k: string) => (typeof args[k] === 'string' ? (args[k] as string) : undefined);
  const sheets = Array.isArray(args.sheet) ? (args.sheet as string[]) : undefined;
  return {
    ...(s('format') && { format: s('format') }),
    ...(s('encoding') && { encoding: s('encoding') }),
    ...(s('delimiter') && { delimiter: s('delimiter') }),
    ...(typeof args['header-row'] === 'number' && { headerRow: args['header-row'] }),
    ...(sheets && { sheet: sheets.map((sheet) => (/^\d+$/.test(sheet) ? Number(sheet) : sheet)) }),
    ...(s('json-path') && { jsonPath: s('json-path') }),
  };
}

/** The profile file, with `--entity` taking precedence; no profile: field names map to themselves. */
export async function profileFrom(args: { profile?: string; entity?: string }): Promise<Profile> {
  const profile: Profile = args.profile
    ? await loadProfile(args.profile)
    : { entity: args.entity ?? 'products' };
  if (args.entity && args.entity !== profile.entity) {
    if (!/^(products|variants|categories|custom:.+)$/.test(args.entity)) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--entity ${args.entity}: use products, variants, categories or custom:<denominator>`,
      );
    }
    profile.entity = args.entity;
  }
  return profile;
}

export const validateCommand: CommandFactory = (out, setExitCode) =>
  ({
    command: 'validate <source>',
    describe: 'Check a feed against the tenant schemas without writing anything; report per row',
    builder: (y) =>
      withReaderOptions(
        y
          .positional('source', {
            type: 'string',
            describe: 'File path, http(s) URL, or - for stdin',
            demandOption: true,
          })
          .option('entity', {
            type: 'string',
            describe:
              "products | variants | categories | custom:<denominator> (default: the profile's, else products)",
          })
          .option('profile', {
            type: 'string',
            describe: 'Mapping profile (JSON); none: headers are field names',
          })
          .option('report', { type: 'string', describe: 'Per-row report file: .csv, .jsonl or .xlsx' })
          .option('rejects', {
            type: 'string',
            describe: "Invalid rows in the input's format, with an _error column",
          })
          .option('raw', {
            type: 'boolean',
            default: false,
            describe:
              "CSV: keep a cell's leading quote before = + - @ (by default it is read as the export's formula guard)",
          })
          .option('strict', {
            type: 'boolean',
            default: false,
            describe: 'Columns that match no field make rows invalid',
          })
          .option('json', {
            type: 'boolean',
            default: false,
            describe: 'Print the summary as one JSON object on stdout',
          })
          .option('quiet', { type: 'boolean', default: false, describe: 'No progress lines' })
          .options(connectionOptions),
      ),
    handler: async (args: ValidateArgs) => {
      const profile = await profileFrom(args);
      const model = await tenantModelFor({
        flags: connectionFlagsFrom(args),
        announce: (line) => out.error(line),
      });
      const progress = createProgress(out, 'validate', { quiet: args.quiet || args.json });
      let result: ValidateFileResult;
      try {
        result = await validateFile({
          // yargs reads a lone `-` (stdin) as an empty string.
          source: args.source === '' ? '-' : args.source,
          readerOptions: readerOptionsFrom(args),
          model,
          profile,
          strict: args.strict,
          raw: args.raw === true,
          ...(args.report && { reportFile: args.report }),
          ...(args.rejects && { rejectsFile: args.rejects }),
          onRow: (s, read) => {
            // A bar redrawn per row would cost more than the row: every 1024 rows is often enough.
            if ((s.rows & 1023) !== 0) return;
            progress.update({
              done: s.rows,
              bytesRead: read.bytesRead(),
              ...(read.totalBytes !== undefined && { totalBytes: read.totalBytes }),
              counts: `${s.outcomes.valid} valid · ${s.outcomes.invalid} invalid`,
            });
          },
        });
      } finally {
        progress.stop();
      }
      printSummary(out, result, args);
      setExitCode(result.outcomes.invalid > 0 ? EXIT.ROWS_FAILED : EXIT.OK);
    },
  }) as CommandModule<object, ValidateArgs>;

function printSummary(out: Output, result: ValidateFileResult, args: ValidateArgs): void {
  if (args.json) {
    out.print(
      JSON.stringify({
        source: result.source,
        rows: result.rows,
        outcomes: result.outcomes,
        topErrors: result.topErrors,
        warnings: result.warnings,
        ...(args.report && { report: args.report }),
        ...(args.rejects && { rejects: args.rejects }),
      }),
    );
    return;
  }
  const { valid, invalid, skipped } = result.outcomes;
  out.error(`${result.source}: ${result.rows} rows: ${valid} valid, ${invalid} invalid, ${skipped} skipped`);
  for (const note of result.notes) out.error(`note: ${note}`);
  for (const warning of result.warnings) out.error(`warning: ${warning}`);
  if (result.topErrors.length) {
    out.error('most frequent problems:');
    for (const { message, count } of result.topErrors) out.error(`${String(count).padStart(7)}  ${message}`);
  }
  if (args.report) out.error(`report: ${args.report}`);
  if (args.rejects && invalid > 0) out.error(`rejects: ${args.rejects} (fix them and run again)`);
}
