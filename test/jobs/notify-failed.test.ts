// A job that fails in the worker before its import starts (no settings for its tenant there) is
// told to the job's --notify targets by the worker, with --notify-on respected: a real redis-server,
// a worker as a child process and a webhook receiver on loopback.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { type CliChild, startCli } from '../helpers/cli-child.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';

const work = mkdtempSync(join(tmpdir(), 'jobs-notify-'));
mkdirSync(join(work, 'tenants'));

async function cli(args: string[]) {
  const out = memoryOutput();
  const code = await main(args, out);
  return { code, stdout: out.stdout.join('\n'), stderr: out.stderr.join('\n') };
}

describe.runIf(redisTestsRun('test/jobs/notify-failed.test.ts'))('a job failed in the worker', () => {
  const redis = useRedis();
  const hooks = useWebhookReceiver();
  let worker: CliChild | undefined;
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGKILL');
      await worker.done.catch(() => undefined);
    }
  });

  it('no settings for its tenant: the job is failed and its webhook told why, under the default --notify-on and always', async () => {
    const enqueue = async (tenant: string, ...args: string[]) => {
      const r = await cli([
        'enqueue',
        'import',
        'feed.csv',
        ...args,
        '--tenant',
        tenant,
        '--redis',
        redis.url,
      ]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trim();
    };
    // Queued before the others and run first (one at a time): no --notify, nobody is told.
    await enqueue('silent', '--entity', 'products');
    const ghost = await enqueue(
      'ghost',
      '--entity',
      'products',
      '--notify',
      `webhook:${hooks.url}?job=default`,
    );
    const always = await enqueue(
      'ghost2',
      `--notify=webhook:${hooks.url}?job=always`,
      '--notify-on',
      'always',
    );
    worker = startCli(['worker', '--redis', redis.url, '--concurrency', '1'], {
      cwd: work,
      env: { CATALOG_API_KEY: 'worker-secret-key', CATALOG_URL: '' },
    });
    const end = Date.now() + 60_000;
    while (hooks.received.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    expect(hooks.received.map((r) => r.path).sort()).toEqual(['/hook?job=always', '/hook?job=default']);
    const told = hooks.received.find((r) => r.path === '/hook?job=default')!.body;
    expect(told).toMatchObject({ command: 'import', source: 'feed.csv', state: 'crashed', exitCode: 2 });
    expect(told.message).toMatch(
      new RegExp(
        `^Job ${ghost} \\(import for tenant ghost\\) failed on the worker before the import started: No settings for tenant ghost on this worker: .*ghost\\.json not found$`,
      ),
    );
    expect(hooks.received.find((r) => r.path === '/hook?job=always')!.body.message).toContain(
      `Job ${always} `,
    );
    expect(JSON.stringify(hooks.received)).not.toContain('worker-secret-key');
    expect(worker.stderr()).toContain(`job ${ghost}: notified: webhook http://127.0.0.1:`);
    expect(worker.stderr()).not.toContain('worker-secret-key');
    // The last job is failed once its notification is sent: waited for.
    const failed = async () =>
      (
        JSON.parse((await cli(['jobs', '--json', '--redis', redis.url])).stdout) as { state: string }[]
      ).filter((j) => j.state === 'failed').length;
    while ((await failed()) < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    expect(await failed()).toBe(3);
  }, 90_000);

  it('an attempt the worker retries tells nobody; the last attempt tells, saying so, with no made-up run id', async () => {
    // A supplier's SFTP server that is down: every attempt fails before its run starts (SOURCE_UNREADABLE).
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    writeFileSync(
      join(work, 'tenants', 'down.json'),
      JSON.stringify({
        catalogUrl: 'http://127.0.0.1:9/catalog',
        damUrl: 'http://127.0.0.1:9/dam',
        apiKey: 'tenant-secret-key',
        sftp: { password: 'sftp-secret-pw', hostKey: `SHA256:${'A'.repeat(43)}` },
      }),
    );
    hooks.received.length = 0;
    const r = await cli([
      'enqueue',
      'import',
      `sftp://feeds@127.0.0.1:${port}/out/feed-*.csv`,
      '--entity',
      'products',
      '--notify',
      `webhook:${hooks.url}?job=retried`,
      '--attempts',
      '3',
      '--retry-delay',
      '0',
      '--tenant',
      'down',
      '--redis',
      redis.url,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    const end = Date.now() + 60_000;
    const job = async () =>
      (
        JSON.parse((await cli(['jobs', '--json', '--redis', redis.url])).stdout) as {
          id: string;
          state: string;
          attempts: number;
        }[]
      ).find((j) => j.id === id);
    while ((await job())?.state !== 'failed' && Date.now() < end)
      await new Promise((r) => setTimeout(r, 200));
    expect(await job()).toMatchObject({ state: 'failed', attempts: 3 });
    await new Promise((r) => setTimeout(r, 500));
    expect(hooks.received).toHaveLength(1);
    const told = hooks.received[0]!.body;
    expect(told).toMatchObject({ runId: '', state: 'crashed', exitCode: 2 });
    expect(told.message).toMatch(/ECONNREFUSED \(attempt 3 of 3 of the queued job, the last\)$/);
    expect(told.message).not.toContain('--resume');
    expect(JSON.stringify(hooks.received)).not.toMatch(/tenant-secret-key|sftp-secret-pw/);
  }, 90_000);
});
