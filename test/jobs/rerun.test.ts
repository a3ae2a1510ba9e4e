// A job handed out again after its run finished (Redis lost the job's end: it was down longer than
// --stalled-after when the run ended) is completed with that run's end, not imported again: same
// report, same run, no second notification. A real redis-server, a worker as a child process, the
// sandbox and a webhook receiver on loopback; BullMQ's own `retry` of the completed job hands it out
// again, as its stalled-job check does after such an outage.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { JobInfo } from '../../src/jobs/queue.js';
import { openQueue } from '../../src/jobs/queue.js';
import { connectRedis } from '../../src/redis/connection.js';
import { type CliChild, startCli } from '../helpers/cli-child.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';
import { useSandbox } from '../helpers/sandbox.js';
import { until, useWebhookReceiver } from '../helpers/webhook-receiver.js';

const work = mkdtempSync(join(tmpdir(), 'jobs-rerun-'));
mkdirSync(join(work, 'tenants'));

async function cli(args: string[]) {
  const out = memoryOutput();
  const code = await main(args, out);
  return { code, stdout: out.stdout.join('\n'), stderr: out.stderr.join('\n') };
}

async function posts(origin: string): Promise<number> {
  const res = await request(`${origin}/_sandbox/stats`);
  return ((await res.body.json()) as { byMethod: Record<string, number> }).byMethod.POST ?? 0;
}

