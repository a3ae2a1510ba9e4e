// "Check a file": a feed (and a profile) dropped on the page is streamed to a temporary file, bounded
// in size, then validated by the same code as `catalog-io validate` (validateFile: the same readers and
// their limits, the same checks), which writes its JSON Lines report; the grid reads that report in
// ranges like a run's. Nothing is written to the tenant: validate only reads its $metadata.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { profileFrom } from '../cli/commands/feed.js';
import type { ConnectionFlags } from '../config/index.js';
import { CatalogIoError, isCatalogIoError } from '../errors.js';
import { isFileFault, writeProblem } from '../files.js';
import { sheetsReadWhole } from '../readers/index.js';
import { formatSize } from '../readers/options.js';
import { tenantModelFor } from '../runner/model-source.js';
import { type ValidateFileResult, validateFile } from '../runner/validate.js';
import { topProblems } from './problems.js';
import { echo, type Reports, reportQuery } from './runs.js';

export interface CheckOptions {
  flags: ConnectionFlags;
  /** The largest feed accepted, in bytes. */
  maxUploadBytes: number;
}

interface Check {
  dir: string;
  report: string;
  result: ValidateFileResult;
  file: string;
}

/** Checks kept for their grid; the oldest goes (with its files) when a new one comes. */
const KEEP_CHECKS = 8;
const FEED_NAME = /\.(csv|tsv|txt|xlsx|json|ndjson|jsonl)(\.gz)?$/i;

export function checkRoutes(
  app: FastifyInstance,
  reports: Reports,
  tempDir: string,
  options: CheckOptions,
): void {
  const checks = new Map<string, Check>();
  let next = 0;

  app.post('/api/check', async (request, reply) => {
    const dir = await mkdtemp(path.join(tempDir, 'check-'));
    // The files as they were sent: what the summary and any error name, not where this server keeps them.
    let feed: { file: string; name: string } | undefined;
    let profileSent: { file: string; name: string } | undefined;
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
      // As `validate --profile P --entity E` reads them (a profile's entity, or E, or products).
      const profile = await profileFrom({
        ...(profileSent && { profile: profileSent.file }),
        ...(entity && { entity }),
      });
      // A workbook of several sheets, with no entity named, is checked whole, as `validate` checks it.
      const whole = entity === undefined ? await sheetsReadWhole(feed.file) : undefined;
      const model = await tenantModelFor({ flags: options.flags, scope: whole ? 'all' : [profile.entity] });
      const report = path.join(dir, 'report.jsonl');
      const checked = { source: feed.file, model, profile, reportFile: report };
      const result = whole
        ? await (await import('../runner/validate-workbook.js')).validateWorkbook(checked, whole)
        : await validateFile(checked);
      const id = String(++next);
      const shown = { ...result, source: feed.name };
      checks.set(id, { dir, report, result: shown, file: feed.name });
      for (const [old, check] of checks) {
        if (checks.size <= KEEP_CHECKS) break;
        checks.delete(old);
        await reports.forget(check.report);
        await rm(check.dir, { recursive: true, force: true });
      }
      return { id, file: feed.name, ...summaryOf(shown) };
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      if (isCatalogIoError(err)) {
        let message = err.message;
        for (const sent of [feed, profileSent]) if (sent) message = message.split(sent.file).join(sent.name);
        // 507: the server could not store what it was sent; 413: too large; 400: the files themselves.
        const status = err instanceof UploadTooLarge ? 413 : err.code === 'OUTPUT_FAILED' ? 507 : 400;
        return reply.code(status).send({ error: message, code: err.code });
      }
      throw err;
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

  async function save(part: MultipartFile, dir: string, as: string): Promise<string> {
    const name = path.basename(part.filename || as);
    if (as === 'feed' && !FEED_NAME.test(name)) {
      part.file.resume();
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `${name}: not a feed this console reads (.csv, .xlsx, .json, .ndjson, optionally .gz)`,
      );
    }
    // The original extension: the reader tells the format by it, as for a file on disk.
    const file = path.join(dir, `${as}${as === 'feed' ? name.slice(name.search(FEED_NAME)) : '.json'}`);
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
}

class UploadTooLarge extends CatalogIoError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
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
