// The command line: parse flags with yargs, call the library, turn errors into a message and an exit code.
// Exit codes (docs/exit-codes.md): 0 ok, 1 some rows failed or were invalid, 2 fatal, 3 stopped on purpose.
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { CatalogIoError } from '../errors.js';
import { faultProblem, isFileFault } from '../files.js';
import { redactText } from '../secrets.js';
import { commands } from './commands/index.js';
import { EXIT, jsonRequested, type Output, printJsonEnd, processOutput } from './output.js';

/** Runs the CLI with the given arguments and resolves to the exit code; never throws. */
export async function main(argv: string[], out: Output = processOutput()): Promise<number> {
  // Before anything else: `--version` needs no command and starts nothing.
  if (argv.includes('--version')) {
    out.print(version());
    return EXIT.OK;
  }
  let exitCode: number = EXIT.OK;
  let restoreEnv = () => {};
  // Help is laid out by yargs' CommonJS build, whose cliui wraps at word boundaries (wrap-ansi); the ES
  // module build's cuts lines every N characters, mid-word. Loading the former (and wrap-ansi's tables)
  // costs about 16 ms, so only a run that shows help pays it.
  const parser = wantsHelp(argv) ? (await import('yargs/yargs')).default : yargs;
  const cli = parser(withStdoutOut(argv))
    .scriptName('catalog-io')
    .usage('$0 <command> [options]')
    .strict()
    .recommendCommands()
    .demandCommand(1, 'Name a command: see catalog-io --help')
    .help()
    .alias('h', 'help')
    .version(false)
    .option('version', { type: 'boolean', describe: 'Print the version and exit' })
    .wrap(helpWidth())
    .exitProcess(false)
    .fail((msg, err) => {
      // yargs' own complaints (a flag without its value, a value a flag's check refused) are bad flags too.
      // One line, as every fatal error is (yargs puts a choice's values on a line of their own).
      if (err?.name === 'YError') throw new CatalogIoError('CONFIG_INVALID', oneLine(err.message));
      throw err ?? new CatalogIoError('CONFIG_INVALID', oneLine(msg));
    })
    // Commands that read feeds and tell their end: the config file's SFTP/FTP/SMTP credentials.
    .middleware(async (args) => {
      if (!FEED_COMMANDS.includes(String(args._[0]))) return;
      const { applyCredentials } = await import('../config/remote-settings.js');
      restoreEnv = applyCredentials(args as { config?: unknown; 'known-hosts'?: unknown });
    });
  try {
    for (const command of await commands(argv, out, (code) => {
      exitCode = code;
    }))
      cli.command(command);
    await cli.parseAsync();
    return exitCode;
  } catch (err) {
    return reportFatal(err, out, jsonRequested(argv));
  } finally {
    restoreEnv();
  }
}

const FEED_COMMANDS = ['import', 'validate', 'preview'];

/** The flags that show help (yargs reads them anywhere among the words). */
function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/**
 * The width help is wrapped to: the terminal's, else `COLUMNS` (help piped to a pager or a file), else
 * 100; at most 110, which reads better than a line across a wide screen, and at least 40.
 */
function helpWidth(): number {
  const columns = process.stdout.columns || Number(process.env.COLUMNS) || 100;
  return Math.max(40, Math.min(110, Math.floor(columns)));
}

/** `--out -` as `--out=-`: yargs reads a lone `-` after a flag as a positional and leaves the flag empty. */
function withStdoutOut(argv: string[]): string[] {
  return argv.flatMap((arg, i) =>
    arg === '-' && argv[i - 1] === '--out'
      ? []
      : arg === '--out' && argv[i + 1] === '-'
        ? ['--out=-']
        : [arg],
  );
}

/**
 * A fatal error as one line on stderr with its code, exit 2; under `--json` (`json`) also as one JSON
 * object on stdout (`printJsonEnd`).
 */
export function reportFatal(err: unknown, out: Output, json = false): number {
  const { code, message } = fatalOf(err);
  out.error(`catalog-io: ${message} [${code}]`);
  // An unexpected failure is still one readable line; the stack only on request.
  if (code === 'INTERNAL' && process.env.CATALOG_IO_DEBUG && err instanceof Error && err.stack)
    out.error(redactText(err.stack));
  if (json) printJsonEnd(out, { code, message, exitCode: EXIT.FATAL });
  return EXIT.FATAL;
}

/** A fatal error's code and its sentence for people (without secrets). */
function fatalOf(err: unknown): { code: string; message: string } {
  if (err instanceof CatalogIoError) return { code: err.code, message: redactText(err.message) };
  // A file or folder the command could not make or use (an --out in a read-only place, a lock folder
  // where a file is): said as what it is, in words, with its path.
  const target = isFileFault(err)
    ? (err.path ?? (err as NodeJS.ErrnoException & { hostname?: string }).hostname)
    : undefined;
  if (isFileFault(err) && target !== undefined) {
    const action = FILE_ACTIONS[err.syscall ?? ''] ?? 'use';
    return {
      code: 'CONFIG_INVALID',
      message: `Cannot ${action} ${redactText(target)}: ${faultProblem(err)}`,
    };
  }
  const message = redactText(err instanceof Error ? err.message : String(err));
  return { code: 'INTERNAL', message: `unexpected error: ${message}` };
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** What the failed system call was doing, in words. */
const FILE_ACTIONS: Record<string, string> = {
  mkdir: 'create the folder',
  open: 'open',
  read: 'read',
  write: 'write',
  copyfile: 'write',
  rename: 'write',
  scandir: 'read the folder',
  stat: 'find',
  getaddrinfo: 'resolve the host',
};

/** The package's version, from its package.json (two folders up from both `src/cli/` and `dist/cli/`). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
