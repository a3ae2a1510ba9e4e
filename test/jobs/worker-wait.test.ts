// A worker started while Redis is down (a reboot where Redis comes up late) waits for it, saying so,
// and takes jobs once it is up; a signal while it waits ends it at once (130/143). A real
// redis-server stopped and started, workers as child processes, the sandbox.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { JobInfo } from '../../src/jobs/queue.js';
import { type CliChild, startCli } from '../helpers/cli-child.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';
import { useSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/webhook-receiver.js';

const work = mkdtempSync(join(tmpdir(), 'jobs-wait-'));
mkdirSync(join(work, 'tenants'));

async function cli(args: string[]) {
  const out = memoryOutput();
  const code = await main(args, out);
  return { code, stdout: out.stdout.join('\n'), stderr: out.stderr.join('\n') };
}

describe.runIf(redisTestsRun('test/jobs/worker-wait.test.ts'))('a worker started before Redis', () => {
  const redis = useRedis();
  const fixture = useSandbox({ seed: 'empty' });
  const started: CliChild[] = [];
  afterAll(async () => {
    for (const w of started)
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await redis.start().catch(() => undefined);
  });
  const worker = () => {
    const w = startCli(['worker', '--redis', redis.url, '--stalled-after', '2'], {
      cwd: work,
      env: { CATALOG_API_KEY: '', CATALOG_URL: '' },
    });
    started.push(w);
    return w;
  };

  it('waits for Redis, saying since when, then runs the jobs queued once it is up', async () => {
    const { sb } = fixture;
    writeFileSync(
      join(work, 'tenants', 'acme.json'),
      JSON.stringify({ catalogUrl: sb.catalogUrl, damUrl: sb.damUrl, apiKey: sb.apiKey, rateLimit: 'off' }),
    );
    await redis.stop();
    const w = worker();
    await until(() => w.stderr().includes('waiting for it since'));
    expect(w.stderr()).toMatch(
      /^worker: Cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+: ECONNREFUSED; waiting for it since \d\d:\d\d:\d\d, trying again in 1 s/m,
    );
    // Still there after a few tries.
    await new Promise((r) => setTimeout(r, 3500));
    expect(w.child.exitCode).toBeNull();
    await redis.start();
    await until(() => w.stderr().includes('taking feed jobs'), 40_000);
    expect(w.stderr()).toMatch(/worker: Redis at redis:\/\/127\.0\.0\.1:\d+ answers \(waited since /);
    const file = join(work, 'late.csv');
    writeFileSync(file, 'prod_ref,prod_title\nLATE-1,One\nLATE-2,Two\n');
    const added = await cli([
      'enqueue',
      'import',
      file,
      '--entity',
      'products',
      '--tenant',
      'acme',
      '--redis',
      redis.url,
    ]);
    expect(added.code, added.stderr).toBe(0);
    const id = added.stdout.trim();
    const done = await until(async () =>
      (JSON.parse((await cli(['jobs', '--json', '--redis', redis.url])).stdout) as JobInfo[]).find(
        (j) => j.id === id && j.state === 'completed',
      ),
    );
    expect(done.result?.summary?.outcomes).toMatchObject({ created: 2 });
    w.child.kill('SIGTERM');
    expect((await w.done).code).toBe(0);
  }, 90_000);

  it('SIGTERM or SIGINT while it waits ends it at once: 143, 130', async () => {
    await redis.stop();
    for (const [signal, code] of [
      ['SIGTERM', 143],
      ['SIGINT', 130],
    ] as const) {
      const w = worker();
      await until(() => w.stderr().includes('waiting for it since'));
      const sent = Date.now();
      w.child.kill(signal);
      const ended = await w.done;
      expect(ended.code, ended.stderr).toBe(code);
      expect(Date.now() - sent).toBeLessThan(3000);
      expect(ended.stderr).toContain(`worker: ${signal} while waiting for Redis: stopped`);
    }
  }, 60_000);
});
