// Redis faults are run faults, never row faults: a real redis-server flushed, restarted and stopped
// while imports run. The run whose lock is lost stops after its batch in flight as `interrupted`
// (exit 2, LOCK_LOST on stderr even under --quiet --json), every row reported once, none failed for
// Redis; no other run gets the lock while it still writes; --resume finishes it, nothing written twice.
// Timers are shortened by configuration (CATALOG_IO_LOCK_TTL=2: renewals every 0.67 s, the lock
// lost after 1.3 s without Redis), never by sleeping.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parse } from 'papaparse';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { RedisLockStore } from '../../src/lock/redis.js';
import { tenantHash } from '../../src/runs/source-identity.js';
import { startCli } from '../helpers/cli-child.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';
import { useSandbox } from '../helpers/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-faults-'));

function feed(name: string, rows: number, prefix: string): string {
  const path = join(dir, name);
  const lines = Array.from({ length: rows }, (_, i) => `${prefix}-${i},Product ${i}`);
  writeFileSync(path, `prod_ref,prod_title\n${lines.join('\n')}\n`);
  return path;
}

async function posts(origin: string): Promise<number> {
  const res = await request(`${origin}/_sandbox/stats`);
  return ((await res.body.json()) as { byMethod: Record<string, number> }).byMethod.POST ?? 0;
}

async function until(what: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function reportOf(file: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true })
    .data;
}

describe.runIf(redisTestsRun('test/redis/faults.test.ts'))('Redis faults during an import', () => {
  const redis = useRedis();
  const fixture = useSandbox({ seed: 'empty' });
  const env = () => ({ CATALOG_API_KEY: fixture.sb.apiKey, CATALOG_IO_LOCK_TTL: '2' });
  const args = (file: string, report: string) => [
    'import',
    file,
    '--entity',
    'products',
    '--catalog-url',
    fixture.sb.catalogUrl,
    '--dam-url',
    fixture.sb.damUrl,
    '--redis',
    redis.url,
    // 40 a second: 150 rows take some 4 s, and a run that loses its lock (at most 1.3 s after the
    // fault, which comes once 30 rows were written) still leaves rows not attempted.
    '--rate-limit',
    '40/1',
    '--batch-size',
    '10',
    '--report',
    report,
    '--quiet',
    '--json',
  ];

  /** Imports `rows` rows, does `fault` once some were written, then resumes the run to its end. */
  async function faultThenResume(
    name: string,
    rows: number,
    fault: () => Promise<void>,
    beforeResume: () => Promise<void> = async () => {},
  ) {
    const file = feed(`${name}.csv`, rows, name.toUpperCase());
    const report = join(dir, `${name}.report.csv`);
    const before = await posts(fixture.sb.origin);
    const run = startCli(args(file, report), { env: env(), cwd: dir });
    await until(async () => (await posts(fixture.sb.origin)) - before >= 30);
    const faultAt = Date.now();
    await fault();
    const ended = await run.done;
    const stoppedMs = Date.now() - faultAt;
    expect(ended.code, ended.stderr).toBe(2);
    expect(ended.stderr).toContain('[LOCK_LOST]');
    expect(ended.stderr).not.toMatch(/Catalog API|API_NETWORK/);
    const summary = JSON.parse(ended.stdout) as {
      state: string;
      stopReason: string;
      runId: string;
      outcomes: Record<string, number>;
    };
    expect(summary).toMatchObject({ state: 'interrupted', stopReason: 'lock-lost' });
    // Every row once; none failed because of Redis; what was not reached is said so.
    const lines = reportOf(report);
    expect(lines).toHaveLength(rows);
    expect(new Set(lines.map((l) => l.ref)).size).toBe(rows);
    expect(lines.filter((l) => l.outcome === 'failed' || l.outcome === 'invalid')).toEqual([]);
    expect(summary.outcomes.created + summary.outcomes['not-attempted']).toBe(rows);
    expect(summary.outcomes['not-attempted']).toBeGreaterThan(0);
    expect((await posts(fixture.sb.origin)) - before).toBe(summary.outcomes.created);

    await beforeResume();
    const resumed = await startCli([...args(file, report), '--resume', summary.runId, '--wait-lock', '30'], {
      env: env(),
      cwd: dir,
    }).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    const finished = JSON.parse(resumed.stdout) as { rows: number; outcomes: Record<string, number> };
    expect(finished.rows).toBe(rows);
    expect(reportOf(report).filter((l) => l.outcome === 'created')).toHaveLength(rows);
    // Nothing written twice.
    expect((await posts(fixture.sb.origin)) - before).toBe(rows);
    return { stoppedMs };
  }

  it('FLUSHALL mid-run: the run stops as interrupted (LOCK_LOST), the limiter re-creates its state, --resume finishes', async () => {
    const { stoppedMs } = await faultThenResume('flushed', 150, () => redis.flush());
    expect(stoppedMs).toBeLessThan(15_000);
  }, 120_000);

  it('Redis restarted mid-run (down 1 s): the same, and the run never fails a row', async () => {
    await faultThenResume('restarted', 150, () => redis.restart(1000));
  }, 120_000);

  it('Redis gone for good: the batch in flight ends at the process own pace, the run stops within seconds, LOCK_LOST', async () => {
    const { stoppedMs } = await faultThenResume(
      'gone',
      150,
      () => redis.stop(),
      // Back (empty) for the resume, once the run has ended.
      () => redis.start(),
    );
    expect(stoppedMs).toBeLessThan(15_000);
  }, 120_000);

  it('after a flush no other run gets the lock while the first still writes: refused, 0 requests sent', async () => {
    const file = feed('fenced.csv', 100, 'FENCED');
    const report = join(dir, 'fenced.report.csv');
    // The first run stops (and stays) before batch 2, holding its lock: nothing of it in flight, so
    // the sandbox's count below is the newcomer's alone.
    const first = startCli(args(file, report), {
      env: { ...env(), CATALOG_IO_TEST_PAUSE_AT: 'batch:2' },
      cwd: dir,
    });
    await until(() => first.stderr().includes('paused at batch:2'));
    await redis.flush();
    // Taken at once after the flush, before the holder could notice: the newcomer waits for it.
    const client = new Redis(redis.url);
    try {
      const keyId = createHash('sha256').update(fixture.sb.apiKey).digest('hex').slice(0, 12);
      const scope = { tenant: tenantHash(fixture.sb.catalogUrl, keyId), entity: 'products' };
      const holder = {
        runId: 'newcomer',
        pid: process.pid,
        host: hostname(),
        startedAt: new Date().toISOString(),
      };
      await expect(new RedisLockStore(client, { ttlMs: 2000 }).acquire(scope, holder)).rejects.toMatchObject({
        code: 'LOCKED',
      });
    } finally {
      client.disconnect();
    }
    await until(() => first.stderr().includes('[LOCK_LOST]'));
    const before = await (await request(`${fixture.sb.origin}/_sandbox/stats`)).body.json();
    const second = await startCli(args(feed('fenced2.csv', 10, 'FENCED2'), join(dir, 'f2.csv')), {
      env: env(),
      cwd: dir,
    }).done;
    expect(second.code, second.stderr).toBe(75);
    const after = await (await request(`${fixture.sb.origin}/_sandbox/stats`)).body.json();
    expect((after as { total: number }).total).toBe((before as { total: number }).total);
    first.child.kill('SIGKILL');
    await first.done;
  }, 120_000);
});
