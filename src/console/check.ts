// "Check a file": a feed (and a profile) dropped on the page is streamed to a temporary file, bounded
// in size, then placed and validated by the same code as `catalog-io validate` (what the file holds by
// the name it was sent under or its header; validateFile: the same readers and their limits, the same
// checks, the same reference check against the file and the tenant), which writes its JSON Lines
// report; the grid reads that report in ranges like a run's. Nothing is written to the tenant: validate
// only reads its $metadata and asks which referenced records exist.
//
// What a check may write is bounded: its report stops at `maxReportBytes` (the check ends with an error
// and its files are removed), and the checks kept and running hold at most `maxChecksBytes` together
// (the oldest kept ones go first). A check ends early, its files removed, when the console stops or
// when the page that asked for it goes away before the answer.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { placeReading, profileFrom, workbookReading } from '../cli/commands/feed.js';
import { checksRefsByDefault, referenceChecking, validateReading } from '../cli/commands/validate.js';
import type { Connection, ConnectionFlags } from '../config/index.js';
import { CatalogIoError, isCatalogIoError } from '../errors.js';
import { isFileFault, writeProblem } from '../files.js';
import { formatSize } from '../readers/options.js';
import { tenantModelFor } from '../runner/model-source.js';
import type { ValidateFileResult } from '../runner/validate.js';
import type { ModelScope } from '../schema/load.js';
import type { TenantModel } from '../schema/model.js';
import { topProblems } from './problems.js';
import { echo, type Reports, reportQuery } from './runs.js';

export interface CheckOptions {
  flags: ConnectionFlags;
  /** The largest feed accepted, in bytes. */
  maxUploadBytes: number;
  /** The largest report one check may write, in bytes: past it the check stops and its files go. */
  maxReportBytes: number;
  /** What the checks kept, and those running (each counted at `maxReportBytes`), may hold together. */
  maxChecksBytes: number;
}

export interface CheckRoutes {
  /** Stops the checks running (they answer 503 and their files are removed) and refuses new ones. */
  stop(): Promise<void>;
  /** Closes the tenant connection the reference check holds. */
  close(): Promise<void>;
}

interface Check {
  dir: string;
  report: string;
  result: ValidateFileResult;
  file: string;
  /** The report's bytes and its index's (16 bytes a line, built when the grid first reads it). */
  bytes: number;
}

interface Running {
  controller: AbortController;
  done: Promise<unknown>;
}

/** Checks kept for their grid; the oldest goes (with its files) when a new one comes. */
const KEEP_CHECKS = 8;
const FEED_NAME = /\.(csv|tsv|txt|xlsx|json|ndjson|jsonl)(\.gz)?$/i;
/** A profile is YAML or JSON by its name, as `--profile` reads it (docs/profiles.md). */
const PROFILE_NAME = /\.(ya?ml|json)$/i;
/**
 * How often a running check's report is measured against `maxReportBytes`. The report is measured once
 * more when the check ends, so none past the bound is kept; this only decides how soon a long check
 * that passed it stops.
 */
const MEASURE_EVERY_MS = 500;
/** Bytes of the grid's index per report line (report-index.ts). */
const INDEX_BYTES_PER_LINE = 16;

/** Why a check stopped before its end: the console stops, or the page went away. */
class CheckStopped extends Error {}

class UploadTooLarge extends CatalogIoError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

/** The report passed `maxReportBytes`, or the disk the checks may use is taken. */
class CheckTooLarge extends CatalogIoError {
  constructor(message: string) {
    super('OUTPUT_FAILED', message);
  }
}

