// The run folders under `.catalog-io/runs/<id>/`: `run.json` (what ran, on what, its state),
// `rows.jsonl` (the journal) and `summary.json` (the morning summary, once the run ends). Lists runs,
// finds the one to resume, and prunes old finished runs.
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { CatalogIoError } from '../errors.js';
import { jsonText, replaceFile } from '../replace-file.js';
import type { RunState, RunSummary } from '../runner/summary-types.js';
import type { SourceIdentity } from './source-identity.js';

export interface RunMeta {
  runId: string;
  command: 'import';
  /** The source as it may be shown (no credentials). */
  source: string;
  identity: SourceIdentity;
  profileHash: string;
  entity: string;
  tenant: string;
  startedAt: string;
  pid: number;
  host: string;
  state: RunState;
  reportFile?: string;
  /** The rejects file the run writes (absolute), if any. */
  rejectsFile?: string;
  /** The profile file as given (`--profile`), for the command that resumes the run. */
  profileFile?: string;
  /** A plan (`--plan`): nothing was written; its report says what would be. */
  plan?: boolean;
  /** How many times the run was resumed. */
  resumes: number;
  /**
   * The queued job whose run this is (`<job id>@<ms the job was added>`, set by the worker): a job
   * handed out again after its run finished is completed with that run's end, not run again.
   */
  job?: string;
}

export const DEFAULT_KEEP_RUNS = 50;

export class RunRegistry {
  readonly root: string;

  /** `stateDir`: the `.catalog-io` folder. */
  constructor(stateDir: string) {
    this.root = path.join(stateDir, 'runs');
  }

  dir(runId: string): string {
    return path.join(this.root, runId);
  }

  journalFile(runId: string): string {
    return path.join(this.dir(runId), 'rows.jsonl');
  }

  summaryFile(runId: string): string {
    return path.join(this.dir(runId), 'summary.json');
  }

  /** How far a running import is (rows, bytes read, requests), rewritten about once a second. */
  progressFile(runId: string): string {
    return path.join(this.dir(runId), 'progress.json');
  }

  async create(meta: Omit<RunMeta, 'runId' | 'pid' | 'host' | 'state' | 'resumes'>): Promise<RunMeta> {
    // To the millisecond: ids sort in start order (newest first in `runs`, the last one to resume), also
    // for runs started within one second, as a short feed's runs now are.
    const stamp = meta.startedAt.replace(/[-:.]/g, '').replace('T', '-').slice(0, 18);
    const runId = `${stamp}-${randomBytes(3).toString('hex')}`;
    const full: RunMeta = {
      ...meta,
      runId,
      pid: process.pid,
      host: hostname(),
      state: 'running',
      resumes: 0,
    };
    await mkdir(this.dir(runId), { recursive: true });
    // The journal exists before run.json says the run does: a resume of a run killed during its
    // start-up finds an empty journal, never a missing one (a missing one means damage).
    await writeFile(this.journalFile(runId), `${JSON.stringify({ t: 'start', run: runId })}\n`);
    await this.save(full);
    return full;
  }

  async save(meta: RunMeta): Promise<void> {
    const file = path.join(this.dir(meta.runId), 'run.json');
    await replaceFile(file, jsonText(meta));
  }

  async read(runId: string): Promise<RunMeta | undefined> {
    try {
      return JSON.parse(await readFile(path.join(this.dir(runId), 'run.json'), 'utf8')) as RunMeta;
    } catch {
      return undefined;
    }
  }

  async summary(runId: string): Promise<RunSummary | undefined> {
    try {
      return JSON.parse(await readFile(this.summaryFile(runId), 'utf8')) as RunSummary;
    } catch {
      return undefined;
    }
  }

  /** When the run's journal was last touched (ms since the epoch), if it has one. */
  private journalBeat(runId: string): number | undefined {
    try {
      return statSync(this.journalFile(runId)).mtimeMs;
    } catch {
      return undefined;
    }
  }

  /**
   * One run as `list()` shows it (its state read the same way), without reading every run: undefined
   * for an id that names no run folder here.
   */
  async get(runId: string): Promise<RunMeta | undefined> {
    if (!/^[\w.-]+$/.test(runId) || runId.startsWith('.')) return undefined;
    const meta = await this.read(runId);
    if (meta?.runId !== runId) return undefined;
    return { ...meta, state: effectiveState(meta, this.journalBeat(runId)) };
  }

  /** Runs, newest first, with a `running` run whose process is gone shown as `crashed`. */
  async list(): Promise<RunMeta[]> {
    if (!existsSync(this.root)) return [];
    const ids = (await readdir(this.root)).sort().reverse();
    const runs: RunMeta[] = [];
    for (const id of ids) {
      const meta = await this.read(id);
      if (meta) runs.push({ ...meta, state: effectiveState(meta, this.journalBeat(meta.runId)) });
    }
    return runs;
  }

  /** A run named by `--resume <id>` must have stopped (not finished, not running). */
  checkResumable(meta: RunMeta): RunMeta {
    const state = effectiveState(meta, this.journalBeat(meta.runId));
    if (state === 'abandoned')
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--resume ${meta.runId}: that run was abandoned (its source changed); run the import again without --resume`,
      );
    if (state === 'finished')
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--resume ${meta.runId}: that run finished; nothing to resume`,
      );
    if (state === 'running')
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--resume ${meta.runId}: that run is still running (pid ${meta.pid} on ${meta.host})`,
      );
    return meta;
  }

  /** Removes the oldest finished (or abandoned) runs beyond `keep`; unfinished runs stay until resumed. */
  async prune(keep = DEFAULT_KEEP_RUNS): Promise<void> {
    const finished = (await this.list()).filter((r) => r.state === 'finished' || r.state === 'abandoned');
    for (const old of finished.slice(keep)) await rm(this.dir(old.runId), { recursive: true, force: true });
  }
}

/**
 * A run on another host whose journal has not been touched for this long is gone: a live run's journal
 * is touched every few seconds (HEARTBEAT_MS in journal.ts), even while it waits on the service.
 */
export const SILENT_RUN_MS = 30_000;

/**
 * A run that says `running` but whose process is gone crashed: on this host, by its pid; on another
 * host (workers sharing the run folders), by a journal silent for SILENT_RUN_MS.
 */
export function effectiveState(meta: RunMeta, journalTouchedMs?: number): RunState {
  if (meta.state !== 'running') return meta.state;
  if (meta.host !== hostname()) {
    const silent = journalTouchedMs === undefined || Date.now() - journalTouchedMs > SILENT_RUN_MS;
    return silent ? 'crashed' : 'running';
  }
  return processAlive(meta.pid) ? 'running' : 'crashed';
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
