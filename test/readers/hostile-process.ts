// Runs the CLI as a child, as a user would, and measures what a hostile file cost it: its peak
// resident memory (reported by the child at exit, see peak-memory.mjs) and its wall time. A child
// still running after `timeoutMs` is killed and the test fails: bounded time, without a benchmark.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCliProcess } from '../helpers/cli-process.js';
import { tempPath } from './helpers.js';

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

export async function runMeasured(
  args: string[],
  options: { timeoutMs?: number; env?: Record<string, string>; cwd?: string } = {},
): Promise<MeasuredRun> {
  const memoryFile = tempPath(`peak-${process.pid}-${++runs}.txt`);
  const started = Date.now();
  const run = await runCliProcess(args, {
    env: { ...options.env, CATALOG_IO_PEAK_MEMORY_FILE: memoryFile },
    preload: [HOOK],
    timeoutMs: options.timeoutMs ?? 90_000,
    ...(options.cwd !== undefined && { cwd: options.cwd }),
  });
  let peakMb = Number.NaN;
  try {
    peakMb = Number(readFileSync(memoryFile, 'utf8')) / 1024;
  } catch {
    // no report: the child died before its exit handlers ran
  }
  return { ...run, peakMb, ms: Date.now() - started };
}
