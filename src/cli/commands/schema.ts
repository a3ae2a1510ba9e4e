// `catalog-io schema pull [--out DIR]`: fetch the tenant's $metadata documents into a cache folder.
// `catalog-io schema show [entity]`: the fields of one entity as a table (or the list of entities).

import type { Argv } from 'yargs';
import { connectionFlagsFrom, connectionOptions } from '../../config/flags.js';
import { CatalogIoError } from '../../errors.js';
import { loadTenantModel, pullSchemas } from '../../schema/load.js';
import type { EntityModel, FieldModel, TenantModel } from '../../schema/model.js';
import { connectTelling } from '../outage-notice.js';
import { EXIT, type Output } from '../output.js';
import type { CommandFactory } from './index.js';

export const schemaCommand: CommandFactory = (out, setExitCode) => ({
  command: 'schema <action> [entity]',
  describe: "Fetch the tenant's schemas into a cache (pull) or show an entity's fields (show)",
  builder: (yargs: Argv) =>
    yargs
      .positional('action', {
        choices: ['pull', 'show'] as const,
        describe: 'pull: fetch and cache; show: print fields',
      })
      .positional('entity', {
        type: 'string',
        describe: 'products, variants, categories or a custom entity denominator',
      })
      .options(connectionOptions)
      .option('out', {
        type: 'string',
        describe: 'pull: cache folder (default .catalog-io/schemas/<tenant>/)',
      })
      .example('$0 schema pull', 'cache the schemas of the configured tenant')
      .example('$0 schema show products --schemas .catalog-io/schemas/sandbox', 'offline'),
  handler: async (argv: Record<string, unknown>) => {
    const action = String(argv.action);
    const entity = typeof argv.entity === 'string' ? argv.entity : undefined;
    const code =
      action === 'pull'
        ? await runPull(out, argv, typeof argv.out === 'string' ? argv.out : undefined)
        : await runShow(out, argv, entity);
    setExitCode(code);
  },
});

async function runPull(
  out: Output,
  argv: Record<string, unknown>,
  outDir: string | undefined,
): Promise<number> {
  const connection = await connectTelling(out, connectionFlagsFrom(argv));
  try {
    const dir = outDir ?? connection.tenant.defaultSchemasDir;
    const result = await pullSchemas(connection.catalog, dir);
    out.print(
      `Fetched ${result.files.length - 1} schema documents from ${connection.tenant.catalogUrl} at ${result.fetchedAt}`,
    );
    out.print(`Written to ${dir}`);
    out.print(`Languages: ${result.model.languages.join(', ') || '(none listed)'}`);
    out.print(`Entities: ${result.model.entities.map((e) => e.name).join(', ')}`);
    return EXIT.OK;
  } finally {
    await connection.close();
  }
}

async function runShow(
  out: Output,
  argv: Record<string, unknown>,
  name: string | undefined,
): Promise<number> {
  const flags = connectionFlagsFrom(argv);
  // Offline with --schemas: no connection (and no sandbox) is needed.
  const connection = flags.schemas ? undefined : await connectTelling(out, flags);
  try {
    // One entity's fields need that entity's `$metadata` only; the list needs every entity's.
    const model = connection
      ? await connection.tenant.model(name ? [name] : 'all')
      : await loadTenantModel({ schemasDir: flags.schemas! });
    if (!name) {
      for (const line of entityList(model)) out.print(line);
      return EXIT.OK;
    }
    const entity = model.entity(name);
    if (!entity) {
      throw new CatalogIoError(
        'SCHEMA_UNKNOWN_ENTITY',
        `The tenant has no entity ${JSON.stringify(name)}; it has ${model.entities.map((e) => e.denominator ?? e.name).join(', ')}`,
      );
    }
    for (const line of fieldTable(entity, model)) out.print(line);
    return EXIT.OK;
  } finally {
    await connection?.close();
  }
}

export function entityList(model: TenantModel): string[] {
  const rows = model.entities.map((e) => [e.name, e.path, String(e.fields.length), e.idField, e.refField]);
  return [
    `Languages: ${model.languages.join(', ')} (base ${model.baseLanguage}); schemas fetched ${model.fetchedAt}`,
    '',
    ...table(['entity', 'path', 'fields', 'id', 'ref'], rows),
  ];
}

/** One entity's fields as a table a person can read. */
export function fieldTable(entity: EntityModel, model: TenantModel): string[] {
  const rows = entity.fields.map((f) => [
    f.name,
    typeText(f),
    f.multilingual ? (f.languages ?? model.languages).join(',') : '-',
    writableText(f),
    f.asset ?? '-',
    f.multiple ? 'yes' : '-',
    f.references ?? '-',
  ]);
  return [
    `${entity.denominator ?? entity.name} (${entity.path}): id ${entity.idField}, ref ${entity.refField}; schemas fetched ${model.fetchedAt}`,
    '',
    ...table(['field', 'type', 'languages', 'writable', 'asset', 'multi', 'references'], rows),
  ];
}

function typeText(f: FieldModel): string {
  let t: string = f.type;
  if (f.type === 'string' && f.format) t = `string (${f.format})`;
  if (f.maxLength !== undefined) t += ` max ${f.maxLength}`;
  if (f.enum) t += ` one of ${f.enum.join('|')}`;
  // Rows are refused for it: a person should read the rule here before a run says so.
  if (f.pattern !== undefined) t += ` matching ${f.pattern}`;
  if (f.required) t += ', required';
  return t;
}

function writableText(f: FieldModel): string {
  if (f.readOnly) return 'no (read-only)';
  if (f.immutable) return 'on create only';
  return 'yes';
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
