// The list of CLI commands. Each command is a yargs module built from (output, setExitCode).
import type { CommandModule } from 'yargs';
import type { Output } from '../output.js';
// biome-ignore lint/suspicious/noExplicitAny: yargs command modules differ in their argument types
export type CommandFactory = (out: Output, setExitCode: (code: number) => void) => CommandModule<any, any>;

/**
 * Each command's module, loaded when it is needed: a run loads only the command it names (its runner,
 * readers, clients), so that `catalog-io validate` does not first load the import, the export and the
 * sandbox. The order is the order of `--help`.
 */
const LOADERS: Record<string, () => Promise<CommandFactory>> = {
  sandbox: async () => (await import('./sandbox.js')).sandboxCommand,
  preview: async () => (await import('./preview.js')).previewCommand,
  validate: async () => (await import('./validate.js')).validateCommand,
  profile: async () => (await import('./profile.js')).profileCommand,
  schema: async () => (await import('./schema.js')).schemaCommand,
  import: async () => (await import('./import.js')).importCommand,
  runs: async () => (await import('./runs.js')).runsCommand,
  export: async () => (await import('./export.js')).exportCommand,
  copy: async () => (await import('./copy.js')).copyCommand,
  demo: async () => (await import('./demo.js')).demoCommand,
  worker: async () => (await import('./jobs.js')).workerCommand,
  enqueue: async () => (await import('./jobs.js')).enqueueCommand,
  schedule: async () => (await import('./jobs.js')).scheduleCommand,
  jobs: async () => (await import('./jobs.js')).jobsCommand,
  serve: async () => (await import('./serve.js')).serveCommand,
};

/**
 * The commands for these arguments: only the one they name, or all of them (help, a misspelt name,
 * none), so that help lists every command and yargs can suggest one.
 */
export async function commands(
  argv: readonly string[],
  out: Output,
  setExitCode: (code: number) => void,
  // biome-ignore lint/suspicious/noExplicitAny: yargs command modules differ in their argument types
): Promise<CommandModule<any, any>[]> {
  const named = argv.find((arg) => !arg.startsWith('-'));
  const names = named !== undefined && Object.hasOwn(LOADERS, named) ? [named] : Object.keys(LOADERS);
  const factories = await Promise.all(names.map((name) => LOADERS[name]!()));
  return factories.map((make) => make(out, setExitCode));
}
