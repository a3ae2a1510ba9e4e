// A copy's folder, `.catalog-io/copies/<id>/`: `copy.json` says which steps are done (so `--resume`
// skips them and resumes the one that was cut), and holds the entities' exported files and reports.
// Beside the folders, `<from>--<to>.json` keeps where the last finished copy between the two tenants
// stood in each changelog and in the DAM: `--since` starts there.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CatalogIoError } from '../../errors.js';
import { jsonText, replaceFileSync } from '../../replace-file.js';

export type StepState = 'pending' | 'exported' | 'done';

/** Finished copies whose folders (reports) are kept; older ones are removed when a copy starts. */
export const KEEP_COPIES = 20;

export interface CopyManifest {
  id: string;
  from: string;
  to: string;
  plan: boolean;
  since: boolean;
  startedAt: string;
  state: 'running' | 'finished';
  /** Step name (`structure`, `assets`, an entity) -> how far it got. */
  steps: Record<string, StepState>;
  /** Where this copy read each changelog from (entity -> ISO), and the DAM's newest `modifiedOn` seen. */
  marks: Record<string, string>;
}

export class CopyFolder {
  readonly dir: string;

  private constructor(
    readonly root: string,
    public manifest: CopyManifest,
  ) {
    this.dir = path.join(root, manifest.id);
  }

  /** A new copy's folder (ids sort by start time, to the millisecond). */
  static create(
    stateDir: string,
    from: string,
    to: string,
    options: { plan: boolean; since: boolean },
  ): CopyFolder {
    const root = path.join(stateDir, 'copies');
    const now = new Date();
    const id = `${now.toISOString().replace(/[-:]/g, '').replace('T', '-').replace('.', '-').slice(0, 19)}-${process.pid}`;
    const folder = new CopyFolder(root, {
      id,
      from,
      to,
      plan: options.plan,
      since: options.since,
      startedAt: now.toISOString(),
      state: 'running',
      steps: {},
      marks: {},
    });
    prune(root, KEEP_COPIES);
    mkdirSync(folder.dir, { recursive: true });
    folder.save();
    return folder;
  }

  /**
   * Marks the copy finished and removes its exported files: they are a copy of the source catalog,
   * needed only to resume. The reports stay.
   */
  finish(): void {
    this.manifest.state = 'finished';
    this.save();
    for (const name of readdirSync(this.dir)) {
      if (name.endsWith('.ndjson')) rmSync(path.join(this.dir, name), { force: true });
    }
  }

  /** The last unfinished copy between the two tenants (or the one named). */
  static resume(stateDir: string, from: string, to: string, id?: string): CopyFolder {
    const root = path.join(stateDir, 'copies');
    const ids = copyIds(root) ?? [];
    for (const candidate of id ? [id] : ids) {
      const manifest = readManifest(path.join(root, candidate, 'copy.json'));
      if (!manifest) continue;
      if (manifest.from !== from || manifest.to !== to) {
        if (id)
          throw new CatalogIoError('CONFIG_INVALID', `--resume ${id}: that copy ran between other tenants`);
        continue;
      }
      if (manifest.state === 'finished') {
        if (id)
          throw new CatalogIoError('CONFIG_INVALID', `--resume ${id}: that copy finished; run copy again`);
        continue;
      }
      return new CopyFolder(root, manifest);
    }
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `--resume: no unfinished copy from ${from} to ${to} in ${root}; run copy without --resume`,
    );
  }

  file(name: string): string {
    return path.join(this.dir, name);
  }

  step(name: string): StepState {
    return this.manifest.steps[name] ?? 'pending';
  }

  mark(step: string, state: StepState): void {
    this.manifest.steps[step] = state;
    this.save();
  }

  save(): void {
    atomicJson(path.join(this.dir, 'copy.json'), this.manifest);
  }
}

/** Where the last finished copy between two tenants stood: `--since` reads it. */
export class CopyMarks {
  private readonly file: string;

  constructor(stateDir: string, from: string, to: string) {
    this.file = path.join(stateDir, 'copies', `${safe(from)}--${safe(to)}.json`);
  }

  read(): Record<string, string> {
    return (readManifest(this.file) as unknown as Record<string, string>) ?? {};
  }

  write(marks: Record<string, string>): void {
    atomicJson(this.file, marks);
  }
}

/** Removes the oldest finished copies beyond `keep` (unfinished ones stay: they can be resumed). */
function prune(root: string, keep: number): void {
  const ids = copyIds(root);
  if (!ids) return;
  const finished = ids.filter((id) => readManifest(path.join(root, id, 'copy.json'))?.state === 'finished');
  for (const id of finished.slice(keep)) rmSync(path.join(root, id), { recursive: true, force: true });
}

function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

function readManifest(file: string): CopyManifest | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as CopyManifest;
  } catch {
    return undefined;
  }
}

function atomicJson(file: string, value: unknown): void {
  replaceFileSync(file, jsonText(value));
}

/** The copy folders' ids, newest first (ids start with their time); undefined when there are none yet. */
function copyIds(root: string): string[] | undefined {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
      .reverse();
  } catch {
    return undefined;
  }
}
