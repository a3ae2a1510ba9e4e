// `--resume`: which run an import continues, checked before anything changes. The run's journal is
// read whole first (a missing, cut or damaged one is JOURNAL_INVALID and nothing is touched, the
// report included); then the source: a file by its hash, a source read once (stdin, a URL) by
// reading it again into a spool file and comparing its bytes with the journal's last checkpoint.
// `--resume <id>` refuses what does not match; a bare `--resume` (a cron line's) starts a new run
// instead, and says why in one line.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CatalogIoError } from '../../errors.js';
import { openSourceBytes } from '../../readers/open.js';
import type { ReaderOptions } from '../../readers/options.js';
import { journalInvalid, readJournal } from '../../runs/journal.js';
import type { RunMeta, RunRegistry } from '../../runs/registry.js';
import { identityChange, type SourceIdentity } from '../../runs/source-identity.js';

/** What a resume learns from the journal before it changes anything. */
export interface JournalScan {
  /** Rows finished (a resume skips them). */
  done: number;
  /** Rows recorded but to be tried again (not attempted, or failed because the service did). */
  again: number;
  /** The attempt read the whole source (it recorded the rows it did not attempt). */
  readAll: boolean;
  /** A source read once: the last checkpoint, and how many records come before it (those a resume keeps). */
  checkpoint?: { bytes: number; hash: string; records: number };
}

/** A source read once, read again into a local file for a resume. */
export interface Spool {
  dir: string;
  file: string;
  /** All its bytes: the resumed attempt's checkpoint. */
  bytes: number;
  hash: string;
}

export type RunChoice =
  | { kind: 'resume'; meta: RunMeta; scan: JournalScan; spool?: Spool }
  | { kind: 'fresh'; note?: string; abandon?: RunMeta; spool?: Spool };

export interface ResumeRequest {
  registry: RunRegistry;
  /** A run id, or true for the last unfinished run of this source and profile. */
  resume: boolean | string;
  identity: SourceIdentity;
  profileHash: string;
  tenant: string;
  /** The source as given (a spool reads it again) and how it is read. */
  source: string;
  readerOptions?: ReaderOptions;
}

