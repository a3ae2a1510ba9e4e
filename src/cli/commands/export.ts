// `catalog-io export [entities...] --out FILE|DIR`: the whole catalog (or what changed since a moment) to
// XLSX, CSV or NDJSON that re-imports unchanged. Thin: flags -> options, connect, exportCatalog(), then
// the summary on stderr (or one JSON object on stdout).

import type { CommandModule } from 'yargs';
import type { CountersSnapshot } from '../../api/counters.js';
import { sharedStateOptions } from '../../config/flags.js';
import { connectionFlagsFrom, connectionOptions } from '../../config/index.js';
import { CatalogIoError } from '../../errors.js';
import type { ExportProgress, ExportResult } from '../../runner/export/index.js';
import { parseSince } from '../../runner/export/since.js';
import { EXPORT_FORMATS } from '../../runner/export/target.js';
import { ATTRIBUTE_SETS_TABLE, LAYOUTS_TABLE } from '../../runner/structure/types.js';
import type { ModelScope } from '../../schema/load.js';
import { connectTelling, paceSummaryWords } from '../outage-notice.js';
import { EXIT, type Output } from '../output.js';
import { createProgress, type Progress, type Wait } from '../progress.js';
import type { CommandFactory } from './index.js';

interface ExportArgs {
  entities?: string[];
  out: string;
  format?: string;
  languages?: string;
  filter?: string;
  select?: string;
  since?: string;
  bom: boolean;
  raw: boolean;
  'asset-urls': boolean;
  json: boolean;
  quiet: boolean;
  [key: string]: unknown;
}

export const exportCommand: CommandFactory = (out, setExitCode) =>
  ({
    command: 'export [entities..]',
    describe:
      'Export the catalog to XLSX, CSV or NDJSON that re-imports unchanged (entities: products variants categories custom:<denominator> attribute-sets layouts; none: all)',
    builder: (y) =>
      y
        .positional('entities', {
          type: 'string',
          array: true,
          describe: 'products | variants | categories | custom:<denominator> | attribute-sets | layouts',
        })
        .option('out', {
          type: 'string',
          demandOption: true,
          describe:
            'Output file (catalog.xlsx, products.csv), folder (one CSV/NDJSON file per entity), or - for standard output (CSV or NDJSON, one entity)',
        })
        .option('format', {
          type: 'string',
          choices: [...EXPORT_FORMATS],
          describe: 'xlsx | csv | ndjson (default: from the --out extension, else xlsx)',
        })
        .option('languages', {
          type: 'string',
          describe: 'all, or a list such as en,fr (the base language is always exported)',
        })
        .option('filter', { type: 'string', describe: 'OData $filter applied to every read' })
        .option('select', {
          type: 'string',
          describe: 'Fields to export, e.g. prod_title,prod_price (ids and refs always are)',
        })
        .option('since', {
          type: 'string',
          describe: 'Only items changed after this ISO date-time (with Z), or "last": since the last export',
        })
        .option('bom', {
          type: 'boolean',
          default: false,
          describe: 'CSV: start with a UTF-8 byte order mark (Excel)',
        })
        .option('raw', {
          type: 'boolean',
          default: false,
          describe: 'CSV: keep cells starting with = + - @ as they are (no spreadsheet-injection guard)',
        })
        .option('asset-urls', {
          type: 'boolean',
          default: false,
          describe:
            "Image and file cells as the DAM's URL instead of the name, for a workbook to import into another tenant",
        })
        .option('json', {
          type: 'boolean',
          default: false,
          describe: 'Print the summary as one JSON object on stdout',
        })
        .option('quiet', { type: 'boolean', default: false, describe: 'No progress' })
        .options(connectionOptions)
        .options(sharedStateOptions),
    handler: async (args: ExportArgs) => {
      const since = args.since !== undefined ? parseSince(args.since) : undefined;
      const languages = listFlag('languages', args.languages);
      const select = listFlag('select', args.select);
      if (args.out === '-' && args.json) {
        throw new CatalogIoError(
          'CONFIG_INVALID',
          '--json prints the summary on standard output, where --out - writes the export: leave out one of them',
        );
      }
      let progress: Progress | undefined;
      // The services waited for now: each entity's progress line says so while they are.
      let waits: readonly Wait[] = [];
      const connection = await connectTelling(out, connectionFlagsFrom(args), {
        waiting: (now) => {
          waits = now;
          progress?.waiting(now);
        },
      });
      const quiet = args.quiet || args.json;
      let current = '';
      const onProgress = (p: ExportProgress) => {
        if (p.entity !== current) {
          progress?.stop();
          current = p.entity;
          progress = createProgress(out, `export ${p.entity}`, { quiet });
          progress.waiting(waits);
        }
        const counters = connection.snapshot();
        progress?.update({
          done: p.rows,
          ...(p.total !== undefined && { total: p.total }),
          ...(p.phase === 'changelog' && { counts: 'reading the changelog' }),
          requests: counters.requests,
          rateLimited: counters.rateLimited,
        });
      };
      try {
        const model = await connection.tenant.model(exportScope(args.entities));
        // Loaded on use: the export brings exceljs, which other commands do not need.
        const { exportCatalog } = await import('../../runner/export/index.js');
        const result = await exportCatalog({
          catalog: connection.catalog,
          model,
          tenant: connection.tenant.name,
          ...(args.entities && { entities: args.entities }),
          out: args.out,
          ...(args.format && { format: args.format }),
          ...(languages && {
            languages: languages.length === 1 && languages[0] === 'all' ? 'all' : languages,
          }),
          ...(args.filter && { filter: args.filter }),
          ...(select && { select }),
          ...(since && { since }),
          csv: { bom: args.bom, raw: args.raw },
          ...(args['asset-urls'] && { assetUrls: true, dam: connection.dam }),
          onProgress,
        });
        progress?.stop();
        printSummary(out, result, connection.snapshot(), args);
        setExitCode(EXIT.OK);
      } finally {
        progress?.stop();
        await connection.close();
      }
    },
  }) as CommandModule<object, ExportArgs>;

