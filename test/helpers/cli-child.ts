// The CLI as a child process that a test can signal while it runs (kill mid-run), with its own
// environment: `node --import tsx src/cli/run.ts ...`.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CliRun } from './cli-process.js';

const CLI = join(import.meta.dirname, '../../src/cli/run.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface CliChild {
  child: ChildProcess;
  /** Resolves when the process ended, with what it wrote. */
  done: Promise<CliRun>;
  /** What it wrote to stderr so far. */
  stderr(): string;
}

export function startCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliChild {
  const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
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
