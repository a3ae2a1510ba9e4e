// The CLI run in this process (`main`, with an output that keeps what it printed), in a folder of the
// test file's own, against a sandbox named by flags: what the in-process CLI tests share.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call } from './sandbox.js';

export interface MainRun {
  code: number;
  stdout: string[];
  /** Every stderr line, joined by newlines. */
  stderr: string;
}

/** `catalog-io <args>` in this process. */
export async function runMain(args: string[]): Promise<MainRun> {
  const out = memoryOutput();
  const code = await main(args, out);
  return { code, stdout: out.stdout, stderr: out.stderr.join('\n') };
}

/** The flags that point a command at this sandbox, without a client-side rate limit. */
export function sandboxFlags(sb: SandboxHandle): string[] {
  return [
    '--catalog-url',
    sb.catalogUrl,
    '--dam-url',
    sb.damUrl,
    '--api-key',
    sb.apiKey,
    '--rate-limit',
    'off',
  ];
}

/** `sandboxFlags` for one side of a copy: `--from-catalog-url …` or `--to-…`. */
export function copySideFlags(side: 'from' | 'to', sb: SandboxHandle): string[] {
  return sandboxFlags(sb).map((arg) => (arg.startsWith('--') ? `--${side}-${arg.slice(2)}` : arg));
}

/** A new folder, the working folder of the file's tests (the previous one again after them). */
export function useCliFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `catalog-io-${prefix}-`));
  const home = process.cwd();
  beforeAll(() => process.chdir(dir));
  afterAll(() => {
    process.chdir(home);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** The sandbox's requests so far, by method (its counters). */
export async function sandboxRequests(sb: SandboxHandle): Promise<Record<string, number>> {
  return ((await call(sb.origin, '/_sandbox/stats')).body as { byMethod: Record<string, number> }).byMethod;
}

export interface StepRun {
  code: number;
  /** The CSV report's lines, by column. */
  lines: Array<Record<string, string>>;
  /** The requests the sandbox took during the step, by method. */
  requests: Record<string, number>;
}

/**
 * `validate FILE`, `import FILE --plan` or `import FILE` against the sandbox, with a CSV report (the
 * agreement tests run the three on one file and compare their lines).
 */
export async function runStep(
  sb: SandboxHandle,
  step: 'validate' | 'plan' | 'import',
  file: string,
  report: string,
  extra: string[] = [],
): Promise<StepRun> {
  const before = await sandboxRequests(sb);
  const command =
    step === 'validate' ? ['validate', file] : ['import', file, ...(step === 'plan' ? ['--plan'] : [])];
  const { code } = await runMain([...command, '--report', report, ...extra, ...sandboxFlags(sb)]);
  const after = await sandboxRequests(sb);
  const requests: Record<string, number> = {};
  for (const [method, n] of Object.entries(after)) requests[method] = n - (before[method] ?? 0);
  const lines = Papa.parse<Record<string, string>>(readFileSync(report, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
  return { code, lines, requests };
}
