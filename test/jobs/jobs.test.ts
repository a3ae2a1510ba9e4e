// Feed jobs on a real Redis: enqueue and list in this process, workers as child processes (a worker
// killed mid-job: another takes the job over, nothing created twice), schedules.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { JobInfo } from '../../src/jobs/queue.js';
import { type CliChild, startCli } from '../helpers/cli-child.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';
import { useSandbox } from '../helpers/sandbox.js';

const work = mkdtempSync(join(tmpdir(), 'jobs-'));
mkdirSync(join(work, 'tenants'));

function feed(name: string, rows: number, prefix: string): string {
  const path = join(work, name);
  writeFileSync(
    path,
    `prod_ref,prod_title\n${Array.from({ length: rows }, (_, i) => `${prefix}-${i},Product ${i}`).join('\n')}\n`,
  );
  return path;
}

async function cli(args: string[]) {
  const out = memoryOutput();
  const code = await main(args, out);
  return { code, stdout: out.stdout.join('\n'), stderr: out.stderr.join('\n') };
}

async function posts(origin: string): Promise<number> {
  const res = await request(`${origin}/_sandbox/stats`);
  return ((await res.body.json()) as { byMethod: Record<string, number> }).byMethod.POST ?? 0;
}

describe.runIf(redisTestsRun('test/jobs/jobs.test.ts'))('feed jobs', () => {
  const redis = useRedis();
  const fixture = useSandbox();
  const workers: CliChild[] = [];
  afterAll(() => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  });

  const startWorker = () => {
    const worker = startCli(['worker', '--redis', redis.url, '--stalled-after', '2', '--concurrency', '2'], {
      cwd: work,
      env: { CATALOG_IO_LOCK_TTL: '2', CATALOG_API_KEY: '', CATALOG_URL: '' },
    });
    workers.push(worker);
    return worker;
  };
  const waitFor = async <T>(what: () => Promise<T | undefined>, ms = 60_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const value = await what();
      if (value !== undefined) return value;
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const jobs = async () =>
    JSON.parse((await cli(['jobs', '--json', '--redis', redis.url])).stdout) as JobInfo[];

  it('a job never carries a key or a connection: enqueue refuses them', async () => {
    for (const flag of ['--api-key=abc', '--catalog-url=http://x', '--config=x.json', '--known-hosts=x']) {
      const r = await cli(['enqueue', 'import', 'feed.csv', flag, '--tenant', 'acme', '--redis', redis.url]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('[CONFIG_INVALID]');
      expect(r.stderr).not.toContain('abc');
    }
    const badTenant = await cli([
      'enqueue',
      'import',
      'feed.csv',
      '--tenant',
      '../etc',
      '--redis',
      redis.url,
    ]);
    expect(badTenant.stderr).toContain('[CONFIG_INVALID]');
    const noRedis = await cli(['jobs', '--redis', 'http://nope']);
    expect(noRedis.stderr).toContain('[CONFIG_INVALID]');
    expect(await jobs()).toEqual([]);
  });

  it('a worker runs a queued import with its own credentials for the tenant; jobs lists it with its summary', async () => {
    const { sb } = fixture;
    writeFileSync(
      join(work, 'tenants', 'acme.json'),
      JSON.stringify({ catalogUrl: sb.catalogUrl, damUrl: sb.damUrl, apiKey: sb.apiKey, rateLimit: 'off' }),
    );
    const file = feed('small.csv', 5, 'JOB');
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
    expect((await jobs()).map((j) => [j.id, j.state])).toEqual([[id, 'waiting']]);
    startWorker();
    const done = await waitFor(async () =>
      (await jobs()).find((j) => j.id === id && j.state === 'completed'),
    );
    expect(done.result?.exitCode).toBe(0);
    expect(done.result?.summary?.outcomes).toMatchObject({ created: 5 });
    expect(done.args).toEqual(['--entity', 'products']);
    expect(JSON.stringify(done)).not.toContain(sb.apiKey);
    const text = await cli(['jobs', '--redis', redis.url]);
    expect(text.stdout).toMatch(
      new RegExp(`^${id}\\s+completed\\s+acme\\s+\\S+small\\.csv\\s+runs 1\\s+exit 0: created 5$`, 'm'),
    );
  }, 90_000);

  it('a job for a tenant the worker does not know fails at once, saying so', async () => {
    const added = await cli(['enqueue', 'import', 'x.csv', '--tenant', 'nobody', '--redis', redis.url]);
    const id = added.stdout.trim();
    const failed = await waitFor(async () => (await jobs()).find((j) => j.id === id && j.state === 'failed'));
    expect(failed.failedReason).toMatch(
      /No settings for tenant nobody on this worker: .*nobody\.json not found/,
    );
    expect(failed.attempts).toBe(1);
  }, 90_000);

  it('a worker killed mid-job: another takes the job over and completes it, nothing created twice', async () => {
    const { sb } = fixture;
    const before = await posts(sb.origin);
    // 20 requests a second: 120 rows last some 6 s, long enough a run to kill it after 20 writes.
    const file = feed('long.csv', 120, 'KILL');
    const added = await cli([
      'enqueue',
      'import',
      file,
      '--entity',
      'products',
      '--rate-limit',
      '20/1',
      '--tenant',
      'acme',
      '--redis',
      redis.url,
    ]);
    const id = added.stdout.trim();
    const first = workers[0]!;
    await waitFor(async () => ((await posts(sb.origin)) - before >= 20 ? true : undefined));
    first.child.kill('SIGKILL');
    await first.done;
    const written = (await posts(sb.origin)) - before;
    expect(written).toBeLessThan(120);
    startWorker();
    const done = await waitFor(
      async () => (await jobs()).find((j) => j.id === id && j.state === 'completed'),
      90_000,
    );
    expect(done.result?.exitCode).toBe(0);
    const summary = done.result?.summary as { runId: string; rows: number; outcomes: Record<string, number> };
    expect(summary.rows).toBe(120);
    expect(summary.outcomes.created + (summary.outcomes.unchanged ?? 0)).toBe(120);
    // The second worker continued the dead one's run (its journal, in the shared working folder).
    const runs = readdirSync(join(work, '.catalog-io', 'runs'))
      .map((id) => JSON.parse(readFileSync(join(work, '.catalog-io', 'runs', id, 'run.json'), 'utf8')))
      .filter((run) => String(run.source).endsWith('long.csv'));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ runId: summary.runId, resumes: 1, state: 'finished' });
    expect((await posts(sb.origin)) - before).toBe(120);
  }, 150_000);

  it('schedule add makes a nightly job; list shows its next run; remove ends it', async () => {
    const add = await cli([
      'schedule',
      'add',
      'acme-nightly',
      '--cron',
      '0 2 * * *',
      '--tz',
      'Europe/Paris',
      'import',
      'sftp://feeder@supplier.example/out/feed-*.csv',
      '--profile',
      'supplier.json',
      '--done-dir',
      'done',
      '--tenant',
      'acme',
      '--redis',
      redis.url,
    ]);
    expect(add.code, add.stderr).toBe(0);
    const list = JSON.parse(
      (await cli(['schedule', 'list', '--json', '--redis', redis.url])).stdout,
    ) as Array<{
      name: string;
      cron: string;
      next: number;
      job: { args: string[]; source: string };
    }>;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ name: 'acme-nightly', cron: '0 2 * * *', tz: 'Europe/Paris' });
    expect(list[0]!.job.args).toEqual(['--profile', 'supplier.json', '--done-dir', 'done']);
    const next = new Date(list[0]!.next);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(['01:00', '02:00']).toContain(next.toISOString().slice(11, 16));
    const bad = await cli([
      'schedule',
      'add',
      'x',
      '--cron',
      'not a cron',
      'import',
      'f.csv',
      '--tenant',
      'acme',
      '--redis',
      redis.url,
    ]);
    expect(bad.stderr).toContain('[CONFIG_INVALID]');
    expect((await cli(['schedule', 'remove', 'acme-nightly', '--redis', redis.url])).code).toBe(0);
    expect((await cli(['schedule', 'list', '--redis', redis.url])).stdout).toBe('no schedules');
  });
});

