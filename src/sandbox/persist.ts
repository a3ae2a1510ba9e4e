// The sandbox's state on disk: a snapshot of every stateful service (`state.json`) and an append-only
// write log after it (`writes.<generation>.log`, one JSON operation per line). A write request is
// answered only once its operations are in the log and fsync'd, so `kill -9` after an answer loses
// nothing; the requests that change state while one fsync runs share the next one (group commit), and
// a write costs the size of its operations, not of the state. When the log has grown past the
// snapshot's size, a new snapshot is written beside a fresh log (compaction). Start-up reads the
// snapshot, replays the logs it names, and compacts.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxService } from './http.js';

/** 1: a snapshot only. 2: a snapshot and the logs from `log` on. Both are read. */
const SNAPSHOT_VERSION = 2;
/** Changes not tied to a request (image processing) are logged this soon. */
const BACKGROUND_COMMIT_MS = 20;

interface SnapshotFile {
  version: number;
  savedAt: string;
  /** The first log generation to replay after this snapshot. */
  log?: number;
  services: Record<string, unknown>;
}

interface LogLine {
  /** The service that drained the operation. */
  s: string;
  op: unknown;
}

export class Persistence {
  private readonly file: string;
  /** The generation appended to. */
  private generation = 1;
  private log: FileHandle | undefined;
  private logBytes = 0;
  private snapshotBytes = 0;
  /** Lines drained but not yet written; `drained` counts every line ever drained, `durable` those fsync'd. */
  private pending: string[] = [];
  private drained = 0;
  private durable = 0;
  private readonly waiters: Array<{ upTo: number; resolve: () => void; reject: (err: Error) => void }> = [];
  private writing: Promise<void> | undefined;
  private compacting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failed: Error | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly services: Record<string, SandboxService>,
    /** The log is compacted into a new snapshot once it is this large and larger than the snapshot. */
    private readonly compactLogBytes: number,
  ) {
    this.file = join(dataDir, 'state.json');
  }

  /**
   * Restores every service from the snapshot and replays the write logs after it. Returns false when
   * there is no snapshot (or one of an unknown version); throws when a service cannot read its part.
   */
  load(): boolean {
    let parsed: SnapshotFile;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8')) as SnapshotFile;
    } catch {
      return false;
    }
    if (
      (parsed?.version !== 1 && parsed?.version !== SNAPSHOT_VERSION) ||
      typeof parsed.services !== 'object'
    )
      return false;
    for (const [name, service] of Object.entries(this.services)) {
      const state = parsed.services[name];
      if (state !== undefined && service.restore) service.restore(state);
    }
    const first = parsed.log ?? 1;
    for (const generation of this.logGenerations().filter((g) => g >= first)) this.replay(generation);
    return true;
  }

  /**
   * Starts logging: a fresh snapshot of the state as it is now (seeded, or restored and replayed)
   * with an empty log after it; older logs are removed. Call once, after load().
   */
  start(): void {
    mkdirSync(this.dataDir, { recursive: true });
    const generations = this.logGenerations();
    this.generation = Math.max(0, ...generations) + 1;
    this.writeSnapshot(this.snapshotText(this.generation));
    for (const g of generations) unlinkSync(this.logFile(g));
    for (const service of Object.values(this.services)) service.journal?.track();
  }

  /** A change not tied to a request (background work): logged shortly. */
  markDirty(): void {
    if (this.timer || !this.log) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.commit().catch(() => undefined);
    }, BACKGROUND_COMMIT_MS);
    this.timer.unref();
  }

  /** Resolves once every change made so far is in the log and on disk. */
  commit(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    this.collect();
    const upTo = this.drained;
    if (this.durable >= upTo) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ upTo, resolve, reject }));
    this.kick();
    return done;
  }

  /** Logs what is left and closes the log (the snapshot stays as it is: the log completes it). */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.commit().catch(() => undefined);
    await this.writing;
    await this.compacting;
    await this.log?.close();
    this.log = undefined;
  }

  // -- the log ------------------------------------------------------------------------------------

  private collect(): void {
    for (const [name, service] of Object.entries(this.services)) {
      const ops = service.journal?.drain();
      if (!ops || ops.length === 0) continue;
      for (const op of ops) this.pending.push(`${JSON.stringify({ s: name, op } satisfies LogLine)}\n`);
      this.drained += ops.length;
    }
  }

  /** One writer at a time; whatever was drained meanwhile goes in the next write and fsync. */
  private kick(): void {
    if (this.writing || this.pending.length === 0) return;
    this.writing = this.writeBatch().finally(() => {
      this.writing = undefined;
      if (this.pending.length > 0 && !this.failed) this.kick();
    });
  }

  private async writeBatch(): Promise<void> {
    const text = this.pending.join('');
    this.pending = [];
    const upTo = this.drained;
    try {
      this.log ??= await open(this.logFile(this.generation), 'a');
      const bytes = Buffer.from(text, 'utf8');
      await this.log.write(bytes);
      await this.log.datasync();
      this.logBytes += bytes.length;
    } catch (err) {
      // Nothing is acknowledged that is not on disk: every waiting and later write fails.
      this.failed = new Error(
        `the sandbox cannot write its log in ${this.dataDir}: ${(err as Error).message}`,
      );
      for (const w of this.waiters.splice(0)) w.reject(this.failed);
      return;
    }
    this.durable = upTo;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (w.upTo <= upTo) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
    if (!this.compacting && this.logBytes >= Math.max(this.compactLogBytes, this.snapshotBytes)) {
      await this.compact();
    }
  }

  /**
   * Switches to a new log generation and takes a snapshot of the state as it is now, naming it; the
   * snapshot is written in the background while later writes go to the new log. Changes made before
   * the snapshot but drained after it are in both, which replay allows. Until the new snapshot is in
   * place, the old one and every log since are what a restart reads.
   */
  private async compact(): Promise<void> {
    const old = this.log;
    const oldGeneration = this.generation;
    this.log = await open(this.logFile(oldGeneration + 1), 'a');
    this.generation = oldGeneration + 1;
    this.logBytes = 0;
    const text = this.snapshotText(this.generation);
    await old?.close();
    this.compacting = this.writeSnapshotInBackground(text)
      .then(() => unlinkSync(this.logFile(oldGeneration)))
      // A snapshot that could not be written leaves the old one and the logs, which still hold everything.
      .catch(() => undefined)
      .finally(() => {
        this.compacting = undefined;
      });
  }

  private replay(generation: number): void {
    const text = readFileSync(this.logFile(generation), 'utf8');
    let start = 0;
    while (start < text.length) {
      const end = text.indexOf('\n', start);
      // A line without its newline was being written when the process died: never acknowledged.
      if (end === -1) break;
      const line = JSON.parse(text.slice(start, end)) as LogLine;
      start = end + 1;
      const journal = this.services[line.s]?.journal;
      if (!journal) throw new Error(`the write log names a service this sandbox does not have: ${line.s}`);
      journal.apply(line.op);
    }
  }

  // -- the snapshot -------------------------------------------------------------------------------

  private snapshotText(log: number): string {
    const services: Record<string, unknown> = {};
    for (const [name, service] of Object.entries(this.services)) {
      if (service.snapshot) services[name] = service.snapshot();
    }
    const body: SnapshotFile = {
      version: SNAPSHOT_VERSION,
      savedAt: new Date().toISOString(),
      log,
      services,
    };
    return JSON.stringify(body);
  }

  /** Atomically: a temporary file, fsync'd, renamed over the old one, and the folder fsync'd. */
  private writeSnapshot(text: string): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    this.syncFolder();
    this.snapshotBytes = Buffer.byteLength(text);
  }

  private async writeSnapshotInBackground(text: string): Promise<void> {
    const tmp = `${this.file}.${process.pid}.tmp`;
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    renameSync(tmp, this.file);
    this.syncFolder();
    this.snapshotBytes = Buffer.byteLength(text);
  }

  private syncFolder(): void {
    const fd = openSync(this.dataDir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  private logFile(generation: number): string {
    return join(this.dataDir, `writes.${generation}.log`);
  }

  private logGenerations(): number[] {
    let names: string[];
    try {
      names = readdirSync(this.dataDir);
    } catch {
      return [];
    }
    return names
      .map((n) => /^writes\.(\d+)\.log$/.exec(n)?.[1])
      .filter((g): g is string => g !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }
}
