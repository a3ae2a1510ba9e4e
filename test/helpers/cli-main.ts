// The CLI run in this process (`main`, with an output that keeps what it printed), in a folder of the
// test file's own, against a sandbox named by flags: what the in-process CLI tests share.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';

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