describe.runIf(redisTestsRun('test/jobs/jobs.test.ts'))('stopping workers, killed jobs', () => {
  const redis = useRedis();
  const fixture = useSandbox({ seed: 'empty' });
  const started: CliChild[] = [];
  afterAll(() => {
    for (const w of started) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  });
  const dir = mkdtempSync(join(tmpdir(), 'jobs-stop-'));
  mkdirSync(join(dir, 'tenants'));

  const worker = (...flags: string[]) => {
    const w = startCli(['worker', '--redis', redis.url, '--stalled-after', '2', ...flags], {
      cwd: dir,
      env: { CATALOG_IO_LOCK_TTL: '2', CATALOG_API_KEY: '', CATALOG_URL: '' },
    });
    started.push(w);
    return w;
  };
  const listJobs = async () =>
    JSON.parse((await cli(['jobs', '--json', '--redis', redis.url])).stdout) as JobInfo[];
  const jobIn = async (id: string, states: string[]) =>
    (await listJobs()).find((j) => j.id === id && states.includes(j.state));
  /** The job once it completed; a job that failed for good fails the test with its reason. */
  const completed = async (id: string) => {
    const job = await until(() => jobIn(id, ['completed', 'failed']));
    expect(job.state, `job ${id}: ${job.failedReason} ${JSON.stringify(job.result?.log)}`).toBe('completed');
    return job;
  };
  const until = async <T>(what: () => Promise<T | undefined>, ms = 120_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const value = await what();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const file = (name: string, header: string, rows: number, prefix: string) => {
    const path = join(dir, name);
    const lines = Array.from({ length: rows }, (_, i) => `${prefix}-${i},Item ${i}`);
    writeFileSync(path, `${header}\n${lines.join('\n')}\n`);
    return path;
  };
  /**
   * 10 requests a second by default: a job still runs when the worker is told to stop, and the job
   * beside the killed one still runs when it is killed. The one killed once 10 rows were written needs
   * no such margin: 20 a second, its resume in half the time.
   */
  const enqueue = async (path: string, entity: string, rateLimit = '10/1') => {
    const added = await cli([
      'enqueue',
      'import',
      path,
      '--entity',
      entity,
      '--rate-limit',
      rateLimit,
      '--batch-size',
      '10',
      '--tenant',
      'acme',
      '--retry-delay',
      '0',
      '--redis',
      redis.url,
    ]);
    expect(added.code, added.stderr).toBe(0);
    return added.stdout.trim();
  };
  /** The pid of the running import of `source`, from its run folder. */
  const runPid = (source: string) => {
    const runs = join(dir, '.catalog-io', 'runs');
    for (const id of existsSync(runs) ? readdirSync(runs) : []) {
      // A run's folder is made before its run.json is written.
      if (!existsSync(join(runs, id, 'run.json'))) continue;
      const run = JSON.parse(readFileSync(join(runs, id, 'run.json'), 'utf8'));
      if (String(run.source).endsWith(source) && run.state === 'running') return run.pid as number;
    }
    return undefined;
  };

  it('SIGTERM on a busy worker: its job finishes, a new job goes to the other worker, exit 0; kill -9 of one job leaves the other running and it is resumed; past --drain-timeout a job is interrupted and resumed', async () => {
    const { sb } = fixture;
    writeFileSync(
      join(dir, 'tenants', 'acme.json'),
      JSON.stringify({ catalogUrl: sb.catalogUrl, damUrl: sb.damUrl, apiKey: sb.apiKey }),
    );
    const posted = () => posts(sb.origin);

    // 1. A busy worker told to stop lets its job finish and takes no new one.
    const a = worker('--concurrency', '2');
    await until(async () => a.stderr().includes('taking feed jobs'));
    let before = await posted();
    const long = await enqueue(file('long.csv', 'prod_ref,prod_title', 60, 'STOP'), 'products');
    await until(async () => (await posted()) - before >= 10);
    const b = worker('--concurrency', '2');
    await until(async () => b.stderr().includes('taking feed jobs'));
    a.child.kill('SIGTERM');
    await until(async () => a.stderr().includes('taking no new job'));
    const small = await enqueue(file('cats.csv', 'cat_ref,cat_title', 5, 'STOPCAT'), 'categories');
    const ended = await a.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toContain(`job ${long}: exit 0`);
    expect(ended.stderr).not.toContain(`job ${small}:`);
    const finished = await completed(long);
    expect(finished.runs).toBe(1);
    expect(finished.result?.summary?.outcomes).toMatchObject({ created: 60 });
    await completed(small);
    expect(b.stderr()).toContain(`job ${small}: exit 0`);
    expect((await posted()) - before).toBe(65);

    // 2. kill -9 of one job's process: the worker and its other job run on; the killed job is resumed.
    before = await posted();
    const killed = await enqueue(file('k9.csv', 'prod_ref,prod_title', 80, 'K9'), 'products', '20/1');
    const other = await enqueue(file('k9cats.csv', 'cat_ref,cat_title', 40, 'K9CAT'), 'categories');
    const pid = await until(async () => runPid('k9.csv'));
    await until(async () => (await posted()) - before >= 10);
    process.kill(pid, 'SIGKILL');
    const otherDone = await completed(other);
    expect(otherDone.runs).toBe(1);
    expect(otherDone.result?.exitCode).toBe(0);
    const resumed = await completed(killed);
    expect(resumed.runs).toBe(2);
    expect(resumed.result?.exitCode).toBe(0);
    expect(b.child.exitCode).toBeNull();
    expect(b.stderr()).toContain(`was killed by SIGKILL`);
    expect((await posted()) - before).toBe(120);
    const text = await cli(['jobs', '--redis', redis.url]);
    expect(text.stdout).toMatch(
      new RegExp(`^${killed}\\s+completed\\s+acme\\s+\\S+k9\\.csv\\s+runs 2\\s`, 'm'),
    );

    // 3. Past --drain-timeout a running job is interrupted (resumable); the next worker finishes it.
    b.child.kill('SIGTERM');
    expect((await b.done).code).toBe(0);
    const c = worker('--drain-timeout', '1');
    await until(async () => c.stderr().includes('taking feed jobs'));
    before = await posted();
    const slow = await enqueue(file('slow.csv', 'prod_ref,prod_title', 60, 'SLOW'), 'products');
    await until(async () => (await posted()) - before >= 5);
    c.child.kill('SIGTERM');
    const stopped = await c.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain('1 job(s) interrupted');
    expect(stopped.stderr).toContain(`job ${slow}: exit 143`);
    expect((await posted()) - before).toBeLessThan(60);
    const d = worker();
    const done = await completed(slow);
    expect(done.runs).toBe(2);
    expect(done.result?.exitCode).toBe(0);
    expect((await posted()) - before).toBe(60);
    d.child.kill('SIGTERM');
    expect((await d.done).code).toBe(0);
  }, 400_000);
});
