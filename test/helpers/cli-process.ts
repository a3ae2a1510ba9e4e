// Runs the CLI in a child process, as a user would (stdin, exit codes, a working folder of its own):
// the bundle as shipped, or the sources through tsx (cli-entry.ts). Absolute paths, so any cwd works.
import { spawn } from 'node:child_process';
import { cliEntry } from './cli-entry.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCliProcess(
  args: string[],
  options: {
    stdin?: string;
    cwd?: string;
    env?: Record<string, string>;
    /** Modules the child loads before the CLI (`--import`), e.g. a hook that reports its peak memory. */
    preload?: string[];
    /** The child is killed and the promise rejects when it runs longer (bounded time, no benchmark). */
    timeoutMs?: number;
  } = {},
): Promise<CliRun> {
  const preload = (options.preload ?? []).flatMap((hook) => ['--import', hook]);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...preload, ...cliEntry(), ...args], {
      stdio: 'pipe',
      ...(options.cwd !== undefined && { cwd: options.cwd }),
      ...(options.env !== undefined && { env: { ...process.env, ...options.env } }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error(`catalog-io ${args.join(' ')} still running after ${options.timeoutMs} ms`));
          }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
