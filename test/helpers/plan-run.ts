// Runs `catalog-io import` (with or without `--plan`) against a test sandbox and reads back its per-row
// report and summary: the plan tests hold a plan and the import that follows it to the same outcomes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { type SandboxFixture, sandboxFlags } from './sandbox.js';

/** A plan's words for what the import reports as done. */
export const AS_DONE: Record<string, string> = {
  'would-create': 'created',
  'would-update': 'updated',
  'would-delete': 'deleted',
};

export interface ReportLine {
  sheet?: string;
  location: string;
  ref: string;
  outcome: string;
  changed: string;
  message: string;
}

let runs = 0;

/** One import (a plan with `plan`), its report written as JSON lines into `dir`. */
export async function importRun(fixture: SandboxFixture, dir: string, args: string[], plan: boolean) {
  const report = join(dir, `report-${++runs}.jsonl`);
  const out = memoryOutput();
  const code = await main(
    [
      'import',
      ...args,
      ...(plan ? ['--plan'] : []),
      '--json',
      '--report',
      report,
      ...sandboxFlags(fixture.sb, { rateLimit: 'off' }),
    ],
    out,
  );
  expect(out.stderr.filter((l) => l.startsWith('catalog-io:'))).toEqual([]);
  const lines = (await readFile(report, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as ReportLine);
  const summary = JSON.parse(out.stdout[0]!) as { outcomes: Record<string, number> };
  return { code, lines, outcomes: summary.outcomes };
}

/** Counts with the plan's words turned into the import's, zero counts left out. */
export function counts(outcomes: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [outcome, count] of Object.entries(outcomes)) {
    if (count === 0) continue;
    const name = AS_DONE[outcome] ?? outcome;
    out[name] = (out[name] ?? 0) + count;
  }
  return out;
}
