// `catalog-io profile init <file> --entity E [--out profile.json|.yaml]`: drafts a mapping profile from the file's
// headers and the tenant's fields, and lists the columns it could not place.
import { writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import type { CommandModule } from 'yargs';
import { connectionFlagsFrom, connectionOptions } from '../../config/flags.js';
import { CatalogIoError } from '../../errors.js';
import { collectSamples, type FeedSample } from '../../mappers/init/values.js';
import { draftProfile, type HeaderNote } from '../../mappers/init.js';
import { isYamlProfile, profileSchemaPath } from '../../mappers/profile.js';
import type { Profile } from '../../mappers/profile-types.js';
import { openSource } from '../../readers/index.js';
import { tenantModelFor } from '../../runner/model-source.js';
import { EXIT } from '../output.js';
import { readerOptionsFrom, sourceArg, withReaderOptions } from './feed.js';
import type { CommandFactory } from './index.js';

interface ProfileArgs {
  action: string;
  source: string;
  entity: string;
  variants?: boolean;
  out?: string;
  [key: string]: unknown;
}

/** JSON sources grow their header as records are read: this many are looked at. */
const HEADER_SAMPLE_ROWS = 200;

export const profileCommand: CommandFactory = (out, setExitCode) =>
  ({
    command: 'profile <action> <source>',
    describe: "Draft a mapping profile from a file's headers (init)",
    builder: (y) =>
      withReaderOptions(
        y
          .positional('action', { choices: ['init'] as const, describe: 'init: write a draft profile' })
          .positional('source', {
            type: 'string',
            describe: 'The feed whose headers are matched',
            demandOption: true,
          })
          .option('entity', {
            type: 'string',
            default: 'products',
            describe: 'products | variants | categories | custom:<denominator>',
          })
          .option('variants', {
            type: 'boolean',
            describe:
              'Rows also carry variant columns (one row per variant); default: when the feed shows variants or variant values',
          })
          .option('out', {
            type: 'string',
            describe:
              'Write the profile here: YAML for a .yaml or .yml file, JSON otherwise (default: JSON on stdout)',
          })
          .options(connectionOptions),
      ),
    handler: async (args: ProfileArgs) => {
      const model = await tenantModelFor({
        flags: connectionFlagsFrom(args),
        scope: [args.entity],
        announce: (line) => out.error(line),
      });
      if (!model.entity(args.entity)) {
        throw new CatalogIoError(
          'SCHEMA_UNKNOWN_ENTITY',
          `Entity "${args.entity}" is not in this tenant: it has ${model.entities.map((e) => e.name).join(', ')}`,
        );
      }
      // yargs reads a lone `-` (stdin) as an empty string.
      const source = await openSource(sourceArg(args.source), readerOptionsFrom(args));
      let headers: string[];
      let samples: FeedSample;
      try {
        samples = await collectSamples(source.rows, HEADER_SAMPLE_ROWS);
        headers = [...source.headers];
      } finally {
        await source.close();
      }
      const { profile, unplaced, notes } = draftProfile(
        headers,
        model,
        args.entity,
        args.variants ?? 'auto',
        samples,
      );
      const schema = (args.out ? relative(dirname(args.out), profileSchemaPath()) : profileSchemaPath())
        .split('\\')
        .join('/');
      const text =
        args.out && isYamlProfile(args.out)
          ? await yamlText(profile, schema)
          : `${JSON.stringify({ $schema: schema, ...profile }, null, 2)}\n`;
      if (args.out) {
        await writeFile(args.out, text);
        out.error(`profile written to ${args.out}`);
      } else {
        out.print(text.trimEnd());
      }
      const placed = headers.length - unplaced.length;
      out.error(`${placed} of ${headers.length} columns placed`);
      for (const note of notes) {
        const line = noteLine(note);
        if (line) out.error(line);
      }
      if (unplaced.length) {
        out.error(
          `not placed (written as null, ignored until you map them): ${unplaced.map((h) => `"${h}"`).join(', ')}`,
        );
      }
      setExitCode(EXIT.OK);
    },
  }) as CommandModule<object, ProfileArgs>;

/**
 * The profile as YAML (`--out` names a `.yaml` or `.yml` file): the schema named by the modeline editors'
 * YAML support reads, long texts kept on one line.
 */
async function yamlText(profile: Profile, schema: string): Promise<string> {
  const { stringify } = await import('yaml');
  return `# yaml-language-server: $schema=${schema}\n${stringify(profile, { lineWidth: 0 })}`;
}

/** `"Gewicht (g)" -> prod_weight: the header says g, prod_weight holds kg`, `"Gewcht": not placed; did you mean ...`. */
function noteLine(note: HeaderNote): string | undefined {
  if (note.structure && !note.warning) return `  "${note.header}": ${note.structure}`;
  if (note.field) {
    if (!note.unit && !note.warning) return undefined;
    const target = note.culture ? `${note.field} (${note.culture})` : note.field;
    return `  "${note.header}" -> ${target}${note.unit ? ` in ${note.unit}` : ''}${note.warning ? `: check: ${note.warning}` : ''}`;
  }
  const parts = [`  "${note.header}": not placed`];
  if (note.warning) parts.push(note.warning);
  if (note.suggestions?.length) parts.push(`did you mean ${note.suggestions.join(', ')}?`);
  if (note.samples?.length) parts.push(`values: ${note.samples.map((v) => JSON.stringify(v)).join(', ')}`);
  return parts.join('; ');
}
