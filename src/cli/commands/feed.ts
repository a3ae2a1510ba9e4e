// The flags of the commands that read a feed (validate, import; preview and profile take the reader
// flags), the way from them to library options, and the findings both print.
import { basename } from 'node:path';
import type { Argv } from 'yargs';
import { numberFlag } from '../../config/flags.js';
import { CatalogIoError } from '../../errors.js';
import { loadProfile } from '../../mappers/profile.js';
import type { Profile } from '../../mappers/profile-types.js';
import { parseSize, type ReaderOptions, workbookSheets } from '../../readers/index.js';
import type { Output } from '../output.js';

/** The reader flags shared by commands that read a source. */
export function withReaderOptions<T>(y: Argv<T>) {
  return y
    .option('format', { type: 'string', describe: 'csv | xlsx | json | ndjson (default: detected)' })
    .option('encoding', { type: 'string', describe: 'Text encoding, e.g. windows-1252 (default: detected)' })
    .option('delimiter', { type: 'string', describe: 'CSV delimiter, e.g. ";" or "\\t" (default: detected)' })
    .option(
      'header-row',
      numberFlag(
        'header-row',
        { min: 1, max: 1_048_576, whole: true, unit: '1-based line or row' },
        '1-based line (CSV) or row (XLSX) of the header',
      ),
    )
    .option('sheet', {
      type: 'string',
      array: true,
      describe: 'XLSX sheet name or 1-based position in tab order (repeatable)',
    })
    .option('json-path', { type: 'string', describe: 'JSON: dotted path to the array of records' })
    .option('max-cell', {
      type: 'string',
      describe: 'Largest cell accepted, e.g. 4MB; larger ones are row errors (default 1MB)',
    })
    .option('max-inflate', {
      type: 'string',
      describe: 'Most a workbook or .gz source may inflate to, e.g. 8GB (default 4GB)',
    })
    .option(
      'max-json-depth',
      numberFlag(
        'max-json-depth',
        { min: 1, max: 100_000, whole: true, unit: 'levels' },
        'JSON/NDJSON: deepest nesting of a record; deeper ones are row errors (default 64)',
      ),
    )
    .option(
      'source-timeout',
      numberFlag(
        'source-timeout',
        { min: 1, max: 86_400_000, whole: true, unit: 'ms', duration: true },
        'URL sources: time to wait for the answer, and for each 1 KB of it (30s, or ms; default 30000)',
      ),
    )
    .option('source-header', {
      type: 'string',
      array: true,
      describe:
        'URL sources: a request header "Name: value" (repeatable), e.g. for credentials; CATALOG_SOURCE_AUTHORIZATION sets Authorization',
    })
    .option('known-hosts', {
      type: 'string',
      describe:
        'sftp sources: the known_hosts file the server key must be in (env CATALOG_IO_SFTP_KNOWN_HOSTS; default ~/.ssh/known_hosts)',
    });
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
    ...(s('max-cell') && { maxCellBytes: parseSize(s('max-cell')!, '--max-cell') }),
    ...(s('max-inflate') && { maxInflateBytes: parseSize(s('max-inflate')!, '--max-inflate') }),
    ...(args['max-json-depth'] !== undefined && { maxJsonDepth: args['max-json-depth'] as number }),
    ...(args['source-timeout'] !== undefined && { timeoutMs: args['source-timeout'] as number }),
    ...sourceHeaders(args['source-header'], process.env.CATALOG_SOURCE_AUTHORIZATION),
  };
}

/**
 * `--source-header "Name: value"` flags, and CATALOG_SOURCE_AUTHORIZATION as the Authorization
 * header (an environment variable stays out of the process list). Values are never printed.
 */
function sourceHeaders(
  flags: unknown,
  authorization: string | undefined,
): Pick<ReaderOptions, 'httpHeaders'> {
  const headers: Record<string, string> = {};
  if (authorization) headers.authorization = authorization;
  for (const flag of Array.isArray(flags) ? (flags as unknown[]) : []) {
    const text = String(flag);
    const colon = text.indexOf(':');
    if (colon < 1) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        // The text is not quoted back: it may be a secret given without its name.
        'Invalid --source-header: expected "Name: value", e.g. "Authorization: Bearer <token>"',
      );
    }
    headers[text.slice(0, colon).trim().toLowerCase()] = text.slice(colon + 1).trim();
  }
  return Object.keys(headers).length > 0 ? { httpHeaders: headers } : {};
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

