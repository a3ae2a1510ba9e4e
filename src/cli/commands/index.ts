// The list of CLI commands. Each command is a yargs module built from (output, setExitCode).
import type { CommandModule } from 'yargs';
import type { Output } from '../output.js';
import { demoCommand } from './demo.js';
import { exportCommand } from './export.js';
import { importCommand } from './import.js';
import { previewCommand } from './preview.js';
import { profileCommand } from './profile.js';
import { runsCommand } from './runs.js';
import { sandboxCommand } from './sandbox.js';
import { schemaCommand } from './schema.js';
import { validateCommand } from './validate.js';

// biome-ignore lint/suspicious/noExplicitAny: yargs command modules differ in their argument types
export type CommandFactory = (out: Output, setExitCode: (code: number) => void) => CommandModule<any, any>;

// biome-ignore lint/suspicious/noExplicitAny: yargs command modules differ in their argument types
export function commands(out: Output, setExitCode: (code: number) => void): CommandModule<any, any>[] {
  const factories: CommandFactory[] = [
    sandboxCommand,
    previewCommand,
    validateCommand,
    profileCommand,
    schemaCommand,
    importCommand,
    runsCommand,
    exportCommand,
    demoCommand,
  ];
  return factories.map((make) => make(out, setExitCode));
}