/** Decides what `--resume` continues; a strict resume that cannot be done throws, coded. */
export async function chooseRun(request: ResumeRequest): Promise<RunChoice> {
  const { registry, identity } = request;
  const strict = typeof request.resume === 'string';
  let meta: RunMeta | undefined;
  if (strict) {
    meta = await registry.read(request.resume as string);
    if (!meta)
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--resume ${request.resume}: no such run in ${registry.root}`,
      );
    registry.checkResumable(meta);
  } else {
    meta = (await registry.list()).find(
      (r) =>
        r.identity.key === identity.key &&
        r.profileHash === request.profileHash &&
        r.tenant === request.tenant &&
        r.state !== 'finished' &&
        r.state !== 'running' &&
        r.state !== 'abandoned',
    );
    if (!meta)
      return {
        kind: 'fresh',
        note: `--resume: no unfinished run of ${identity.key} with this profile to resume; starting a new run`,
      };
  }
  const refuse = (why: string, code: 'CONFIG_INVALID' | 'SOURCE_CHANGED' = 'CONFIG_INVALID') =>
    new CatalogIoError(
      code,
      `Cannot resume run ${meta!.runId}: ${why}. Run the import again without --resume (rows already in the tenant come back unchanged)`,
    );
  if (strict) {
    if (meta.profileHash !== request.profileHash)
      throw refuse('the profile (or --entity, --mode) changed since the run started');
    if (meta.tenant !== request.tenant) throw refuse('it ran against another tenant');
    if (meta.identity.key !== identity.key) throw refuse(`the source was ${meta.identity.key}`);
  }
  // The journal first: a damaged one stops here, before the source is read or anything is written.
  // run.json as written (not as listed: a killed run lists as crashed, but wrote no end).
  const ended = ((await registry.read(meta.runId)) ?? meta).state !== 'running';
  const scan = await scanJournal(registry.journalFile(meta.runId), meta, registry.root, ended);
  let changed = identityChange(meta.identity, identity);
  let spool: Spool | undefined;
  if (!changed && identity.stream) {
    const checked = await spoolSource(request.source, request.readerOptions, scan.checkpoint, strict);
    spool = checked.spool;
    changed = checked.changed;
  }
  if (!changed) return { kind: 'resume', meta, scan, ...(spool && { spool }) };
  if (strict) {
    if (spool) await rm(spool.dir, { recursive: true, force: true });
    throw refuse(changed, 'SOURCE_CHANGED');
  }
  return {
    kind: 'fresh',
    note: `--resume: ${changed}, so run ${meta.runId} cannot be continued: it is marked abandoned; starting a new run`,
    abandon: meta,
    ...(spool && { spool }),
  };
}

/**
 * Reads the whole journal and checks it: its first line names the run, every complete line is a
 * record of the right shape, and an attempt that ended (not killed) wrote its `end` line last.
 */
export async function scanJournal(
  file: string,
  meta: RunMeta,
  root: string,
  endedRun: boolean,
): Promise<JournalScan> {
  const advice = (problem: string) => {
    const err = journalInvalid(file, problem);
    return new CatalogIoError(
      'JOURNAL_INVALID',
      `Cannot resume run ${meta.runId}: ${err.message}. Nothing was changed (the report neither). Run the import again without --resume to start over (rows already in the tenant come back unchanged), or restore ${path.relative(root, file)} if you have a copy`,
    );
  };
  const scan: JournalScan = { done: 0, again: 0, readAll: false };
  let records = 0;
  let cut: number | undefined;
  let ended: number | undefined;
  let lines = 0;
  try {
    for await (const record of readJournal(file, {
      onCut: (line) => {
        cut = line;
      },
    })) {
      records += 1;
      if (records === 1 && (record.t !== 'start' || record.run !== meta.runId))
        throw advice(
          record.t === 'start'
            ? `belongs to run ${record.run}`
            : 'does not start with its run line (it was cut at its start or replaced)',
        );
      if (ended !== undefined && record.t !== 'end' && record.t !== 'src') ended = undefined;
      switch (record.t) {
        case 'row':
          lines += 1;
          if (record.retry) scan.again += 1;
          else scan.done += 1;
          break;
        case 'na':
          lines += 1;
          scan.again += 1;
          scan.readAll = true;
          break;
        case 'src':
          scan.checkpoint = { bytes: record.bytes, hash: record.hash, records };
          break;
        case 'end':
          if (record.rows !== lines)
            throw advice(`says ${record.rows} rows at its end but holds ${lines} (lines are missing)`);
          ended = records;
          break;
      }
    }
  } catch (err) {
    if (err instanceof CatalogIoError && err.code === 'JOURNAL_INVALID' && !err.message.startsWith('Cannot'))
      throw advice(err.message.replace(/^The run journal \S+ /, ''));
    throw err;
  }
  if (records === 0) throw advice('is empty (it was cut at its start)');
  // A run that ended wrote its `end` line last; a kill may cut the last line of a running one, no other.
  if (endedRun && (cut !== undefined || ended === undefined))
    throw advice(
      cut !== undefined
        ? `ends in a cut line (line ${cut}) although the run ended`
        : 'has no end line although the run ended: it was cut short',
    );
  return scan;
}

/**
 * Reads a source that cannot be read twice into a local file, hashing its bytes: `changed` says why
 * it is not the source the journal's checkpoint saw. `stopOnChange`: stop reading as soon as the
 * bytes differ (a strict resume); else the whole source is kept for the new run that reads it.
 */
export async function spoolSource(
  spec: string,
  readerOptions: ReaderOptions | undefined,
  checkpoint: { bytes: number; hash: string } | undefined,
  stopOnChange: boolean,
): Promise<{ spool?: Spool; changed?: string }> {
  const bytes = await openSourceBytes(spec, readerOptions);
  const dir = await mkdtemp(path.join(tmpdir(), 'catalog-io-spool-'));
  const name = path.basename(bytes.fileName || '') || 'stdin';
  const file = path.join(dir, name);
  const out = createWriteStream(file);
  const hash = createHash('sha256');
  let total = 0;
  let changed: string | undefined;
  const compare = () => {
    if (!checkpoint || total !== checkpoint.bytes) return;
    if (hash.copy().digest('hex') !== checkpoint.hash)
      changed = `${bytes.name} is not the same: its first ${checkpoint.bytes} bytes differ from those the run read`;
  };
  try {
    compare();
    for await (const chunk of bytes.chunks) {
      if (changed && stopOnChange) break;
      let piece = chunk;
      // The checkpoint may fall inside a chunk: hash up to it, compare, then the rest.
      if (checkpoint && total < checkpoint.bytes && total + piece.length > checkpoint.bytes) {
        const head = piece.subarray(0, checkpoint.bytes - total);
        hash.update(head);
        total += head.length;
        if (!out.write(head)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
        compare();
        if (changed && stopOnChange) break;
        piece = piece.subarray(head.length);
      }
      hash.update(piece);
      total += piece.length;
      if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      compare();
    }
  } catch (err) {
    out.destroy();
    await bytes.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  await bytes.close();
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  if (!changed && checkpoint && total < checkpoint.bytes)
    changed = `${bytes.name} is shorter now (${total} bytes) than the ${checkpoint.bytes} bytes the run had read`;
  if (changed && stopOnChange) {
    await rm(dir, { recursive: true, force: true });
    return { changed };
  }
  return {
    spool: { dir, file, bytes: total, hash: hash.digest('hex') },
    ...(changed !== undefined && { changed }),
  };
}

/** The line a resumed run says first. */
export function resumingLine(meta: RunMeta, scan: JournalScan): string {
  const toGo = scan.readAll ? `${scan.again} to go` : 'the rest of the source to go';
  return `resuming run ${meta.runId}: ${scan.done} rows done, ${toGo}`;
}
