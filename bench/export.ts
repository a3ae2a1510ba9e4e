// Export benchmark, against in-process sandboxes on loopback:
//   1. requests of an export of N items in L languages, from the sandbox's counters, vs L x ceil(N/100) + c;
//   2. with the real service's limit (50 requests / 10 s) on both sides, the achieved request rate vs the
//      limit (it should stay at or above 90%: requests, not the client, are the bottleneck);
//   3. limit off and 20 ms latency per request: rows/s, and the share of the time spent inside the sink
//      (formatting and writing the XLSX) vs the whole export.
// Runnable alone (`npx tsx bench/export.ts`) or through `npm run bench export`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { connect } from '../src/config/index.js';
import { exportCatalog } from '../src/runner/export/index.js';
import { seedBulkProducts } from '../src/sandbox/catalog/index.js';
import { type SandboxHandle, type SandboxOptions, startSandbox } from '../src/sandbox/index.js';

const LANGUAGES = 3;

interface Measured {
  products: number;
  requests: number;
  seconds: number;
  sinkSeconds: number;
  rateLimited: number;
}

async function sandboxRequests(sb: SandboxHandle): Promise<number> {
  const res = await request(`${sb.origin}/_sandbox/stats`);
  return ((await res.body.json()) as { total: number }).total;
}

/** Counted with the read-only key: the service limits each key on its own, so the export's budget is untouched. */
async function productCount(sb: SandboxHandle): Promise<number> {
  const res = await request(`${sb.catalogUrl}/Products?$top=1`, {
    headers: { 'x-api-key': sb.readOnlyKey, 'accept-language': 'en' },
  });
  return ((await res.body.json()) as { '@count': number })['@count'];
}

/** Exports every product of a fresh sandbox holding `bulk` more than the demo's, to XLSX. */
async function measure(
  bulk: number,
  sandbox: SandboxOptions,
  rateLimit: { requests: number; windowSeconds: number } | null,
): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-io-bench-export-'));
  const sb = await startSandbox({ port: 0, ...sandbox });
  seedBulkProducts(sb.services.catalog, bulk);
  const connection = await connect({
    settings: { catalogUrl: sb.catalogUrl, apiKey: sb.apiKey, rateLimit },
    cwd: dir,
  });
  try {
    const model = await connection.tenant.model();
    const products = await productCount(sb);
    const before = await sandboxRequests(sb);
    const started = performance.now();
    const result = await exportCatalog({
      catalog: connection.catalog,
      model,
      tenant: 'bench',
      entities: ['products'],
      out: join(dir, 'products.xlsx'),
      cwd: dir,
    });
    const seconds = (performance.now() - started) / 1000;
    return {
      products,
      requests: (await sandboxRequests(sb)) - before,
      seconds,
      sinkSeconds: result.sinkMs / 1000,
      rateLimited: connection.snapshot().rateLimited,
    };
  } finally {
    await connection.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`);

  say('1. requests vs the bound L x ceil(N/100) + constant (no limit, no latency)');
  for (const bulk of [980, 4_980]) {
    const m = await measure(bulk, {}, null);
    const pages = Math.ceil(m.products / 100);
    say(
      `   N=${m.products} L=${LANGUAGES}: ${m.requests} requests; L x ceil(N/100) = ${LANGUAGES * pages} (+${m.requests - LANGUAGES * pages})`,
    );
  }

  say('2. request rate under the service limit of 50 requests / 10 s (limiter on both sides)');
  {
    const limit = { requests: 50, windowSeconds: 10 };
    const m = await measure(9_480, { rateLimit: limit }, limit);
    const rate = m.requests / m.seconds;
    const allowed = limit.requests / limit.windowSeconds;
    say(
      `   N=${m.products}: ${m.requests} requests in ${m.seconds.toFixed(1)} s = ${rate.toFixed(2)} req/s, ` +
        `${((rate / allowed) * 100).toFixed(0)}% of the limit (${allowed} req/s); ${m.rateLimited} x 429`,
    );
    say(`   (the first window's ${limit.requests} requests go out at once; a longer run tends to the limit)`);
  }

  say('3. throughput with the limit off and 20 ms latency per request');
  {
    const m = await measure(19_980, { latencyMs: 20 }, null);
    say(
      `   N=${m.products}: ${m.seconds.toFixed(1)} s, ${Math.round(m.products / m.seconds)} rows/s, ` +
        `${m.requests} requests (${(m.requests / m.seconds).toFixed(0)} req/s); ` +
        `inside the XLSX sink ${m.sinkSeconds.toFixed(1)} s = ${((m.sinkSeconds / m.seconds) * 100).toFixed(0)}% of the time`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().catch((err: unknown) => {
    process.stderr.write(`bench/export: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
