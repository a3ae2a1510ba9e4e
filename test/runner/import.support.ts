// Shared helpers of the import suite: a library connection to a test sandbox, feeds in a temp dir,
// the sandbox's request counters, and reading the tenant back over real HTTP.
import { mkdtempSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { type Connection, connect } from '../../src/config/index.js';
import type { Profile } from '../../src/mappers/profile-types.js';
import { type ImportOptions, type ImportSummary, importFile } from '../../src/runner/import/run.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call } from '../helpers/sandbox.js';

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

/** A connection to the test sandbox, without the client-side 50/10 s pacing (the sandbox decides). */
export function connectTo(
  sb: SandboxHandle,
  extra: {
    concurrency?: number;
    rateLimit?: { requests: number; windowSeconds: number } | null;
    /** The client's waits (backoff, Retry-After) at this fraction of real time: CATALOG_IO_TEST_TIME_SCALE. */
    timeScale?: number;
  } = {},
): Promise<Connection> {
  const { timeScale, ...settings } = extra;
  return connect({
    settings: {
      catalogUrl: sb.catalogUrl,
      damUrl: sb.damUrl,
      apiKey: sb.apiKey,
      rateLimit: null,
      ...settings,
    },
    env: timeScale === undefined ? {} : { CATALOG_IO_TEST_TIME_SCALE: String(timeScale) },
  });
}

export type RunOptions = Partial<Omit<ImportOptions, 'source' | 'model' | 'catalog' | 'dam' | 'profile'>> & {
  profile?: Profile;
  entity?: string;
  /** The client's own pacing (default off). */
  rateLimit?: { requests: number; windowSeconds: number } | null;
  /** The client's waits at this fraction of real time (default: real time). */
  timeScale?: number;
};

/** importFile over a fresh connection (its own counters), closed afterwards. */
export async function importWith(
  sb: SandboxHandle,
  source: string,
  options: RunOptions = {},
): Promise<ImportSummary> {
  const { entity, profile, rateLimit, timeScale, ...rest } = options;
  // `concurrency` caps the connection's requests in flight too (1: a seeded faulty sandbox repeats exactly).
  const connection = await connectTo(sb, {
    ...(rateLimit !== undefined && { rateLimit }),
    ...(timeScale !== undefined && { timeScale }),
    ...(rest.concurrency !== undefined && { concurrency: rest.concurrency }),
  });
  try {
    return await importFile({
      source,
      profile: profile ?? { entity: entity ?? 'products' },
      model: await connection.tenant.model(),
      catalog: connection.catalog,
      dam: () => connection.dam,
      counters: () => connection.snapshot(),
      ...rest,
    });
  } finally {
    await connection.close();
  }
}

export async function writeFeed(dir: string, name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

export interface Stats {
  total: number;
  byMethod: Record<string, number>;
  byStatus: Record<string, number>;
  /** `catalog` and `dam`. */
  byService: Record<string, number>;
}

export async function stats(sb: SandboxHandle): Promise<Stats> {
  return (await call(sb.origin, '/_sandbox/stats')).body as Stats;
}

export async function resetStats(sb: SandboxHandle): Promise<void> {
  await call(sb.origin, '/_sandbox/stats/reset', { method: 'POST' });
}

export const writesOf = (s: Stats) =>
  (s.byMethod.POST ?? 0) + (s.byMethod.PATCH ?? 0) + (s.byMethod.DELETE ?? 0);

/** Every record of a catalog collection (paged by the API's own links), read in one culture. */
export async function readAll(
  sb: SandboxHandle,
  path: string,
  culture = 'en',
): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let next: string | undefined = `${sb.catalogUrl}${path}${path.includes('?') ? '&' : '?'}$top=100`;
  while (next) {
    const res = await patientGet(next, sb.apiKey, culture);
    const body = res.body as { value: Array<Record<string, unknown>>; '@nextLink'?: string };
    out.push(...body.value);
    next = body['@nextLink'];
  }
  return out;
}

/** A GET that waits out the faults a test sandbox may be set to inject (429, 5xx, resets). */
async function patientGet(
  url: string,
  key: string,
  culture: string,
): Promise<Awaited<ReturnType<typeof call>>> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await call(url, '', { key, headers: { 'accept-language': culture } });
      if (res.status === 200) return res;
      if (attempt >= 20 || (res.status !== 429 && res.status < 500)) {
        throw new Error(`GET ${url}: ${res.status} ${res.text}`);
      }
      await sleep(res.status === 429 ? 1000 : 50);
    } catch (err) {
      if (attempt >= 20 || !(err instanceof Error) || err.message.startsWith('GET ')) throw err;
      await sleep(50);
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records by their ref field. */
export async function byRef(
  sb: SandboxHandle,
  path: string,
  refField: string,
  culture = 'en',
): Promise<Map<string, Record<string, unknown>>> {
  const records = await readAll(sb, path, culture);
  return new Map(records.map((r) => [String(r[refField]), r]));
}

/** DAM images by reference (each page of 100). */
export async function damImages(sb: SandboxHandle): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for (let skip = 0; ; skip += 100) {
    const res = await patientGet(`${sb.damUrl}/images?$top=100&$skip=${skip}`, sb.apiKey, 'en');
    const page = (res.body as { value: Array<Record<string, unknown>> }).value;
    out.push(...page);
    if (page.length < 100) return out;
  }
}

export async function readCsv(file: string): Promise<Array<Record<string, string>>> {
  const parsed = Papa.parse<Record<string, string>>(await readFile(file, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  });
  return parsed.data;
}