/**
 * How a workbook source is read, from its sheet names (read once): `whole`, its sheets, when it has
 * several, none is named and no `--entity` is given (each sheet on its entity); else, with neither
 * `--entity` nor `--profile`, the `entity` its one sheet (or the one `--sheet` names) is named after as
 * the export names it (`variants`, `custom Store Locations`), so an exported one-entity workbook
 * re-imports as what it is, not as products. Another source: the entity its file name says
 * (exportedFileEntity), with neither flag.
 */
export async function workbookReading(
  source: string,
  readerOptions: ReaderOptions,
  args: { profile?: string; entity?: string },
): Promise<{ whole?: string[]; entity?: string }> {
  if (args.entity !== undefined) return {};
  const sheets = await workbookSheets(source, readerOptions);
  if (!sheets) return args.profile === undefined ? exportedFileEntity(source) : {};
  if (readerOptions.sheet === undefined && sheets.length > 1) return { whole: sheets };
  if (args.profile !== undefined) return {};
  const named = Array.isArray(readerOptions.sheet) ? readerOptions.sheet : [readerOptions.sheet];
  const wanted =
    named.length === 1 && named[0] !== undefined ? named[0] : sheets.length === 1 ? 1 : undefined;
  const name = typeof wanted === 'number' ? sheets[wanted - 1] : wanted;
  if (name === undefined) return {};
  const key = name.trim().toLowerCase();
  if (key === 'products' || key === 'variants' || key === 'categories') return { entity: key };
  const custom = /^custom\s+(.+)$/i.exec(name.trim());
  return custom ? { entity: `custom:${custom[1]}` } : {};
}

/**
 * The entity an export's file of one entity is named after (`variants.csv`, `custom-Suppliers.jsonl`,
 * as `export --out folder/` names them), for a local file read with neither `--entity` nor `--profile`:
 * an exported variants file re-imports as variants, not as products.
 */
function exportedFileEntity(source: string): { entity?: string } {
  if (source === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return {};
  const name = basename(source).replace(/\.(csv|tsv|txt|json|jsonl|ndjson)(\.gz)?$/i, '');
  const key = name.trim().toLowerCase();
  if (key === 'variants' || key === 'categories') return { entity: key };
  const custom = /^custom-(.+)$/i.exec(name.trim());
  return custom ? { entity: `custom:${custom[1]}` } : {};
}

/** A file flag given an empty name (`--report ""`, a variable that was not set) is refused, not ignored. */
export function fileName(flag: string) {
  return (value: unknown) => {
    if (typeof value === 'string' && value.trim() === '')
      throw new CatalogIoError('CONFIG_INVALID', `--${flag} needs a file name; it was given an empty one`);
    return value;
  };
}

/** yargs reads a lone `-` (standard input) as an empty string. */
export function sourceArg(source: string): string {
  return source === '' ? '-' : source;
}

/** The flags of `withFeedOptions` as a handler receives them (reader flags go to `readerOptionsFrom`). */
export interface FeedArgs {
  source: string;
  entity?: string;
  profile?: string;
  report?: string;
  rejects?: string;
  raw: boolean;
  strict: boolean;
  json: boolean;
  quiet: boolean;
  [key: string]: unknown;
}

/** The source, mapping and output flags shared by `validate` and `import`. */
export function withFeedOptions<T>(y: Argv<T>, describe: { rejects: string }) {
  return withReaderOptions(
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
        coerce: fileName('profile'),
      })
      .option('report', {
        type: 'string',
        describe: 'Per-row report file: .csv, .jsonl or .xlsx',
        coerce: fileName('report'),
      })
      .option('rejects', { type: 'string', describe: describe.rejects, coerce: fileName('rejects') })
      .option('raw', {
        type: 'boolean',
        default: false,
        describe:
          "CSV: keep a cell's leading quote before = + - @ (by default it is read as the export's formula guard)",
      })
      .option('strict', {
        type: 'boolean',
        default: false,
        describe:
          "Columns that match no field, and the profile's columns the header lacks, make rows invalid",
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print the summary as one JSON object on stdout',
      })
      .option('quiet', { type: 'boolean', default: false, describe: 'No progress' }),
  );
}

/** The notes, warnings and most frequent problems of a validate or import run, for people (stderr). */
export function printFindings(
  out: Output,
  run: {
    notes: readonly string[];
    warnings: readonly string[];
    topErrors: ReadonlyArray<{ message: string; count: number; first?: string }>;
  },
): void {
  for (const note of run.notes) out.error(`note: ${note}`);
  for (const warning of run.warnings) out.error(`warning: ${warning}`);
  if (run.topErrors.length) {
    out.error('most frequent problems:');
    for (const { message, count, first } of run.topErrors)
      out.error(`${String(count).padStart(7)}  ${message}${first ? ` (first such row: ${first})` : ''}`);
  }
}
