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
