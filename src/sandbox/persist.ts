// The sandbox's state on disk: one JSON snapshot of every stateful service, written atomically
// (temporary file + rename) shortly after each change, and once more on close.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxService } from './http.js';

const SNAPSHOT_VERSION = 1;
const DEBOUNCE_MS = 200;

interface SnapshotFile {
  version: number;
  savedAt: string;
  services: Record<string, unknown>;
}

export class Persistence {
  private timer: NodeJS.Timeout | undefined;
  private readonly file: string;

  constructor(
    private readonly dataDir: string,
    private readonly services: Record<string, SandboxService>,
  ) {
    this.file = join(dataDir, 'state.json');
  }

  /**
   * Restores every service that has saved state. Returns false when there is no snapshot (or one of
   * another version); throws when a service cannot read its part.
   */
  load(): boolean {
    let parsed: SnapshotFile;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8')) as SnapshotFile;
    } catch {
      return false;
    }
    if (parsed?.version !== SNAPSHOT_VERSION || typeof parsed.services !== 'object') return false;
    for (const [name, service] of Object.entries(this.services)) {
      const state = parsed.services[name];
      if (state !== undefined && service.restore) service.restore(state);
    }
    return true;
  }

  markDirty(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.save();
    }, DEBOUNCE_MS);
    this.timer.unref();
  }

  save(): void {
    const services: Record<string, unknown> = {};
    for (const [name, service] of Object.entries(this.services)) {
      if (service.snapshot) services[name] = service.snapshot();
    }
    const body: SnapshotFile = { version: SNAPSHOT_VERSION, savedAt: new Date().toISOString(), services };
    mkdirSync(this.dataDir, { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(body));
    renameSync(tmp, this.file);
  }

  /** Writes any pending change now. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.save();
    }
  }
}
