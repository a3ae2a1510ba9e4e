// The run folders as the console shows them: the history, one run's summary and report (in pages, see
// report-view.ts), its top problems, its report as a download and its rejects file. Read only: the
// console never changes a run folder.
import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { LiveProgress } from '../runner/import/recorder.js';
import type { RunSummary } from '../runner/summary-types.js';
import { journalReportLines } from '../runs/journal.js';
import type { RunMeta, RunRegistry } from '../runs/registry.js';
import { runSummaryRows, writeImportReport } from '../writers/import-report.js';
import { topProblems } from './problems.js';
import { type LineFileKind, ReportIndex } from './report-index.js';
import { type ReportQuery, ReportViews, SORT_FIELDS, type SortField } from './report-view.js';

export interface RunListEntry {
  runId: string;
  state: string;
  source: string;
  entity: string;
  startedAt: string;
  durationMs: number;
  rows: number;
  outcomes: Record<string, number>;
  exitCode?: number;
  plan: boolean;
}

const RUN_ID = /^[\w.-]+$/;
const MAX_OPEN_REPORTS = 64;
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A report file the console reads in ranges: its index (in the console's temporary folder) and views. */
export class Reports {
  private readonly open = new Map<string, { index: ReportIndex; views: ReportViews }>();
  private next = 0;

  constructor(private readonly tempDir: string) {}

  get(file: string, kind: LineFileKind): { index: ReportIndex; views: ReportViews } {
    let entry = this.open.get(file);
    if (entry) this.open.delete(file);
    else {
      const index = new ReportIndex(file, kind, path.join(this.tempDir, `${++this.next}.idx`));
      entry = { index, views: new ReportViews(index) };
    }
    this.open.set(file, entry); // the most recently used last
    // An index holds an open file: the least recently used go (and are built again if asked for).
    if (this.open.size > MAX_OPEN_REPORTS) {
      const [oldest] = this.open.keys();
      void this.forget(oldest!);
    }
    return entry;
  }

  async forget(file: string): Promise<void> {
    const entry = this.open.get(file);
    this.open.delete(file);
    await entry?.index.close();
  }

  async close(): Promise<void> {
    for (const { index } of this.open.values()) await index.close();
    this.open.clear();
  }
}

/** The query of the grid (Tabulator's remote paging, filter and sort) as a ReportQuery. */
export function reportQuery(q: Record<string, string | undefined>): ReportQuery {
  const field = (SORT_FIELDS as readonly string[]).includes(q.sort ?? '') ? (q.sort as SortField) : undefined;
  return {
    page: Math.max(1, Number.parseInt(q.page ?? '1', 10) || 1),
    size: Math.max(1, Number.parseInt(q.size ?? '50', 10) || 50),
    ...(q.outcome && { outcomes: q.outcome.split(',').filter(Boolean) }),
    ...(q.search && { search: q.search }),
    ...(field && { sort: { field, dir: q.dir === 'desc' ? 'desc' : 'asc' } }),
  };
}

export function runRoutes(
  app: FastifyInstance,
  registry: RunRegistry,
  reports: Reports,
  tempDir: string,
): void {
  const runOf = async (id: string, reply: FastifyReply): Promise<RunMeta | undefined> => {
    const meta = RUN_ID.test(id) ? await registry.get(id) : undefined;
    if (!meta) reply.code(404).send({ error: `No run ${id} in ${registry.root}` });
    return meta;
  };

  app.get('/api/runs', async (request) => {
    const { state, entity } = request.query as { state?: string; entity?: string };
    const entries: RunListEntry[] = [];
    for (const meta of await registry.list()) {
      if (state && meta.state !== state) continue;
      if (entity && meta.entity !== entity) continue;
      entries.push(await listEntry(registry, reports, meta));
    }
    return { runs: entries };
  });

  app.get('/api/runs/:id', async (request, reply) => {
    const meta = await runOf((request.params as { id: string }).id, reply);
    if (!meta) return;
    // A running run has not ended: no end of an earlier attempt is shown as its own.
    const summary = meta.state === 'running' ? undefined : await registry.summary(meta.runId);
    const entry = await listEntry(registry, reports, meta);
    return {
      ...entry,
      resumes: meta.resumes,
      message: summary?.message ?? (meta.state === 'crashed' ? crashMessage(meta, entry.rows) : undefined),
      requests: summary?.requests,
      finishedAt: summary?.finishedAt,
      rejects: meta.rejectsFile !== undefined && existsSync(meta.rejectsFile),
      resumeCommand: resumeCommand(meta),
    };
  });

  app.get('/api/runs/:id/rows', async (request, reply) => {
    const meta = await runOf((request.params as { id: string }).id, reply);
    if (!meta) return;
    const { views } = reports.get(registry.journalFile(meta.runId), 'journal');
    const query = request.query as Record<string, string>;
    const page = await views.page(reportQuery(query));
    return { ...page, data: page.data.map(withChanges), ...echo(query) };
  });

  app.get('/api/runs/:id/problems', async (request, reply) => {
    const meta = await runOf((request.params as { id: string }).id, reply);
    if (!meta) return;
    return { problems: await topProblems(reports.get(registry.journalFile(meta.runId), 'journal').index) };
  });

  // The report as `catalog-io runs report <id> --out FILE` writes it (the same writer, from the journal):
  // written into the console's temporary folder, sent, and removed.
  app.get('/api/runs/:id/report.:format', async (request, reply) => {
    const { id, format } = request.params as { id: string; format: string };
    if (format !== 'csv' && format !== 'xlsx')
      return reply.code(404).send({ error: 'report.csv or report.xlsx' });
    const meta = await runOf(id, reply);
    if (!meta) return;
    const dir = await mkdtemp(path.join(tempDir, 'report-'));
    const file = path.join(dir, `report.${format}`);
    const summary = await registry.summary(meta.runId);
    await writeImportReport(
      file,
      journalReportLines(registry.journalFile(meta.runId)),
      summary && runSummaryRows(summary),
    );
    const stream = createReadStream(file);
    stream.on('close', () => void rm(dir, { recursive: true, force: true }));
    reply
      .type(format === 'csv' ? 'text/csv; charset=utf-8' : XLSX_TYPE)
      .header('content-disposition', `attachment; filename="report-${meta.runId}.${format}"`);
    return reply.send(stream);
  });

  app.get('/api/runs/:id/rejects', async (request, reply) => {
    const meta = await runOf((request.params as { id: string }).id, reply);
    if (!meta) return;
    if (!meta.rejectsFile || !existsSync(meta.rejectsFile))
      return reply.code(404).send({ error: `Run ${meta.runId} wrote no rejects file` });
    const name = path.basename(meta.rejectsFile).replace(/[^\w.-]/g, '_');
    reply.header('content-disposition', `attachment; filename="${name}"`);
    return reply.type('application/octet-stream').send(createReadStream(meta.rejectsFile));
  });
}

async function listEntry(registry: RunRegistry, reports: Reports, meta: RunMeta): Promise<RunListEntry> {
  const summary = await registry.summary(meta.runId);
  const ended = summary !== undefined && meta.state !== 'running' && meta.state !== 'crashed';
  let outcomes: Record<string, number>;
  let rows: number;
  if (ended) {
    outcomes = summary.outcomes;
    rows = summary.rows;
  } else {
    // Counted from the journal (a running or crashed run), by the index the report pages use.
    const { index } = reports.get(registry.journalFile(meta.runId), 'journal');
    await index.refresh();
    outcomes = { ...index.outcomes };
    rows = index.count;
  }
  return {
    runId: meta.runId,
    state: meta.state,
    source: meta.source,
    entity: meta.entity,
    startedAt: meta.startedAt,
    durationMs: durationOf(meta, summary),
    rows,
    outcomes,
    ...(ended && { exitCode: summary.exitCode }),
    plan: meta.plan === true || Object.keys(outcomes).some((o) => o.startsWith('would-')),
  };
}

/** What a run whose process ended without writing its end (killed, the machine stopped) says. */
function crashMessage(meta: RunMeta, rows: number): string {
  const attempt = meta.resumes > 0 ? `, resumed ${meta.resumes} time${meta.resumes === 1 ? '' : 's'}` : '';
  const resume = resumeCommand(meta);
  return `Crashed after ${rows} rows: its process (pid ${meta.pid} on ${meta.host}${attempt}) ended without finishing the run, and wrote no summary. The rows recorded are kept${resume ? `; continue with: ${resume}` : ''}`;
}

function durationOf(meta: RunMeta, summary: RunSummary | undefined): number {
  if (summary && meta.state !== 'running') return summary.durationMs;
  return Math.max(0, Date.now() - Date.parse(meta.startedAt));
}

/** The grid's request number, sent back: the page shows the answer to its latest request only. */
export function echo(query: Record<string, string | undefined>): { seq?: string } {
  return query.seq ? { seq: query.seq } : {};
}

/** The command that continues an unfinished run; none for a finished or running one. */
export function resumeCommand(meta: RunMeta): string | undefined {
  if (meta.state === 'finished' || meta.state === 'running' || meta.plan) return undefined;
  const quote = (text: string) => (/^[\w./:@%+=-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`);
  return [
    'catalog-io import',
    quote(meta.source),
    ...(meta.profileFile ? ['--profile', quote(meta.profileFile)] : []),
    '--resume',
    meta.runId,
  ].join(' ');
}

/** A plan's `field: old -> new` changes as a list, for the diff view. */
export interface FieldChange {
  field: string;
  old: string;
  new: string;
}

function withChanges<T extends { outcome: string; changed?: string }>(
  row: T,
): T & { changes?: FieldChange[] } {
  return row.outcome === 'would-update' && row.changed ? { ...row, changes: parseChanges(row.changed) } : row;
}

/** `prod_title_fr: "Old" -> "New"; prod_price: 10 -> 12` (values as JSON, `(empty)` for none). */
export function parseChanges(text: string): FieldChange[] {
  const changes: FieldChange[] = [];
  let at = 0;
  const value = (): string => {
    if (text[at] === '"') {
      let end = at + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const raw = text.slice(at, end + 1);
      at = end + 1;
      try {
        return JSON.parse(raw) as string;
      } catch {
        return raw;
      }
    }
    // A number, a list or object as JSON, `(empty)`: up to the arrow or the next change.
    const stop = [' -> ', '; '].map((s) => text.indexOf(s, at)).filter((i) => i !== -1);
    const end = stop.length ? Math.min(...stop) : text.length;
    const raw = text.slice(at, end);
    at = end;
    return raw;
  };
  while (at < text.length) {
    const colon = text.indexOf(': ', at);
    if (colon === -1) break;
    const field = text.slice(at, colon);
    at = colon + 2;
    const old = value();
    if (!text.startsWith(' -> ', at)) break;
    at += 4;
    changes.push({ field, old, new: value() });
    if (text.startsWith('; ', at)) at += 2;
  }
  return changes;
}

/** progress.json of a running import, if it wrote one. */
export async function liveProgress(registry: RunRegistry, runId: string): Promise<LiveProgress | undefined> {
  try {
    return JSON.parse(await readFile(registry.progressFile(runId), 'utf8')) as LiveProgress;
  } catch {
    return undefined;
  }
}
