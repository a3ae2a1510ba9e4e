// A running import's progress, pushed to the page by server-sent events: rows finished are counted from
// its journal (as it grows), requests, 429s and how much of the source was read from the progress.json
// the run writes beside it; the rate is measured over the last 30 s, the ETA is the rows left at it.
import type { FastifyInstance } from 'fastify';
import { estimate } from '../cli/progress.js';
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

const RATE_WINDOW_MS = 30_000;

export function liveRoutes(
  app: FastifyInstance,
  registry: RunRegistry,
  reports: Reports,
  /** How often a page is told (tests shorten it). */
  everyMs: number,
): void {
  app.get('/api/runs/:id/live', async (request, reply) => {
    const { id } = request.params as { id: string };
    if (!(await registry.list()).some((r) => r.runId === id))
      return reply.code(404).send({ error: `No run ${id}` });
    const { index } = reports.get(registry.journalFile(id), 'journal');
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    const samples: Array<{ at: number; rows: number }> = [];
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async () => {
      const meta = (await registry.list()).find((r) => r.runId === id);
      await index.refresh();
      const at = Date.now();
      samples.push({ at, rows: index.count });
      while (samples.length > 2 && at - samples[0]!.at > RATE_WINDOW_MS) samples.shift();
      const first = samples[0]!;
      const rate = at > first.at ? ((index.count - first.rows) * 1000) / (at - first.at) : 0;
      const progress = await liveProgress(registry, id);
      // The total as the CLI's bar estimates it: rows the reader made per byte read, times the size.
      const { total: totalRows } = progress?.totalBytes
        ? estimate({
            done: index.count,
            bytesRead: progress.bytesRead,
            totalBytes: progress.totalBytes,
            rowsRead: progress.rowsRead,
            ...(progress.rowsMade !== undefined && { rowsMade: progress.rowsMade }),
          })
        : {};
      const event: LiveEvent = {
        state: meta?.state ?? 'gone',
        rows: index.count,
        outcomes: { ...index.outcomes },
        rate: Math.round(rate * 10) / 10,
        ...(totalRows !== undefined && { totalRows }),
        ...(totalRows !== undefined &&
          rate > 0 && { etaSeconds: Math.round((totalRows - index.count) / rate) }),
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