export function checkRoutes(
  app: FastifyInstance,
  reports: Reports,
  tempDir: string,
  options: CheckOptions,
): CheckRoutes {
  const checks = new Map<string, Check>();
  const running = new Set<Running>();
  let next = 0;
  let stopping = false;
  // The tenant of the reference check: connected at the first check, kept while the console runs.
  let connection: Promise<Connection> | undefined;
  const checkRefs = checksRefsByDefault(options.flags);
  const connected = (): Promise<Connection> => {
    connection ??= import('../config/index.js')
      .then(({ connect }) => connect({ flags: options.flags }))
      .catch((err: unknown) => {
        connection = undefined;
        throw err;
      });
    return connection;
  };

  const keptBytes = () => [...checks.values()].reduce((sum, c) => sum + c.bytes, 0);
  const forget = async (id: string) => {
    const check = checks.get(id);
    if (!check) return;
    checks.delete(id);
    await reports.forget(check.report);
    await rm(check.dir, { recursive: true, force: true });
  };
  /** Makes room for one more check (its report at the most): the oldest kept checks go first. */
  const makeRoom = async (): Promise<boolean> => {
    const reserved = () => (running.size + 1) * options.maxReportBytes;
    for (const id of checks.keys()) {
      if (keptBytes() + reserved() <= options.maxChecksBytes) break;
      await forget(id);
    }
    return keptBytes() + reserved() <= options.maxChecksBytes;
  };

  app.post('/api/check', async (request, reply) => {
    if (stopping)
      return reply.code(503).send({ error: 'The console is stopping: no more checks', code: 'STOPPED' });
    if (!(await makeRoom()))
      return reply.code(503).send({
        error: `The console is checking ${running.size} file${running.size === 1 ? '' : 's'} already, and each may write a report of ${formatSize(options.maxReportBytes)} (serve --max-report), more than serve --max-checks-disk (${formatSize(options.maxChecksBytes)}) leaves room for: try again when one is done`,
        code: 'BUSY',
      });
    const controller = new AbortController();
    let settle!: () => void;
    const entry: Running = { controller, done: new Promise<void>((resolve) => (settle = resolve)) };
    running.add(entry);
    // The page went away (a closed tab, an aborted upload) before the answer: the check is of no use.
    const gone = () => {
      if (!reply.raw.writableFinished)
        controller.abort(new CheckStopped('the page that asked for it went away'));
    };
    reply.raw.once('close', gone);
    const dir = await mkdtemp(path.join(tempDir, 'check-'));
    // The files as they were sent: what the summary and any error name, not where this server keeps them.
    let feed: { file: string; name: string } | undefined;
    let profileSent: { file: string; name: string } | undefined;
    let measuring: NodeJS.Timeout | undefined;
    try {
      let entity: string | undefined;
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          if (part.fieldname === 'entity' && typeof part.value === 'string' && part.value)
            entity = part.value;
          continue;
        }
        if (part.fieldname === 'feed') feed = { file: await save(part, dir, 'feed'), name: part.filename };
        else if (part.fieldname === 'profile')
          profileSent = { file: await save(part, dir, 'profile'), name: part.filename || 'profile.json' };
        else part.file.resume();
      }
      if (!feed) throw new CatalogIoError('CONFIG_INVALID', 'No feed: drop a CSV, XLSX, JSON or NDJSON file');
      controller.signal.throwIfAborted();
      // As `validate --profile P --entity E` reads them (a profile's entity, or E, or products).
      const args = { ...(profileSent && { profile: profileSent.file }), ...(entity && { entity }) };
      const profile = await profileFrom(args);
      // Placed as `validate` places a file (a workbook of several sheets whole; with neither entity nor
      // profile, an export's file by its name or its header), by the name it was sent under: this
      // server keeps it as `feed.csv`.
      const reading = await workbookReading(feed.file, {}, args, feed.name);
      // As `validate` does by default: references checked against the file and the tenant (with
      // --schemas, offline, not at all: the schema folder, read once).
      const tenant = checkRefs ? await connected() : undefined;
      let offline: Promise<TenantModel> | undefined;
      const modelFor = (scope: ModelScope): Promise<TenantModel> => {
        if (tenant) return tenant.tenant.model(scope);
        offline ??= tenantModelFor({ flags: options.flags, scope });
        return offline;
      };
      const { note, scope } = await placeReading(reading, profile, modelFor);
      const model = await modelFor(scope);
      controller.signal.throwIfAborted();
      const report = path.join(dir, 'report.jsonl');
      const shownName = feed.name;
      measuring = setInterval(() => {
        void stat(report).then(
          (s) => {
            if (s.size > options.maxReportBytes && !controller.signal.aborted)
              controller.abort(new CheckTooLarge(tooLargeText(shownName, options.maxReportBytes)));
          },
          () => {},
        );
      }, MEASURE_EVERY_MS);
      const checked = {
        source: feed.file,
        model,
        profile,
        reportFile: report,
        signal: controller.signal,
        ...(await referenceChecking(model, checkRefs, tenant)),
      };
      const result = await validateReading(checked, reading);
      clearInterval(measuring);
      controller.signal.throwIfAborted();
      const reportBytes = (await stat(report)).size;
      if (reportBytes > options.maxReportBytes)
        controller.abort(new CheckTooLarge(tooLargeText(shownName, options.maxReportBytes)));
      controller.signal.throwIfAborted();
      // Only the report is kept for the grid: the feed and the profile are done with.
      for (const sent of [feed, profileSent]) if (sent) await rm(sent.file, { force: true });
      const id = String(++next);
      // Why it was checked as what it was (its header said it), where `validate` says it: first.
      const shown = { ...result, source: feed.name, notes: note ? [note, ...result.notes] : result.notes };
      checks.set(id, {
        dir,
        report,
        result: shown,
        file: feed.name,
        bytes: reportBytes + INDEX_BYTES_PER_LINE * (result.rows + 1),
      });
      for (const old of checks.keys()) {
        if (checks.size <= KEEP_CHECKS) break;
        await forget(old);
      }
      return { id, file: feed.name, ...summaryOf(shown) };
    } catch (caught) {
      clearInterval(measuring);
      await rm(dir, { recursive: true, force: true });
      // A check stopped on the way is said by why it stopped, not by where the row loop was.
      const err = controller.signal.aborted ? controller.signal.reason : caught;
      if (err instanceof CheckStopped) {
        const sent = feed ? ` of ${feed.name}` : '';
        return reply
          .code(503)
          .send({ error: `The check${sent} was stopped: ${err.message}`, code: 'STOPPED' });
      }
      if (isCatalogIoError(err)) {
        let message = err.message;
        for (const sent of [feed, profileSent]) if (sent) message = message.split(sent.file).join(sent.name);
        // 507: the server could not store what it was sent (or the check wrote too much); 413: too large;
        // 400: the files themselves.
        const status = err instanceof UploadTooLarge ? 413 : err.code === 'OUTPUT_FAILED' ? 507 : 400;
        return reply.code(status).send({ error: message, code: err.code });
      }
      throw err;
    } finally {
      reply.raw.off('close', gone);
      running.delete(entry);
      settle();
    }
  });

  app.get('/api/checks/:id', async (request, reply) => {
    const check = checks.get((request.params as { id: string }).id);
    if (!check)
      return reply.code(404).send({ error: 'No such check (checks are kept while the console runs)' });
    const { index } = reports.get(check.report, 'lines');
    return {
      id: (request.params as { id: string }).id,
      file: check.file,
      ...summaryOf(check.result),
      problems: await topProblems(index),
    };
  });

  app.get('/api/checks/:id/rows', async (request, reply) => {
    const check = checks.get((request.params as { id: string }).id);
    if (!check) return reply.code(404).send({ error: 'No such check' });
    const query = request.query as Record<string, string>;
    return { ...(await reports.get(check.report, 'lines').views.page(reportQuery(query))), ...echo(query) };
  });

  app.addHook('onClose', async () => {
    for (const check of checks.values()) await rm(check.dir, { recursive: true, force: true });
  });

  async function save(part: MultipartFile, dir: string, as: 'feed' | 'profile'): Promise<string> {
    const name = path.basename(part.filename || as);
    if (as === 'feed' && !FEED_NAME.test(name)) {
      part.file.resume();
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `${name}: not a feed this console reads (.csv, .xlsx, .json, .ndjson, optionally .gz)`,
      );
    }
    // The original extension: the reader tells the format by it, as for a file on disk, and a profile
    // is read as YAML or JSON by it, as `--profile` reads it.
    const extension =
      as === 'feed' ? name.slice(name.search(FEED_NAME)) : (PROFILE_NAME.exec(name)?.[0] ?? '.json');
    const file = path.join(dir, `${as}${extension.toLowerCase()}`);
    const tooLarge = () =>
      new UploadTooLarge(
        `${name} is larger than this console accepts (${formatSize(options.maxUploadBytes)}; serve --max-upload raises it)`,
      );
    try {
      await pipeline(part.file, createWriteStream(file));
    } catch (err) {
      // The upload is cut at the limit, on the way to the disk: nothing larger is kept.
      if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
      // This server's own disk (a full temporary folder): said as such, for the person who runs it.
      if (isFileFault(err))
        throw new CatalogIoError(
          'OUTPUT_FAILED',
          `${name} could not be kept to check it: ${writeProblem(file, err)} (on the machine that runs the console)`,
        );
      throw err;
    }
    if (part.file.truncated) throw tooLarge();
    return file;
  }

  return {
    async stop() {
      stopping = true;
      for (const { controller } of running) controller.abort(new CheckStopped('the console is stopping'));
      await Promise.all([...running].map((r) => r.done));
    },
    async close() {
      const open = connection;
      connection = undefined;
      if (open) await (await open.catch(() => undefined))?.close();
    },
  };
}

function tooLargeText(name: string, maxReportBytes: number): string {
  return `The report of ${name} passed ${formatSize(maxReportBytes)}, the most one check may write (serve --max-report): the check stopped and its files were removed. Check a part of the file, or validate it with the CLI (catalog-io validate)`;
}

function summaryOf(result: ValidateFileResult) {
  return {
    source: result.source,
    rows: result.rows,
    outcomes: result.outcomes,
    topErrors: result.topErrors,
    warnings: result.warnings,
    notes: result.notes,
  };
}