function listFlag(name: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new CatalogIoError('CONFIG_INVALID', `--${name} is empty: name at least one`);
  return items;
}

function printSummary(out: Output, result: ExportResult, counters: CountersSnapshot, args: ExportArgs): void {
  if (args.json) {
    out.print(
      JSON.stringify({
        format: result.format,
        files: result.files,
        entities: result.entities,
        requests: {
          total: counters.requests,
          byMethod: counters.byMethod,
          rateLimited: counters.rateLimited,
          ...(counters.pace && { pace: counters.pace }),
        },
        startedAt: result.startedAt,
        durationMs: result.durationMs,
        notes: result.notes,
      }),
    );
    return;
  }
  for (const e of result.entities) {
    const since = e.since ? ` changed since ${e.since}` : '';
    out.error(`${e.entity}: ${e.rows} rows${since}`);
  }
  for (const file of result.files) out.error(`wrote ${file === '-' ? 'standard output' : file}`);
  const methods = Object.entries(counters.byMethod)
    .map(([method, n]) => `${method} ${n}`)
    .join(', ');
  const limited = counters.rateLimited ? `, ${counters.rateLimited} × 429` : '';
  out.error(
    `${counters.requests} requests (${methods || 'none'}${limited}) in ${(result.durationMs / 1000).toFixed(1)} s`,
  );
  const pace = paceSummaryWords(counters.pace);
  if (pace) out.error(`pace: ${pace}`);
  for (const note of result.notes) out.error(`note: ${note}`);
}

/**
 * The entities an export reads the `$metadata` of: those named (the attribute-set table needs none);
 * none named, or the layouts table (custom entities have layouts): every one.
 */
function exportScope(entities: string[] | undefined): ModelScope {
  if (!entities || entities.length === 0 || entities.includes(LAYOUTS_TABLE)) return 'all';
  return entities.filter((name) => name !== ATTRIBUTE_SETS_TABLE);
}
