// A run whose process is frozen (SIGSTOP) past its lock's TTL, while another run takes the lock over,
// sends no write once it runs again (SIGCONT): each write first checks that the lock's last confirmed
// renewal is recent enough, and else waits for a renewal, which finds the lock taken. The writes it
// held back are not sent and their rows are `not-attempted`, saying the lock was lost; the run ends
// LOCK_LOST (exit 2). QA's outage scenario s5, scaled down: CATALOG_IO_LOCK_TTL=2 (renewals every
// 0.67 s, writes wait for a renewal once the last is 1.3 s old) instead of the 30 s of a lock file.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'papaparse';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli-child.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';
import { useSandbox } from '../helpers/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-lock-frozen-'));

function feed(name: string, rows: number, prefix: string): string {
  const path = join(dir, name);
  const lines = Array.from({ length: rows }, (_, i) => `${prefix}-${i},Product ${i}`);
  writeFileSync(path, `prod_ref,prod_title\n${lines.join('\n')}\n`);
  return path;
}

/** Write requests (POST, PUT, PATCH, DELETE) the sandbox received so far. */
async function writes(origin: string): Promise<number> {
  const res = await request(`${origin}/_sandbox/stats`);
  const byMethod = ((await res.body.json()) as { byMethod: Record<string, number> }).byMethod;
  return ['POST', 'PUT', 'PATCH', 'DELETE'].reduce((n, m) => n + (byMethod[m] ?? 0), 0);
}

async function until(what: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(redisTestsRun('test/redis/lock-frozen.test.ts'))('a run frozen past its lock', () => {
  const redis = useRedis();
  const fixture = useSandbox({ seed: 'empty', latencyMs: 40 });
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
    '--rate-limit',
    'off',
    '--batch-size',
    '50',
    '--report',
    report,
    '--quiet',
    '--json',
  ];

  it('sends no write after SIGCONT once another run took the lock: the rows held back are not-attempted, LOCK_LOST', async () => {
    const rows = 3000;
    const file = feed('frozen.csv', rows, 'FRZ');
    const report = join(dir, 'frozen.report.csv');
    const a = startCli(args(file, report), { env: env(), cwd: dir });
    const before = await writes(fixture.sb.origin);
    await until(async () => (await writes(fixture.sb.origin)) - before >= 100);
    a.child.kill('SIGSTOP');
    let b: ReturnType<typeof startCli> | undefined;
    try {
      // B waits for the lock, takes it over once A's key expired, and holds it (paused before its
      // first batch): from here on, every write the sandbox gets would be A's.
      const other = feed('other.csv', 10, 'OTH');
      b = startCli([...args(other, join(dir, 'other.report.csv')), '--wait-lock', '60'], {
        env: { ...env(), CATALOG_IO_TEST_PAUSE_AT: 'batch:1' },
        cwd: dir,
      });
      const bRun = b;
      await until(() => bRun.stderr().includes('paused at batch:1'));
      expect(b.stderr()).toContain('took over the lock');
      // A's requests in flight when it was stopped have reached the sandbox by now.
      await sleep(500);
      const whileFrozen = await writes(fixture.sb.origin);
      a.child.kill('SIGCONT');
      const ended = await a.done;
      expect(ended.code, ended.stderr).toBe(2);
      expect(ended.stderr).toContain('[LOCK_LOST]');
      // Not one write of A after it ran again: the lock was B's.
      expect(await writes(fixture.sb.origin)).toBe(whileFrozen);
      const summary = JSON.parse(ended.stdout) as { stopReason: string; outcomes: Record<string, number> };
      expect(summary.stopReason).toBe('lock-lost');
      expect(summary.outcomes.failed ?? 0).toBe(0);
      expect(summary.outcomes.created + summary.outcomes['not-attempted']).toBe(rows);
      expect(summary.outcomes.created).toBe(whileFrozen - before);
      // Every row once; those not written say the lock was lost and another run may hold it.
      const lines = parse<Record<string, string>>(readFileSync(report, 'utf8'), {
        header: true,
        skipEmptyLines: true,
      }).data;
      expect(lines).toHaveLength(rows);
      const notAttempted = lines.filter((l) => l.outcome === 'not-attempted');
      expect(notAttempted).toHaveLength(summary.outcomes['not-attempted']!);
      for (const line of notAttempted) {
        expect(line.message).toMatch(/lost its lock \(another run may hold it\)/);
      }
    } finally {
      a.child.kill('SIGCONT');
      b?.child.kill('SIGKILL');
      await b?.done;
    }
  }, 120_000);
});