describe.runIf(redisTestsRun('test/jobs/rerun.test.ts'))(
  'a job handed out again after its run finished',
  () => {
    const redis = useRedis();
    const hooks = useWebhookReceiver();
    const fixture = useSandbox({ seed: 'empty' });
    let worker: CliChild | undefined;
    afterAll(async () => {
      if (worker && worker.child.exitCode === null) {
        worker.child.kill('SIGKILL');
        await worker.done.catch(() => undefined);
      }
    });

    it('is completed with the first run: not imported again, report kept, no second webhook', async () => {
      const { sb } = fixture;
      writeFileSync(
        join(work, 'tenants', 'acme.json'),
        JSON.stringify({ catalogUrl: sb.catalogUrl, damUrl: sb.damUrl, apiKey: sb.apiKey, rateLimit: 'off' }),
      );
      const feed = join(work, 'night.csv');
      writeFileSync(
        feed,
        `prod_ref,prod_title\n${Array.from({ length: 20 }, (_, i) => `NIGHT-${i},Product ${i}`).join('\n')}\n`,
      );
      const before = await posts(sb.origin);
      const added = await cli([
        'enqueue',
        'import',
        feed,
        '--entity',
        'products',
        '--report',
        'reports/night.csv',
        '--notify',
        `webhook:${hooks.url}`,
        '--notify-on',
        'always',
        '--tenant',
        'acme',
        '--redis',
        redis.url,
      ]);
      expect(added.code, added.stderr).toBe(0);
      const id = added.stdout.trim();
      worker = startCli(['worker', '--redis', redis.url, '--stalled-after', '2'], {
        cwd: work,
        env: { CATALOG_IO_LOCK_TTL: '2', CATALOG_API_KEY: '', CATALOG_URL: '' },
      });
      const jobs = async () =>
        JSON.parse((await cli(['jobs', '--json', '--redis', redis.url])).stdout) as JobInfo[];
      const first = await until(async () =>
        (await jobs()).find((j) => j.id === id && j.state === 'completed'),
      );
      expect(first.result?.summary?.outcomes).toMatchObject({ created: 20 });
      const runId = first.result?.summary?.runId as string;
      await until(async () => hooks.received.length >= 1);
      const report = readFileSync(join(work, 'reports', 'night.csv'), 'utf8');
      expect(report).toContain('created');
      expect((await posts(sb.origin)) - before).toBe(20);

      // Handed out again, as after Redis was down when the run ended.
      const connection = await connectRedis(redis.url, { forQueue: true });
      const queue = openQueue(connection);
      try {
        await (await queue.getJob(id))!.retry('completed');
      } finally {
        await queue.close();
        connection.disconnect();
      }
      const again = await until(async () =>
        (await jobs()).find((j) => j.id === id && j.state === 'completed' && j.runs === 2),
      );
      // Nothing ran: no request, the report as the run wrote it, one webhook, one run folder.
      expect((await posts(sb.origin)) - before).toBe(20);
      expect(readFileSync(join(work, 'reports', 'night.csv'), 'utf8')).toBe(report);
      await new Promise((r) => setTimeout(r, 1000));
      expect(hooks.received.map((r) => r.body.runId)).toEqual([runId]);
      expect(again.result?.exitCode).toBe(0);
      expect(again.result?.summary).toMatchObject({ runId, outcomes: { created: 20 } });
      const runs = readdirSync(join(work, '.catalog-io', 'runs'));
      expect(runs).toEqual([runId]);
      expect(
        JSON.parse(readFileSync(join(work, '.catalog-io', 'runs', runId, 'run.json'), 'utf8')).job,
      ).toMatch(new RegExp(`^${id}@\\d+$`));
      expect(worker.stderr()).toContain(`job ${id}: run ${runId} of this job ended (exit 0, `);

      worker.child.kill('SIGTERM');
      expect((await worker.done).code).toBe(0);
    }, 120_000);

    it('handed out again while its run still runs (its lock lost): waits for that run and completes with it', async () => {
      const { sb } = fixture;
      writeFileSync(
        join(work, 'tenants', 'acme.json'),
        JSON.stringify({ catalogUrl: sb.catalogUrl, damUrl: sb.damUrl, apiKey: sb.apiKey, rateLimit: 'off' }),
      );
      const feed = join(work, 'slow.csv');
      writeFileSync(
        feed,
        `prod_ref,prod_title\n${Array.from({ length: 40 }, (_, i) => `SLOW-${i},Product ${i}`).join('\n')}\n`,
      );
      const before = await posts(sb.origin);
      const delivered = hooks.received.length;
      const added = await cli([
        'enqueue',
        'import',
        feed,
        '--entity',
        'products',
        // Slow enough (about 8 s) for the stalled-job check to hand the job out again while the run goes on,
        // also on a loaded machine.
        '--rate-limit',
        '5/1',
        '--report',
        'reports/slow.csv',
        '--notify',
        `webhook:${hooks.url}`,
        '--notify-on',
        'always',
        '--tenant',
        'acme',
        '--redis',
        redis.url,
      ]);
      expect(added.code, added.stderr).toBe(0);
      const id = added.stdout.trim();
      const w = startCli(['worker', '--redis', redis.url, '--stalled-after', '2', '--concurrency', '2'], {
        cwd: work,
        env: { CATALOG_IO_LOCK_TTL: '2', CATALOG_API_KEY: '', CATALOG_URL: '' },
      });
      worker = w;
      await until(async () => (await posts(sb.origin)) - before >= 5);
      // The job's lock gone, as when Redis was down longer than its lock: BullMQ's stalled-job check
      // hands the job out again while its run goes on.
      const connection = await connectRedis(redis.url, { forQueue: true });
      try {
        expect(await connection.del(`catalog-io:feeds:${id}:lock`)).toBe(1);
      } finally {
        connection.disconnect();
      }
      const jobs = async () =>
        JSON.parse((await cli(['jobs', '--json', '--redis', redis.url])).stdout) as JobInfo[];
      const done = await until(async () =>
        (await jobs()).find((j) => j.id === id && j.state === 'completed'),
      );
      expect(done.runs).toBe(2);
      expect(done.result?.summary?.outcomes).toMatchObject({ created: 40 });
      // One run: every product created once, one report of it, one webhook.
      expect((await posts(sb.origin)) - before).toBe(40);
      const report = readFileSync(join(work, 'reports', 'slow.csv'), 'utf8');
      expect(report.match(/,created,/g)).toHaveLength(40);
      await new Promise((r) => setTimeout(r, 1000));
      expect(hooks.received.slice(delivered).map((r) => r.body.runId)).toEqual([done.result?.summary?.runId]);
      expect(w.stderr()).toContain(
        `job ${id}: run ${done.result?.summary?.runId} of this job ended (exit 0, `,
      );
      expect(w.stderr()).toContain(`job ${id}: its run ${done.result?.summary?.runId} (pid `);
      expect(w.stderr()).toContain('still runs: waiting for its end rather than importing again');
      w.child.kill('SIGTERM');
      expect((await w.done).code).toBe(0);
    }, 120_000);
  },
);
