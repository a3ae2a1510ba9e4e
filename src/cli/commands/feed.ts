// The flags of the commands that read a feed (validate, import; preview and profile take the reader
// flags), the way from them to library options, and the findings both print.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Argv } from 'yargs';
import { numberFlag } from '../../config/flags.js';
import { CatalogIoError } from '../../errors.js';
import { loadProfile } from '../../mappers/profile.js';
import type { Profile } from '../../mappers/profile-types.js';
import {
  checkSource,
  openSource,
  parseSize,
  type ReaderOptions,
  workbookSheets,
} from '../../readers/index.js';
import { entityOfHeader, structureNote, structureTable } from '../../runner/placement.js';
import type { StructureTable } from '../../runner/structure/types.js';
import type { ModelScope } from '../../schema/load.js';
import type { TenantModel } from '../../schema/model.js';
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

/** How a source is read when no flag names its entity (workbookReading). */
export interface FeedReading {
  /** A workbook of several sheets, each placed on its entity: its sheets. */
  whole?: string[];
  /** The entity its name says (a sheet or file named as the export names it). */
  entity?: string;
  /** One of the export's structure tables, by its name or its header: applied, not read as records. */
  structure?: StructureTable;
  /** Why, for people, when the header said it (a renamed file). */
  note?: string;
  /**
   * A local file (or one sheet) its name says nothing of: its header, for the entity it is of
   * (entityOfHeader, once the tenant's model is read). None for stdin and URLs: read once only.
   */
  header?: string[];
}

/**
 * How a source is read, from its sheet names (read once) and, when they say nothing, its header:
 * `whole`, its sheets, when a workbook has several, none is named and no `--entity` is given (each
 * sheet on its entity); else, with neither `--entity` nor `--profile`, the `entity` its one sheet (or
 * the one `--sheet` names) or its file is named after as the export names them (`variants`,
 * `custom Store Locations`, `custom-Suppliers.csv`), the `structure` table it is (`attribute-sets`,
 * `layouts`, by name or header), or its `header` to place it by. So an export's file re-imports as
 * what it is, not as products. `name` is the file name the export's names are looked for in: the
 * source's own, or the one a file was sent under (the console keeps an upload as `feed.csv`).
 */
export async function workbookReading(
  source: string,
  readerOptions: ReaderOptions,
  args: { profile?: string; entity?: string },
  name: string = source,
): Promise<FeedReading> {
  if (args.entity !== undefined) return {};
  const sheets = await workbookSheets(source, readerOptions);
  if (sheets && readerOptions.sheet === undefined && sheets.length > 1) return { whole: sheets };
  if (args.profile !== undefined) return {};
  const named = sheets ? sheetName(sheets, readerOptions) : exportedFileName(name);
  if (named === undefined) return {};
  const key = named.trim().toLowerCase();
  if (key === 'products' || key === 'variants' || key === 'categories') return { entity: key };
  const custom = (sheets ? /^custom\s+(.+)$/i : /^custom-(.+)$/i).exec(named.trim());
  if (custom) return { entity: `custom:${custom[1]}` };
  const table = structureTable(named);
  if (table) return { structure: table };
  // Named otherwise: a local file's header says what it holds (read twice: stdin, URLs and named pipes,
  // such as `<(curl …)`, are not: they can be read only once).
  if (!(await readsTwice(source))) return {};
  const header = await headerOf(source, readerOptions);
  if (!header) return {};
  const structure = structureTable(named, header);
  return structure ? { structure, note: structureNote(structure) } : { header };
}

/** The one sheet read (the one `--sheet` names, or the workbook's only one). */
function sheetName(sheets: string[], readerOptions: ReaderOptions): string | undefined {
  const named = Array.isArray(readerOptions.sheet) ? readerOptions.sheet : [readerOptions.sheet];
  const wanted =
    named.length === 1 && named[0] !== undefined ? named[0] : sheets.length === 1 ? 1 : undefined;
  return typeof wanted === 'number' ? sheets[wanted - 1] : wanted;
}

/** A file's name without its extension (`variants.csv` -> `variants`), as the export names its files. */
function exportedFileName(source: string): string {
  return isStreamOrUrl(source)
    ? ''
    : basename(source).replace(/\.(csv|tsv|txt|json|jsonl|ndjson)(\.gz)?$/i, '');
}

const isStreamOrUrl = (source: string) => source === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(source);

/** A local regular file: it can be read more than once (a named pipe gives its bytes once). */
async function readsTwice(source: string): Promise<boolean> {
  if (isStreamOrUrl(source)) return false;
  return (await stat(source).catch(() => undefined))?.isFile() === true;
}

/** The header of a local file (or of the sheet read), without its rows; none when it cannot be read. */
async function headerOf(source: string, readerOptions: ReaderOptions): Promise<string[] | undefined> {
  try {
    const opened = await openSource(source, { ...readerOptions, allowNoData: true });
    try {
      return opened.headers;
    } finally {
      await opened.close();
    }
  } catch {
    // Read as before: the run opens it again and says what is wrong with it.
    return undefined;
  }
}

/**
 * A missing or unreadable source is said before anything is started or asked of the tenant
 * (checkSource). A folder (an export's to a folder, say) is told how its files go in: one at a time,
 * the structure tables first, as a workbook imported whole applies them.
 */
export async function checkFeedSource(source: string): Promise<void> {
  if (!isStreamOrUrl(source) && (await stat(source).catch(() => undefined))?.isDirectory()) {
    throw new CatalogIoError(
      'SOURCE_UNREADABLE',
      `Cannot read source: ${source} is a folder; give one file. An export's folder goes in a file at a time: attribute-sets, layouts, categories, products, variants, then each custom entity's file (docs/import.md)`,
    );
  }
  await checkSource(source);
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

/**
 * What a source read with neither `--entity` nor `--profile` holds (workbookReading): the
 * entity its name says, else its header's (entityOfHeader, as the import places it), set on the
 * profile; the note saying why when its header said it; and the model's scope the check needs. The
 * import, validate and the console's "Check a file" place a file with it, so all take it as the same thing.
 */
export async function placeReading(
  reading: FeedReading,
  profile: Profile,
  modelFor: (scope: ModelScope) => Promise<TenantModel>,
): Promise<{ note?: string; scope: ModelScope }> {
  if (reading.entity) profile.entity = reading.entity;
  const byHeader = reading.header && (await entityOfHeader(reading.header, modelFor));
  if (byHeader?.entity) profile.entity = byHeader.entity;
  const note = reading.note ?? (byHeader ? byHeader.note : undefined);
  return { ...(note && { note }), scope: modelScope(reading, profile.entity) };
}

/**
 * The `$metadata` a reading needs: only its entity's (a feed of products reads no custom entity's), or
 * every entity's for a whole workbook (any entity) or a layouts table (any entity's fields).
 */
export function modelScope(reading: Pick<FeedReading, 'whole' | 'structure'>, entity: string): ModelScope {
  return reading.whole || reading.structure ? 'all' : [entity];
}
