// Runs the CLI as a child, as a user would, and measures what a hostile file cost it: its peak
// resident memory (reported by the child at exit, see peak-memory.mjs) and its wall time. A child
// still running after `timeoutMs` is killed and the test fails: bounded time, without a benchmark.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempPath } from './helpers.js';

const CLI = join(import.meta.dirname, '../../src/cli/run.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const HOOK = pathToFileURL(join(import.meta.dirname, 'peak-memory.mjs')).href;

export interface MeasuredRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident memory of the child, in MB. */
  peakMb: number;
  ms: number;
}

let runs = 0;

export function runMeasured(
  args: string[],
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<MeasuredRun> {
  const memoryFile = tempPath(`peak-${process.pid}-${++runs}.txt`);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, '--import', HOOK, CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env, CATALOG_IO_PEAK_MEMORY_FILE: memoryFile },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`catalog-io ${args.join(' ')} still running after ${options.timeoutMs} ms`));
    }, options.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let peakMb = Number.NaN;
      try {
        peakMb = Number(readFileSync(memoryFile, 'utf8')) / 1024;
      } catch {
        // no report: the child died before its exit handlers ran
      }
      resolve({ code, stdout, stderr, peakMb, ms: Date.now() - started });
    });
  });
}
