// --redis across processes: three imports into one sandbox tenant that allows 50 requests per 10 s
// share its limit (no 429, together at least 95% of the limit); a killed import's lock expires and
// the next run of that feed takes it over and completes, nothing created twice.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli-child.js';
import { redisTestsRun, useRedis } from '../helpers/redis-server.js';
import { useSandbox } from '../helpers/sandbox.js';

interface Stats {
  total: number;
  byMethod: Record<string, number>;
  byStatus: Record<string, number>;
}

const dir = mkdtempSync(join(tmpdir(), 'shared-import-'));

function feed(name: string, header: string, rows: number, row: (i: number) => string): string {
  const path = join(dir, name);
  writeFileSync(path, `${header}\n${Array.from({ length: rows }, (_, i) => row(i)).join('\n')}\n`);
  return path;
}

async function stats(origin: string): Promise<Stats> {
  const res = await request(`${origin}/_sandbox/stats`);
  return (await res.body.json()) as Stats;
}

describe.runIf(redisTestsRun('test/redis/import.shared.test.ts'))('imports sharing Redis', () => {
  const redis = useRedis();
  const limited = useSandbox({ rateLimit: { requests: 50, windowSeconds: 10 } });
  const open = useSandbox();

  const connection = (sb: typeof limited.sb) => [
    '--catalog-url',
    sb.catalogUrl,
    '--dam-url',
    sb.damUrl,
    '--redis',
    redis.url,
    '--quiet',
  ];

  it('three processes stay within the tenant limit together: no 429, at least 95% of it', async () => {
    const sb = limited.sb;
    const env = { CATALOG_API_KEY: sb.apiKey };
    const feeds = [
      ['categories', feed('cats.csv', 'cat_ref,cat_title', 36, (i) => `RC-${i},Category ${i}`)],
      ['products', feed('prods.csv', 'prod_ref,prod_title', 36, (i) => `RP-${i},Product ${i}`)],
      [
        'custom:Store Locations',
        feed('stores.csv', 'ce_ref,ce_name,ce_city', 36, (i) => `RS-${i},Store ${i},Lyon`),
      ],
    ] as const;
    const before = await stats(sb.origin);
    const runs = feeds.map(([entity, file]) =>
      startCli(['import', file, '--entity', entity, '--rate-limit', '50/10', ...connection(sb)], {
        env,
        cwd: dir,
      }),
    );
    // The sandbox's count, sampled: the rate is measured from the first request seen to the last.
    const samples: Array<{ at: number; total: number }> = [];
    let running = true;
    const sampling = (async () => {
      while (running) {
        samples.push({ at: Date.now(), total: (await stats(sb.origin)).total });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const results = await Promise.all(runs.map((r) => r.done));
    running = false;
    await sampling;
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const after = await stats(sb.origin);
    expect(after.byStatus['429'] ?? 0).toBe(0);
    const requests = after.total - before.total;
    expect(requests).toBeGreaterThan(110);
    // The combined rate once the three are under way: from the 20th to the 80th percent of the
    // requests (process start-up, one at a time under load, and the last one finishing alone excluded).
    const at = (share: number) => samples.find((s) => s.total - before.total >= requests * share)!;
    const from = at(0.2);
    const to = at(0.8);
    const perWindow = ((to.total - from.total) / (to.at - from.at)) * 10_000;
    expect(perWindow).toBeGreaterThanOrEqual(50 * 0.95);
    expect(perWindow).toBeLessThanOrEqual(50);
  }, 120_000);

  it("a killed import's lock expires; --resume on another process takes it over and completes, nothing created twice", async () => {
    const sb = open.sb;
    const env = { CATALOG_API_KEY: sb.apiKey, CATALOG_IO_LOCK_TTL: '4' };
    const file = feed('kill.csv', 'prod_ref,prod_title', 100, (i) => `KP-${i},Product ${i}`);
    const args = ['import', file, '--entity', 'products', '--rate-limit', '20/1', ...connection(sb)];
    // Run folders (journals) in the test's own folder, shared by the killed run and the resumed one.
    const victim = startCli(args, { env, cwd: dir });
    // Killed once it has written some rows.
    while (((await stats(sb.origin)).byMethod.POST ?? 0) < 20) await new Promise((r) => setTimeout(r, 50));
    victim.child.kill('SIGKILL');
    await victim.done;
    const written = (await stats(sb.origin)).byMethod.POST ?? 0;
    expect(written).toBeLessThan(100);

    // The dead run's lock is still in Redis until its TTL passes: the next run waits for it.
    const t0 = Date.now();
    const rerun = await startCli([...args, '--resume', '--wait-lock', '60', '--json'], { env, cwd: dir })
      .done;
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/took over the lock of run \S+ \(pid \d+/);
    const summary = JSON.parse(rerun.stdout) as { rows: number; outcomes: Record<string, number> };
    // The killed run's finished rows are carried over, the rest written once.
    expect(summary.rows).toBe(100);
    expect(summary.outcomes.created + (summary.outcomes.unchanged ?? 0)).toBe(100);
    const total = (await stats(sb.origin)).byMethod.POST ?? 0;
    expect(total).toBe(100);
  }, 120_000);
});
