// Full sync (`--missing delete`): after a feed that is the whole catalog of an entity, the records of
// that entity whose ref the feed did not name are deleted (a product's variants first). The refs seen
// are read back from the journal, not kept in memory: both sides are split by a hash of the ref into
// bucket files, and one bucket of seen refs at a time is held to check the tenant's refs against.
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { CatalogClient } from '../../api/catalog.js';
import { recordPath } from '../../api/catalog.js';
import { ApiError } from '../../api/errors.js';
import { JournalWriter, readJournal } from '../../runs/journal.js';
import type { EntityModel, TenantModel } from '../../schema/model.js';
import type { ImportReportLine } from '../../writers/import-report.js';
import { mapConcurrent } from './concurrent.js';
import { deleteVariantsOf } from './delete.js';
import { EMPTY_LINE } from './report-line.js';

export type MaxMissing = { count: number } | { percent: number };

export interface FullSyncOptions {
  catalog: CatalogClient;
  model: TenantModel;
  entity: EntityModel;
  journalFile: string;
  /** A folder for the bucket files (removed afterwards). */
  workDir: string;
  maxMissing: MaxMissing;
  keepVariants: boolean;
  plan: boolean;
  concurrency: number;
  /** One report line per record deleted (or that would be). */
  record: (line: ImportReportLine) => void;
}

export interface FullSyncResult {
  /** Records of the entity in the tenant. */
  total: number;
  missing: number;
  deleted: number;
  failed: number;
  /** Set when more were missing than allowed: nothing was deleted. */
  guard?: string;
  /**
   * The deletions stopped before their end: a signal, or the service gone past the outage budget. The
   * records not deleted are `not-attempted` in the report, and the run ends interrupted.
   */
  stoppedBy?: 'signal' | 'outage';
}

/** Seen refs held at once, at most (about 100 bytes each). */
const BUCKET_REFS = 500_000;

export async function retireMissing(o: FullSyncOptions): Promise<FullSyncResult> {
  await mkdir(o.workDir, { recursive: true });
  try {
    return await run(o);
  } finally {
    await rm(o.workDir, { recursive: true, force: true });
  }
}

async function run(o: FullSyncOptions): Promise<FullSyncResult> {
  const { entity } = o;
  // A journal line is at least ~100 bytes per row: this bounds the refs per bucket.
  const buckets = Math.max(1, Math.ceil((await stat(o.journalFile)).size / 100 / BUCKET_REFS));
  const seenFiles = openBuckets(o.workDir, 'seen', buckets);
  const prefix = `${entity.name}\u0000`;
  for await (const record of readJournal(o.journalFile)) {
    if (record.t !== 'row') continue;
    const refs = record.refs ?? (record.line.entity === entity.name ? [`${prefix}${record.line.ref}`] : []);
    for (const key of refs) {
      if (!key.startsWith(prefix)) continue;
      const ref = key.slice(prefix.length);
      seenFiles[bucketOf(ref, buckets)]!.appendText(`${JSON.stringify(ref)}\n`);
    }
  }
  for (const f of seenFiles) f.close();

  const tenantFiles = openBuckets(o.workDir, 'tenant', buckets);
  let total = 0;
  for await (const r of o.catalog.list<Record<string, unknown>>(entity.path, {
    query: { $select: `${entity.idField},${entity.refField}` },
  })) {
    const ref = r[entity.refField];
    if (ref === null || ref === undefined || ref === '') continue;
    total += 1;
    tenantFiles[bucketOf(String(ref), buckets)]!.appendText(
      `${JSON.stringify([String(ref), r[entity.idField]])}\n`,
    );
  }
  for (const f of tenantFiles) f.close();

  const missingFile = new JournalWriter(path.join(o.workDir, 'missing.jsonl'));
  let missing = 0;
  for (let b = 0; b < buckets; b++) {
    const seen = new Set<string>();
    for await (const text of lines(seenFiles[b]!.file)) seen.add(JSON.parse(text) as string);
    for await (const text of lines(tenantFiles[b]!.file)) {
      const [ref] = JSON.parse(text) as [string, number | string];
      if (!seen.has(ref)) {
        missingFile.appendText(`${text}\n`);
        missing += 1;
      }
    }
  }
  missingFile.close();

  const allowed =
    'count' in o.maxMissing ? o.maxMissing.count : Math.floor((total * o.maxMissing.percent) / 100);
  const limit = 'count' in o.maxMissing ? String(o.maxMissing.count) : `${o.maxMissing.percent}%`;
  const guard =
    missing > allowed
      ? `${missing} of ${total} ${entity.name} are not in the feed, more than --max-missing ${limit} allows (${allowed}): nothing was deleted`
      : undefined;
  const result: FullSyncResult = { total, missing, deleted: 0, failed: 0, ...(guard && { guard }) };
  const base = { ...EMPTY_LINE, location: 'not in the feed', entity: entity.name };
  let chunk: Array<[string, number | string]> = [];
  const notTried = (ref: string, id: number | string) =>
    o.record({
      ...base,
      ref,
      id: String(id),
      outcome: 'not-attempted',
      message:
        result.stoppedBy === 'outage'
          ? 'not deleted: the service could not be reached; the next full run deletes it'
          : 'not deleted: the run was stopped; the next full run deletes it',
    });
  const deleteChunk = async () => {
    await mapConcurrent(chunk, o.concurrency, async ([ref, id]) => {
      if (result.stoppedBy) {
        notTried(ref, id);
        return;
      }
      if (guard || o.plan) {
        o.record({
          ...base,
          ref,
          id: String(id),
          outcome: 'would-delete',
          message: guard ?? 'not in the feed',
        });
        return;
      }
      try {
        let note = '';
        if (entity.kind === 'products' && !o.keepVariants) {
          const removed = await deleteVariantsOf(o, entity, id);
          if (removed > 0) note = `; ${removed} variant(s) deleted with it`;
        }
        await o.catalog.delete(recordPath(entity.path, id));
        result.deleted += 1;
        o.record({
          ...base,
          ref,
          id: String(id),
          outcome: 'deleted',
          status: '204',
          message: `not in the feed${note}`,
        });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // Stopped or cut off: not this record's failure; the deletions end here.
        if (err.code === 'API_STOPPED' || err.code === 'API_UNREACHABLE') {
          result.stoppedBy ??= err.code === 'API_STOPPED' ? 'signal' : 'outage';
          notTried(ref, id);
          return;
        }
        result.failed += 1;
        o.record({
          ...base,
          ref,
          id: String(id),
          outcome: 'failed',
          message: `delete failed: ${err.code}: ${err.message}`,
        });
      }
    });
    chunk = [];
  };
  for await (const text of lines(path.join(o.workDir, 'missing.jsonl'))) {
    chunk.push(JSON.parse(text) as [string, number | string]);
    if (chunk.length >= 100) await deleteChunk();
  }
  await deleteChunk();
  return result;
}

function openBuckets(dir: string, name: string, n: number): JournalWriter[] {
  return Array.from({ length: n }, (_, i) => new JournalWriter(path.join(dir, `${name}-${i}.jsonl`)));
}

function bucketOf(ref: string, n: number): number {
  if (n === 1) return 0;
  // FNV-1a: a cheap, even spread of refs over the buckets.
  let h = 0x811c9dc5;
  for (let i = 0; i < ref.length; i++) h = Math.imul(h ^ ref.charCodeAt(i), 0x01000193);
  return (h >>> 0) % n;
}

function lines(file: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
}
