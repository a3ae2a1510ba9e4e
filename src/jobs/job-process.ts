// Each job's run in a process of its own: a crash, an out-of-memory or a `kill -9` of one job ends
// that job only, and the worker's process never loads what a run loads (no lock-file library whose
// exit hooks re-raise the worker's SIGTERM). The child runs in its own process group, so a Ctrl-C
// at the worker's terminal reaches the worker, which lets the job finish, and not the job itself.
import { type ChildProcess, spawn } from 'node:child_process';

/** Set in a job's environment: the pid of the worker that started it. */
export const WORKER_PID_ENV = 'CATALOG_IO_WORKER_PID';
/** Set in a job's environment: the job (`<id>@<ms added>`), recorded in its run's run.json. */
export const JOB_ENV = 'CATALOG_IO_JOB';
/** Set in a job's environment: this attempt and the job's attempts in all (`2/3`). */
export const JOB_ATTEMPT_ENV = 'CATALOG_IO_JOB_ATTEMPT';

/** What a job's process knows of its job, from the environment its worker gave it. */
export interface JobOfRun {
  key: string;
  attempt: number;
  attempts: number;
}

/** Exit codes of runs that did not finish, retried by the worker: 2 fatal, 75 locked, 130/143 interrupted. */
export const RETRIED_EXITS: readonly number[] = [2, 75, 130, 143];
/** Errors of bad flags or settings: the worker fails the job for good at once, it retries no run. */
export const FINAL_ERRORS: readonly string[] = [
  'CONFIG_INVALID',
  'CONFIG_MISSING',
  'PROFILE_INVALID',
  'SCHEMA_UNKNOWN_ENTITY',
];

/**
 * In a job's process: whether the worker tries this job again after a run that ended so (not the
 * job's last attempt, a run that did not finish, no bad settings). Such an attempt tells nobody: the
 * next one resumes it, and the last one tells.
 */
export function retriedByWorker(job: JobOfRun | undefined, exitCode: number, errorCode?: string): boolean {
  if (!job || job.attempt >= job.attempts) return false;
  if (!RETRIED_EXITS.includes(exitCode)) return false;
  return !(errorCode && FINAL_ERRORS.includes(errorCode));
}

/** In a job's process: its job, or undefined outside a worker. */
export function jobOfThisRun(env: NodeJS.ProcessEnv = process.env): JobOfRun | undefined {
  const key = env[JOB_ENV];
  if (!key || !/^[\w:.@-]{1,200}$/.test(key)) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(env[JOB_ATTEMPT_ENV] ?? '');
  const attempt = m ? Number(m[1]) : 1;
  const attempts = m ? Number(m[2]) : 1;
  return { key, attempt, attempts };
}

/**
 * In a job's process: calls `gone` once the worker that started it died (kill -9, a crash), so the
 * run stops and the job's next run resumes it, instead of running on unseen.
 */
export function watchWorker(gone: () => void, env: NodeJS.ProcessEnv = process.env): () => void {
  const worker = Number(env[WORKER_PID_ENV]);
  if (!Number.isInteger(worker) || worker <= 0) return () => {};
  const timer = setInterval(() => {
    // A process whose parent died is handed to another (init, a subreaper).
    if (process.ppid !== worker) {
      clearInterval(timer);
      gone();
    }
  }, 250);
  timer.unref();
  return () => clearInterval(timer);
}

/** How to start this program again: node, its flags (a loader in development), the CLI's entry. */
export interface CliCommand {
  file: string;
  args: string[];
}

/** The command that started this process: the same CLI, built or from its sources. */
export function thisCli(): CliCommand {
  return { file: process.execPath, args: [...process.execArgv, process.argv[1] ?? ''] };
}

export interface JobRun {
  /** The run's exit code; null when a signal ended it (`signal`). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string[];
  /** The run's last lines on stderr. */
  stderr: string[];
  pid: number | undefined;
}

/** Lines of stderr kept per run: the last ones say why it ended. */
const STDERR_LINES = 20;
/** The summary on stdout is one line; more than this is not a summary. */
const STDOUT_BYTES = 1 << 20;

export class JobProcesses {
  private readonly running = new Set<ChildProcess>();

  constructor(private readonly cli: CliCommand = thisCli()) {}

  get size(): number {
    return this.running.size;
  }

  run(
    argv: string[],
    onStart?: (pid: number | undefined) => void,
    env: Record<string, string> = {},
  ): Promise<JobRun> {
    const child = spawn(this.cli.file, [...this.cli.args, ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, ...env, [WORKER_PID_ENV]: String(process.pid) },
    });
    this.running.add(child);
    onStart?.(child.pid);
    let stdout = '';
    let stderrTail = '';
    const stderr: string[] = [];
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < STDOUT_BYTES) stdout += chunk;
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (stderrTail + chunk).split('\n');
      stderrTail = lines.pop() ?? '';
      stderr.push(...lines);
      if (stderr.length > STDERR_LINES) stderr.splice(0, stderr.length - STDERR_LINES);
    });
    return new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null) => {
        this.running.delete(child);
        if (stderrTail) stderr.push(stderrTail);
        resolve({
          code,
          signal,
          stdout: stdout.split('\n').filter((l) => l.trim() !== ''),
          stderr,
          pid: child.pid,
        });
      };
      child.once('error', (err) => {
        stderr.push(`catalog-io: cannot start the job's process: ${err.message}`);
        done(null, null);
      });
      child.once('close', done);
    });
  }

  /** Asks every running job to stop (SIGTERM: it finishes its batch and ends `interrupted`). */
  interruptAll(): number {
    for (const child of this.running) child.kill('SIGTERM');
    return this.running.size;
  }
}
