// Shared by the nightly-import tests: the CLI as a child process in a working folder of its own (its
// `.catalog-io` state), pointed at a test sandbox over loopback, that can be signalled or killed at a
// named pause point; feeds; the tenant read back by ref.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { cliEntry } from '../helpers/cli-entry.js';
import { readAll } from './import.support.js';

export interface Child {
  process: ChildProcess;
  /** Resolves with the exit code (or 128 + signal number for a kill). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** Resolves once stderr holds `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  stderr(): string;
}

export function startCli(
  args: string[],
  cwd: string,
  sb: SandboxHandle,
  env: Record<string, string> = {},
): Child {
  const child = spawn(process.execPath, [...cliEntry(), ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CATALOG_URL: sb.catalogUrl,
      DAM_URL: sb.damUrl,
      CATALOG_API_KEY: sb.apiKey,
      CATALOG_IO_TEST_PAUSE_AT: '',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout!.on('data', (c) => {
    stdout += c;
  });
  child.stderr!.on('data', (c) => {
    stderr += c;
    for (const w of [...waiters]) w();
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    process: child,
    exited,
    stderr: () => stderr,
    waitFor(text, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const matches = () => (typeof text === 'string' ? stderr.includes(text) : text.test(stderr));
        if (matches()) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`no ${text} on stderr in ${timeoutMs} ms:\n${stderr}`)),
          timeoutMs,
        );
        const check = () => {
          if (!matches()) return;
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check), 1);
          resolve();
        };
        waiters.push(check);
        void exited.then(() => {
          if (matches()) return;
          clearTimeout(timer);
          reject(new Error(`the CLI ended before ${text}:\n${stderr}`));
        });
      });
    },
  };
}

/** Runs the CLI to its end. */
export async function runCli(
  args: string[],
  cwd: string,
  sb: SandboxHandle,
  env: Record<string, string> = {},
) {
  return startCli(args, cwd, sb, env).exited;
}

/** The run folders of a working folder, oldest first. */
export async function runIds(cwd: string): Promise<string[]> {
  return (await readdir(join(cwd, '.catalog-io', 'runs'))).sort();
}

export function journalRecords(cwd: string, runId: string): Array<Record<string, unknown>> {
  const text = readFileSync(join(cwd, '.catalog-io', 'runs', runId, 'rows.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export async function summaryOf(cwd: string, runId: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(cwd, '.catalog-io', 'runs', runId, 'summary.json'), 'utf8'));
}

/** Products by ref without ids and server timestamps (they differ between tenants), and how many carry each ref. */
export async function productsByRef(sb: SandboxHandle) {
  const records = await readAll(sb, '/Products');
  const count = new Map<string, number>();
  const byRef: Record<string, Record<string, unknown>> = {};
  for (const r of records) {
    const ref = String(r.prod_ref);
    count.set(ref, (count.get(ref) ?? 0) + 1);
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r)) {
      if (k === 'prod_id' || k.endsWith('_created_at') || k.endsWith('_modified_at')) continue;
      copy[k] = v;
    }
    byRef[ref] = copy;
  }
  const duplicates = [...count].filter(([, n]) => n > 1).map(([ref]) => ref);
  return { records: records.length, byRef, duplicates };
}

/** The report lines that must not differ between two runs of one feed, in source order. */
export function comparable(lines: Array<Record<string, string>>) {
  return lines
    .map((l) => ({
      location: l.location,
      entity: l.entity,
      ref: l.ref,
      outcome: l.outcome,
      changed: l.changed,
    }))
    .sort((a, b) => lineNo(a.location) - lineNo(b.location) || a.ref!.localeCompare(b.ref!));
}

function lineNo(location: string | undefined): number {
  const m = /(\d+)/.exec(location ?? '');
  return m ? Number(m[1]) : 0;
}

/** Rows the first run in `cwd` has journaled (`rows.jsonl`), 0 before it has a journal. */
export async function journaledRows(cwd: string): Promise<number> {
  if (!existsSync(join(cwd, '.catalog-io', 'runs'))) return 0;
  const [runId] = await runIds(cwd);
  const file = runId && join(cwd, '.catalog-io', 'runs', runId, 'rows.jsonl');
  if (!file || !existsSync(file)) return 0;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"t":"row"')).length;
}

/** Waits until the run in `cwd` has journaled `rows` rows (a child to stop mid-run), at most 100 s. */
export async function untilJournaled(cwd: string, rows: number): Promise<void> {
  for (let i = 0; (await journaledRows(cwd)) < rows; i++) {
    if (i > 4000) throw new Error(`the run did not reach ${rows} rows`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
