// The CLI as a child process that a test can signal while it runs (kill mid-run), with its own
// environment: the bundle as shipped, or the sources through tsx (cli-entry.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { cliEntry } from './cli-entry.js';
import type { CliRun } from './cli-process.js';

export interface CliChild {
  child: ChildProcess;
  /** Resolves when the process ended, with what it wrote. */
  done: Promise<CliRun>;
  /** What it wrote to stderr so far. */
  stderr(): string;
}

export function startCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliChild {
  const child = spawn(process.execPath, [...cliEntry(), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
    ...(options.cwd !== undefined && { cwd: options.cwd }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done, stderr: () => stderr };
}
