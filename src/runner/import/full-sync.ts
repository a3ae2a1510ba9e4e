// Full sync (`--missing delete`): after a feed that is the whole catalog of an entity, the records of
// that entity whose ref the feed did not name are deleted (a product's variants first). A products feed
// that carries variants (one row per variant) is also the whole list of its products' variants: the
// variants of the products in the feed that the feed no longer names are deleted too (the variants of
// a product not in the feed go with it). The refs seen are read back from the journal, not kept in
// memory: both sides are split by a hash of the ref into bucket files, and one bucket of seen refs at a
// time is held to check the tenant's refs against. The tenant's refs cost one paged list per entity.
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
  /**
   * The variants entity, when the feed carries variants (a products profile with `variants`): the
   * variants of the products in the feed that the feed does not name are retired too.
   */
  variants?: EntityModel;
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

/** What the full sync found and did for one entity. */
export interface FullSyncCounts {
  /** Records of the entity in the tenant. */
  total: number;
  missing: number;
  deleted: number;
  failed: number;
}

export interface FullSyncResult extends FullSyncCounts {
  /**
   * The feed carried variants: the variants of products in the feed that it no longer names (`total`:
   * every variant in the tenant). Not counted in the products' numbers above.
   */
  variants?: FullSyncCounts;
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

/** A record of the tenant not in the feed: its ref, id and entity; a variant's product ref too. */
type Missing = [ref: string, id: number | string, entity: string, productRef?: string];

async function run(o: FullSyncOptions): Promise<FullSyncResult> {
  const { entity, variants } = o;
  const entities = variants ? [entity, variants] : [entity];
  // A journal line is at least ~100 bytes per row: this bounds the refs per bucket.
  const buckets = Math.max(1, Math.ceil((await stat(o.journalFile)).size / 100 / BUCKET_REFS));
  const seenFiles = await seenRefs(o, entities, buckets);
  const tenantFiles = new Map<string, JournalWriter[]>();
  const totals = new Map<string, number>();
  for (const e of entities) {
    const { files, total } = await tenantRefs(o, e, buckets);
    tenantFiles.set(e.name, files);
    totals.set(e.name, total);
  }

  // A variant not in the feed is missing only when its product is in the feed: the variants not seen
  // are put in buckets by their product's ref, to be checked with the products seen. A variant the
  // feed names keeps its product, also when no row of the feed drafts that product (a variation row
  // whose parent row is not in the file): the products of the variants seen count as seen.
  const unseenVariants = variants ? openBuckets(o.workDir, 'unseen-variants', buckets) : [];
  const productsOfSeenVariants = variants ? openBuckets(o.workDir, 'products-of-seen-variants', buckets) : [];
  if (variants) {
    for (let b = 0; b < buckets; b++) {
      const seen = await bucketSet(seenFiles.get(variants.name)![b]!);
      for await (const text of lines(tenantFiles.get(variants.name)![b]!.file)) {
        const [ref, , productRef] = JSON.parse(text) as [string, number | string, string];
        // A variant without a product has no product in the feed: nothing here says it should go.
        if (productRef === '') continue;
        if (seen.has(ref))
          productsOfSeenVariants[bucketOf(productRef, buckets)]!.appendText(
            `${JSON.stringify(productRef)}\n`,
          );
        else unseenVariants[bucketOf(productRef, buckets)]!.appendText(`${text}\n`);
      }
    }
    for (const f of [...unseenVariants, ...productsOfSeenVariants]) f.close();
  }

  const missingFile = new JournalWriter(path.join(o.workDir, 'missing.jsonl'));
  const missing = new Map(entities.map((e) => [e.name, 0]));
  for (let b = 0; b < buckets; b++) {
    const seen = await bucketSet(seenFiles.get(entity.name)![b]!);
    if (variants) for await (const text of lines(productsOfSeenVariants[b]!.file)) seen.add(JSON.parse(text));
    for await (const text of lines(tenantFiles.get(entity.name)![b]!.file)) {
      const [ref, id] = JSON.parse(text) as [string, number | string];
      if (seen.has(ref)) continue;
      missingFile.appendText(`${JSON.stringify([ref, id, entity.name] satisfies Missing)}\n`);
      missing.set(entity.name, missing.get(entity.name)! + 1);
    }
    if (!variants) continue;
    for await (const text of lines(unseenVariants[b]!.file)) {
      const [ref, id, productRef] = JSON.parse(text) as [string, number | string, string];
      if (!seen.has(productRef)) continue;
      missingFile.appendText(`${JSON.stringify([ref, id, variants.name, productRef] satisfies Missing)}\n`);
      missing.set(variants.name, missing.get(variants.name)! + 1);
    }
  }
  missingFile.close();

  const counts = (e: EntityModel): FullSyncCounts => ({
    total: totals.get(e.name)!,
    missing: missing.get(e.name)!,
    deleted: 0,
    failed: 0,
  });
  const guards = entities.flatMap((e) => {
    const over = guardOf(o.maxMissing, e, totals.get(e.name)!, missing.get(e.name)!);
    return over ? [over] : [];
  });
  const guard = guards.length > 0 ? `${guards.join('; ')}: nothing was deleted` : undefined;
  const result: FullSyncResult = {
    ...counts(entity),
    ...(variants && { variants: counts(variants) }),
    ...(guard && { guard }),
  };
  const countsOf = (name: string) => (name === entity.name ? result : result.variants!);
  let chunk: Missing[] = [];
  const lineOf = ([ref, id, name]: Missing) => ({
    ...EMPTY_LINE,
    location: 'not in the feed',
    entity: name,
    ref,
    id: String(id),
  });
  const why = ([, , , productRef]: Missing) =>
    productRef === undefined ? 'not in the feed' : `not in the feed, its product ${productRef} is`;
  const notTried = (m: Missing) =>
    o.record({
      ...lineOf(m),
      outcome: 'not-attempted',
      message:
        result.stoppedBy === 'outage'
          ? 'not deleted: the service could not be reached; the next full run deletes it'
          : 'not deleted: the run was stopped; the next full run deletes it',
    });
  const deleteChunk = async () => {
    await mapConcurrent(chunk, o.concurrency, async (m) => {
      const [, id, name] = m;
      if (result.stoppedBy) {
        notTried(m);
        return;
      }
      if (guard || o.plan) {
        o.record({ ...lineOf(m), outcome: 'would-delete', message: guard ?? why(m) });
        return;
      }
      const target = name === entity.name ? entity : variants!;
      try {
        let note = '';
        if (target.kind === 'products' && !o.keepVariants) {
          const removed = await deleteVariantsOf(o, target, id);
          if (removed > 0) note = `; ${removed} variant(s) deleted with it`;
        }
        await o.catalog.delete(recordPath(target.path, id));
        countsOf(name).deleted += 1;
        o.record({ ...lineOf(m), outcome: 'deleted', status: '204', message: `${why(m)}${note}` });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // Stopped or cut off: not this record's failure; the deletions end here.
        if (err.code === 'API_STOPPED' || err.code === 'API_UNREACHABLE') {
          result.stoppedBy ??= err.code === 'API_STOPPED' ? 'signal' : 'outage';
          notTried(m);
          return;
        }
        countsOf(name).failed += 1;
        o.record({
          ...lineOf(m),
          outcome: 'failed',
          message: `delete failed: ${err.code}: ${err.message}`,
        });
      }
    });
    chunk = [];
  };
  for await (const text of lines(path.join(o.workDir, 'missing.jsonl'))) {
    chunk.push(JSON.parse(text) as Missing);
    if (chunk.length >= 100) await deleteChunk();
  }
  await deleteChunk();
  return result;
}

/** The records still to delete (not deleted, not failed) when the deletions stopped, every entity's. */
export function notDeleted(f: FullSyncResult): number {
  return [f, ...(f.variants ? [f.variants] : [])].reduce((n, c) => n + c.missing - c.deleted - c.failed, 0);
}

/** Why an entity's missing records may not go (more than --max-missing), or nothing. */
function guardOf(max: MaxMissing, entity: EntityModel, total: number, missing: number): string | undefined {
  const allowed = 'count' in max ? max.count : Math.floor((total * max.percent) / 100);
  if (missing <= allowed) return undefined;
  const limit = 'count' in max ? String(max.count) : `${max.percent}%`;
  const which = entity.kind === 'variants' ? `${entity.name} of products in the feed` : entity.name;
  return `${missing} of ${total} ${which} are not in the feed, more than --max-missing ${limit} allows (${allowed})`;
}

/**
 * The refs the feed named, one bucket file set per entity, read from the journal's row lines: a row of
 * several drafts lists their refs, a row of one draft names it in its report line.
 */
async function seenRefs(
  o: FullSyncOptions,
  entities: EntityModel[],
  buckets: number,
): Promise<Map<string, JournalWriter[]>> {
  const files = new Map(entities.map((e) => [e.name, openBuckets(o.workDir, `seen-${e.name}`, buckets)]));
  // Refs of other entities (a category a row names) are not this full sync's.
  const see = (name: string, ref: string) =>
    files.get(name)?.[bucketOf(ref, buckets)]?.appendText(`${JSON.stringify(ref)}\n`);
  for await (const record of readJournal(o.journalFile)) {
    if (record.t !== 'row') continue;
    if (!record.refs) {
      see(record.line.entity, record.line.ref);
      continue;
    }
    for (const key of record.refs) {
      const at = key.indexOf('\u0000');
      see(key.slice(0, at), key.slice(at + 1));
    }
  }
  for (const list of files.values()) for (const f of list) f.close();
  return files;
}

/**
 * The tenant's records of an entity, in buckets by ref (`[ref, id]`; a variant's product ref third):
 * one paged list that selects only those fields.
 */
async function tenantRefs(
  o: FullSyncOptions,
  entity: EntityModel,
  buckets: number,
): Promise<{ files: JournalWriter[]; total: number }> {
  const files = openBuckets(o.workDir, `tenant-${entity.name}`, buckets);
  // A variant's product ref: the field of its own that the tenant derives from its product (`prod_ref`).
  const productRefField = entity === o.variants ? o.entity.refField : undefined;
  let total = 0;
  for await (const r of o.catalog.list<Record<string, unknown>>(entity.path, {
    query: {
      $select: [entity.idField, entity.refField, ...(productRefField ? [productRefField] : [])].join(','),
    },
  })) {
    const ref = r[entity.refField];
    if (ref === null || ref === undefined || ref === '') continue;
    total += 1;
    const entry: unknown[] = [String(ref), r[entity.idField]];
    if (productRefField) entry.push(String(r[productRefField] ?? ''));
    files[bucketOf(String(ref), buckets)]!.appendText(`${JSON.stringify(entry)}\n`);
  }
  for (const f of files) f.close();
  return { files, total };
}

async function bucketSet(file: JournalWriter): Promise<Set<string>> {
  const seen = new Set<string>();
  for await (const text of lines(file.file)) seen.add(JSON.parse(text) as string);
  return seen;
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
