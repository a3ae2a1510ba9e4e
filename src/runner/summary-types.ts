// The morning summary: what every import run writes to `summary.json` in its run folder, what
// `--summary FILE` copies, and what a notification carries.
import type { PaceSummary } from '../api/pace.js';

/** `abandoned`: an unfinished run a bare `--resume` could not continue (its source changed). */
export type RunState = 'running' | 'finished' | 'interrupted' | 'crashed' | 'stopped' | 'abandoned';

export interface RunSummary {
  /** The run's folder under `.catalog-io/runs/`; empty when it failed before a run was recorded. */
  runId: string;
  /** The command that ran: `import`, `export`, ... */
  command: string;
  /** Path or URL of the source, without credentials. */
  source: string;
  entity?: string;
  /** A hash of the tenant's base URL and key id; never the key. */
  tenant: string;
  state: RunState;
  exitCode: number;
  /** Rows per outcome: created, updated, unchanged, deleted, invalid, failed, not-attempted, ... */
  outcomes: Record<string, number>;
  rows: number;
  /** Rows written without an image or file that could not be registered (imports). */
  assetWarnings?: number;
  requests: {
    total: number;
    byMethod: Record<string, number>;
    /** 429 answers (too many requests) received. */
    rateLimited?: number;
    /** The pace kept under the rate limit: how low the 429s brought it and how long it ran below the limit. */
    pace?: PaceSummary;
  };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  reportFile?: string;
  /** One sentence for people: what happened and what to do next. */
  message: string;
}
