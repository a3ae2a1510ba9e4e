// A running import's progress, pushed to the page by server-sent events: rows finished are counted from
// its journal (as it grows), requests, 429s and how much of the source was read from the progress.json
// the run writes beside it; the rate is measured over the last 30 s, and the ETA is the CLI's (the
// requests still to send at the limit's pace where the limit sets it, else the rows left at the rate).
import type { FastifyInstance } from 'fastify';
import { EtaClock, estimate } from '../cli/progress.js';
import type { RunRegistry } from '../runs/registry.js';
import { liveProgress, type Reports } from './runs.js';

export interface LiveEvent {
  state: string;
  rows: number;
  outcomes: Record<string, number>;
  /** Rows per second over the last 30 s (0 until two samples). */
  rate: number;
  /** Rows the source holds, estimated from the bytes read so far; undefined for a source of unknown size. */
  totalRows?: number;
  etaSeconds?: number;
  requests?: number;
  rateLimited?: number;
  elapsedMs: number;
}

export function liveRoutes(
  app: FastifyInstance,
  registry: RunRegistry,
  reports: Reports,
  /** How often a page is told (tests shorten it). */
  everyMs: number,
): void {
  app.get('/api/runs/:id/live', async (request, reply) => {
    const { id } = request.params as { id: string };
    if (!(await registry.get(id))) return reply.code(404).send({ error: `No run ${id}` });
    const { index } = reports.get(registry.journalFile(id), 'journal');
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    let clock: EtaClock | undefined;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async () => {
      const meta = await registry.get(id);
      await index.refresh();
      const at = Date.now();
      const progress = await liveProgress(registry, id);
      // The state as the CLI's bar sees it: the total from rows the reader made per byte read.
      const state = {
        done: index.count,
        ...(progress && { bytesRead: progress.bytesRead, rowsRead: progress.rowsRead }),
        ...(progress?.totalBytes !== undefined && { totalBytes: progress.totalBytes }),
        ...(progress?.rowsMade !== undefined && { rowsMade: progress.rowsMade }),
        ...(progress?.requests !== undefined && { requests: progress.requests }),
        ...(progress?.requestRate !== undefined && { requestRate: progress.requestRate }),
      };
      clock ??= new EtaClock(at, index.count);
      clock.update(at, state);
      const rate = clock.rate(at);
      const { total: totalRows } = progress?.totalBytes ? estimate(state) : {};
      const eta = clock.remaining(at, state, totalRows);
      const event: LiveEvent = {
        state: meta?.state ?? 'gone',
        rows: index.count,
        outcomes: { ...index.outcomes },
        rate: Math.round(rate * 10) / 10,
        ...(totalRows !== undefined && { totalRows }),
        ...(eta !== undefined && { etaSeconds: Math.round(eta) }),
        ...(progress?.requests !== undefined && { requests: progress.requests }),
        ...(progress?.rateLimited !== undefined && { rateLimited: progress.rateLimited }),
        elapsedMs: meta ? at - Date.parse(meta.startedAt) : 0,
      };
      if (closed) return;
      res.write(`event: progress\ndata: ${JSON.stringify(event)}\n\n`);
      if (event.state !== 'running') {
        res.write(`event: end\ndata: ${JSON.stringify({ state: event.state })}\n\n`);
        res.end();
        closed = true;
        return;
      }
      timer = setTimeout(() => void tick().catch(stop), everyMs);
    };
    const stop = () => {
      closed = true;
      clearTimeout(timer);
      if (!res.writableEnded) res.end();
    };
    request.raw.on('close', stop);
    await tick().catch(stop);
  });
}
