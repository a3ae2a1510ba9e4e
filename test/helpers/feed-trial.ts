// A feed tried as a new user tries it: `profile init` (the draft used as written) -> `validate` ->
// `import --plan` -> `import`, each through the CLI against one sandbox, each writing its per-row report
// as JSON lines. The agreement test holds the three reports to the same verdicts row by row.
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { sandboxFlags } from './sandbox.js';

export interface TrialLine {
  sheet?: string;
  location: string;
  entity: string;
  ref: string;
  outcome: string;
  field: string;
  column: string;
  value: string;
  message: string;
  warnings?: string;
}

export interface TrialStep {
  code: number;
  lines: TrialLine[];
  /** What the command said on stderr (summary, notes, errors). */
  stderr: string[];
  /** The `--json` summary, when the command printed one. */
  summary?: Record<string, unknown>;
}

export interface Trial {
  file: string;
  profile: string | false;
  init: { code: number; stderr: string[] };
  validate: TrialStep;
  plan: TrialStep;
  imported: TrialStep;
}

/** The three steps that write reports, by name: what a test checks alike in each. */
export function trialSteps(trial: Trial): Record<'validate' | 'plan' | 'imported', TrialStep> {
  return { validate: trial.validate, plan: trial.plan, imported: trial.imported };
}

export interface TrialOptions {
  /** Where the profile and reports go. */
  dir: string;
  /** Names the profile and report files (default: the file's name). */
  name?: string;
  /** `profile init --entity` (default products). */
  entity?: string;
  /** A profile to use instead of drafting one (the samples bring theirs); false: none (`feed` names the entity). */
  profile?: string | false;
  /** Reader flags given to every step (`--sheet`, `--json-path`, ...). */
  reader?: string[];
  /** Flags of every step but `profile init` (e.g. `--entity` for a sample without a profile). */
  feed?: string[];
}

/** Runs the four steps on one feed against `sb`; every step runs even when the one before failed. */
export async function tryFeed(sb: SandboxHandle, file: string, options: TrialOptions): Promise<Trial> {
  const name = (options.name ?? basename(file).replace(/\.[^.]+$/, '')).replace(/[^\w.-]+/g, '-');
  const flags = sandboxFlags(sb, { rateLimit: 'off' });
  const reader = options.reader ?? [];
  let profile = options.profile;
  let init = { code: 0, stderr: [] as string[] };
  if (profile === undefined) {
    profile = join(options.dir, `${name}.profile.json`);
    const out = memoryOutput();
    const code = await main(
      [
        'profile',
        'init',
        file,
        '--entity',
        options.entity ?? 'products',
        '--out',
        profile,
        ...reader,
        ...flags,
      ],
      out,
    );
    init = { code, stderr: out.stderr };
  }
  const feed = [file, ...(profile ? ['--profile', profile] : []), ...reader, ...(options.feed ?? [])];
  const step = async (command: string[], tag: string): Promise<TrialStep> => {
    const report = join(options.dir, `${name}.${tag}.jsonl`);
    const out = memoryOutput();
    const code = await main([...command, ...feed, '--json', '--quiet', '--report', report, ...flags], out);
    const lines = await readLines(report);
    let summary: Record<string, unknown> | undefined;
    try {
      summary = out.stdout.length
        ? (JSON.parse(out.stdout.join('\n')) as Record<string, unknown>)
        : undefined;
    } catch {
      summary = undefined;
    }
    return { code, lines, stderr: out.stderr, ...(summary && { summary }) };
  };
  const validate = await step(['validate'], 'validate');
  const plan = await step(['import', '--plan'], 'plan');
  const imported = await step(['import'], 'import');
  return { file, profile, init, validate, plan, imported };
}

async function readLines(report: string): Promise<TrialLine[]> {
  let text: string;
  try {
    text = await readFile(report, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TrialLine);
}

/** The outcomes of an import that wrote the record (with or without a warning). */
export const LANDED = new Set(['created', 'updated', 'unchanged']);
/** A plan's words for what the import reports as done. */
export const PLANNED_AS: Record<string, string> = {
  'would-create': 'created',
  'would-update': 'updated',
  'would-delete': 'deleted',
};

/** Where a line is, across the three reports (a workbook's lines carry their sheet). */
export function rowKey(line: TrialLine): string {
  return line.sheet ? `${line.sheet}|${line.location}` : line.location;
}

/** Where the three reports disagree on a row: what validate, the plan and the import said of it. */
export interface Disagreement {
  row: string;
  ref: string;
  validate: string;
  plan: string;
  imported: string;
  message: string;
}

/**
 * The rows on which validate, the plan and the import disagree: validate calls a row `invalid` exactly
 * when the import does not write it (`invalid` or `failed`); the plan's would-create/would-update are the
 * import's created/updated, and its failures the import's.
 */
export function disagreements(trial: Trial): Disagreement[] {
  const plan = new Map(trial.plan.lines.map((l) => [rowKey(l), l]));
  const validate = new Map(trial.validate.lines.map((l) => [rowKey(l), l]));
  const out: Disagreement[] = [];
  for (const done of trial.imported.lines) {
    const key = rowKey(done);
    const v = validate.get(key);
    const p = plan.get(key);
    const notWritten = done.outcome === 'invalid' || done.outcome === 'failed';
    const validateAgrees = v !== undefined && (v.outcome === 'invalid') === notWritten;
    const planned = p === undefined ? undefined : (PLANNED_AS[p.outcome] ?? p.outcome);
    const planAgrees =
      planned === done.outcome || (notWritten && (planned === 'invalid' || planned === 'failed'));
    if (validateAgrees && planAgrees) continue;
    out.push({
      row: key,
      ref: done.ref,
      validate: v?.outcome ?? '(no line)',
      plan: p?.outcome ?? '(no line)',
      imported: done.outcome,
      message: done.message || v?.message || p?.message || '',
    });
  }
  return out;
}
