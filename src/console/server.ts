// `catalog-io serve`: a local web console over the run folders (.catalog-io/runs), plans, files to
// check and, with Redis, the job queue (bull-board under /jobs). Fastify for HTTP; the pages are plain
// ES modules (Preact, htm, Tabulator, Chart.js served from their npm packages: see assets.ts).
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ConnectionFlags } from '../config/index.js';
import { CatalogIoError } from '../errors.js';
import { formatSize } from '../readers/options.js';
import { RunRegistry } from '../runs/registry.js';
import { redactText, registerSecret } from '../secrets.js';
import { checkAccess, guard } from './access.js';
import { vendorFile, webDir } from './assets.js';
import { type CheckRoutes, checkRoutes } from './check.js';
import { liveRoutes } from './live.js';
import { Reports, runRoutes } from './runs.js';

export interface ConsoleOptions {
  /** The `.catalog-io` folder whose runs are shown. */
  stateDir: string;
  host?: string;
  /** 0: any free port. */
  port?: number;
  token?: string;
  /** The tenant `Check a file` validates against (its $metadata only). */
  flags?: ConnectionFlags;
  /** Redis of the job queue: bull-board under /jobs. */
  redisUrl?: string;
  maxUploadBytes?: number;
  /** The largest report one check may write (default 1 GB). */
  maxReportBytes?: number;
  /** What the checks kept and running may hold on disk together (default 4 GB). */
  maxChecksBytes?: number;
  /** Origins other than the console's own whose pages may write (a TLS proxy's: `https://host`). */
  origins?: readonly string[];
  /** How often a live page is told a running import's progress. Default 1 s. */
  liveEveryMs?: number;
}

export interface ConsoleHandle {
  url: string;
  close(): Promise<void>;
}

export const DEFAULT_CONSOLE_PORT = 4020;
export const DEFAULT_MAX_UPLOAD = 1024 * 1024 * 1024;
const DEFAULT_MAX_REPORT = 1024 * 1024 * 1024;
export const DEFAULT_MAX_CHECKS_DISK = 4 * 1024 * 1024 * 1024;
/** How long a stop waits for the checks running to end (they stop at their next row). */
const STOP_CHECKS_MS = 3_000;
/** The pages of the front end: each is the same shell, whose script draws the page for its path. */
const PAGES = ['/', '/runs/:id', '/plans/:id', '/check', '/checks/:id'];

export async function startConsole(options: ConsoleOptions): Promise<ConsoleHandle> {
  const host = options.host ?? '127.0.0.1';
  checkAccess(host, options.token);
  const maxReportBytes = options.maxReportBytes ?? DEFAULT_MAX_REPORT;
  const maxChecksBytes = options.maxChecksBytes ?? DEFAULT_MAX_CHECKS_DISK;
  if (maxChecksBytes < maxReportBytes)
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `serve --max-checks-disk (${formatSize(maxChecksBytes)}) must be at least --max-report (${formatSize(maxReportBytes)}): a check could never start`,
    );
  const web = webDir();
  const tempDir = await mkdtemp(path.join(tmpdir(), 'catalog-io-console-'));
  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  const reports = new Reports(tempDir);
  const closers: Array<() => Promise<void>> = [];
  let checks: CheckRoutes | undefined;
  try {
    guard(app, host, options.token, options.origins);
    const apiKey = options.flags?.apiKey ?? (process.env.CATALOG_API_KEY || undefined);
    if (apiKey) registerSecret(apiKey);
    // A message passed on from a library (an error of the tenant) never carries a secret to a page: the
    // one gate every output of the tool passes (secrets.ts).
    app.addHook('onSend', async (_request, _reply, payload) =>
      typeof payload === 'string' ? redactText(payload) : payload,
    );
    app.setErrorHandler((err: Error & { statusCode?: number }, _request, reply) => {
      reply.code(err.statusCode && err.statusCode < 500 ? err.statusCode : 500).send({ error: err.message });
    });
    const maxUploadBytes = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD;
    await app.register(multipart, { limits: { fileSize: maxUploadBytes, files: 2, fields: 8, parts: 10 } });
    await app.register(fastifyStatic, { root: web, prefix: '/app/', index: false });

    const shell = await readFile(path.join(web, 'index.html'), 'utf8');
    for (const page of PAGES)
      app.get(page, async (_request, reply) => reply.type('text/html; charset=utf-8').send(shell));
    app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());
    app.get('/vendor/:name', async (request, reply) => {
      const found = vendorFile((request.params as { name: string }).name);
      if (!found) return reply.code(404).send({ error: 'not found' });
      return reply
        .type(found.type)
        .header('cache-control', 'max-age=3600')
        .send(createReadStream(found.file));
    });

    const registry = new RunRegistry(options.stateDir);
    runRoutes(app, registry, reports, tempDir);
    liveRoutes(app, registry, reports, options.liveEveryMs ?? 1_000);
    checks = checkRoutes(app, reports, tempDir, {
      flags: options.flags ?? {},
      maxUploadBytes,
      maxReportBytes,
      maxChecksBytes,
    });
    app.get('/api/about', async () => ({ stateDir: options.stateDir, jobs: options.redisUrl !== undefined }));
    if (options.redisUrl) closers.push(await mountJobs(app, options.redisUrl));

    await app.listen({ host, port: options.port ?? DEFAULT_CONSOLE_PORT });
  } catch (err) {
    await app.close().catch(() => {});
    await checks?.close().catch(() => {});
    for (const close of closers) await close().catch(() => {});
    await rm(tempDir, { recursive: true, force: true });
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    async close() {
      // Checks running stop at their next row (their files removed, their pages told 503); one that
      // waits on the tenant is not waited for past STOP_CHECKS_MS (its folder goes with the rest).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        checks?.stop(),
        new Promise((resolve) => {
          timer = setTimeout(resolve, STOP_CHECKS_MS);
        }),
      ]);
      clearTimeout(timer);
      await app.close();
      await checks?.close();
      for (const close of closers) await close();
      await reports.close();
      await rm(tempDir, { recursive: true, force: true });
    },
  };
}

/** bull-board over the feed queue (its jobs and schedules), under /jobs. */
async function mountJobs(app: FastifyInstance, redisUrl: string): Promise<() => Promise<void>> {
  const [{ createBullBoard }, { BullMQAdapter }, { FastifyAdapter }, { connectRedis }, { openQueue }] =
    await Promise.all([
      import('@bull-board/api'),
      import('@bull-board/api/bullMQAdapter'),
      import('@bull-board/fastify'),
      import('../redis/connection.js'),
      import('../jobs/queue.js'),
    ]);
  const redis = await connectRedis(redisUrl, { forQueue: true });
  const queue = openQueue(redis);
  const adapter = new FastifyAdapter();
  adapter.setBasePath('/jobs');
  createBullBoard({
    queues: [new BullMQAdapter(queue)],
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'catalog-io jobs' } },
  });
  await app.register(adapter.registerPlugin(), { prefix: '/jobs' });
  return async () => {
    await queue.close();
    redis.disconnect();
  };
}
