// Where the CLI writes: stdout for results (and --json), stderr for progress, summaries and errors.
// Commands receive an Output so tests can capture what a person would see.
import { redactText } from '../secrets.js';

export const EXIT = { OK: 0, ROWS_FAILED: 1, FATAL: 2, STOPPED: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface Output {
  /** A line of result on stdout. */
  print(line: string): void;
  /** A line of information, progress or error on stderr. */
  error(line: string): void;
  /** Whether stderr is a terminal (progress bars) . */
  isTTY: boolean;
  /** Where a progress bar is drawn when `isTTY` (the process's stderr for the CLI). */
  terminal?: NodeJS.WritableStream;
}

export function processOutput(): Output {
  return {
    print: (line) => process.stdout.write(`${line}\n`),
    // Whatever goes to stderr is said without secrets (a URL's credentials, the API key).
    error: (line) => process.stderr.write(`${redactText(line)}\n`),
    isTTY: Boolean(process.stderr.isTTY),
    terminal: process.stderr,
  };
}

/** Collects output in memory (tests, and callers that embed the CLI). */
export function memoryOutput(): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, isTTY: false, print: (l) => stdout.push(l), error: (l) => stderr.push(l) };
}

/**
 * Under `--json`, a command that ends without its result (a refusal: bad flags, a config error, the
 * lock held by another run) still prints one JSON object on stdout, so a script that parses stdout
 * learns what happened: the console's error shape (`error`, `code`) with the exit code. The stderr line
 * is said as well, as without `--json`.
 */
export function printJsonEnd(out: Output, end: { code: string; message: string; exitCode: number }): void {
  out.print(JSON.stringify({ error: redactText(end.message), code: end.code, exitCode: end.exitCode }));
}

/**
 * Whether these arguments ask for `--json` (the last of `--json`, `--json=true|false`, `--no-json` before
 * `--`): read from the words themselves, as a refusal of the flags comes before yargs gives their values.
 */
export function jsonRequested(argv: readonly string[]): boolean {
  let json = false;
  for (const arg of argv) {
    if (arg === '--') break;
    if (arg === '--json' || arg === '--json=true') json = true;
    else if (arg === '--no-json' || arg === '--json=false') json = false;
  }
  return json;
}
