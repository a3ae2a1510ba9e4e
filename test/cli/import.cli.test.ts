// `catalog-io import` end to end: main([...]) against a real sandbox over loopback. Exit codes, the
// summary, --json, --plan, --max-errors, report and rejects files, --entity with a space.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { call, sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty', processingMs: 50 });
let dir: string;

const connection = () => [...sandboxFlags(fixture.sb, { rateLimit: 'off' })];

interface Stats {
  total: number;
  byMethod: Record<string, number>;
}

async function stats(): Promise<Stats> {
  return (await call(fixture.sb.origin, '/_sandbox/stats')).body as Stats;
}

async function resetStats(): Promise<void> {
  await call(fixture.sb.origin, '/_sandbox/stats/reset', { method: 'POST' });
}

async function run(args: string[]) {
  const out = memoryOutput();
  const code = await main(args, out);
  const all = [...out.stdout, ...out.stderr].join('\n');
  expect(all).not.toContain(fixture.sb.apiKey);
  expect(all).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
  return { code, out, stderr: out.stderr.join('\n') };
}

async function feed(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

async function csv(file: string): Promise<Array<Record<string, string>>> {
  return Papa.parse<Record<string, string>>(await readFile(file, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

async function products(): Promise<Map<string, Record<string, unknown>>> {
  const res = await call(fixture.sb.catalogUrl, '/Products?$top=100', { key: fixture.sb.apiKey });
  const list = (res.body as { value: Array<Record<string, unknown>> }).value;
  return new Map(list.map((p) => [String(p.prod_ref), p]));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'import-cli-'));
});

describe('exit codes', () => {
  it('0 when every row is ok; the summary names counts and requests', async () => {
    const file = await feed('ok.csv', 'prod_ref,prod_title\nE-1,One\nE-2,Two\n');
    const { code, stderr } = await run(['import', file, ...connection()]);
    expect(code).toBe(0);
    expect(stderr).toContain('2 rows in');
    expect(stderr).toContain('created 2');
    expect(stderr).toMatch(/requests: \d+ \(GET \d+, POST 2\), 0 retries, 0 × 429/);
  });

  it('1 when some rows failed or were invalid; report and rejects hold them', async () => {
    const file = await feed(
      'some-bad.csv',
      '_command,prod_ref,prod_title,prod_weight\n,E-3,Three,1\n,E-4,Four,heavy\nNEW,E-1,Again,\n',
    );
    const report = join(dir, 'some-bad.report.csv');
    const rejects = join(dir, 'some-bad.rejects.csv');
    const { code, stderr } = await run([
      'import',
      file,
      '--report',
      report,
      '--rejects',
      rejects,
      ...connection(),
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain('created 1 · invalid 1 · failed 1');
    expect(stderr).toContain(`rejects: ${rejects}`);

    const lines = await csv(report);
    expect(Object.keys(lines[0]!)).toEqual([
      'location',
      'entity',
      'ref',
      'outcome',
      'id',
      'status',
      'changed',
      'field',
      'column',
      'value',
      'message',
      'warnings',
      'assets',
    ]);
    expect(lines.map((l) => [l.location, l.ref, l.outcome])).toEqual([
      ['line 2', 'E-3', 'created'],
      ['line 3', 'E-4', 'invalid'],
      ['line 4', 'E-1', 'failed'],
    ]);
    expect(lines[0]!.id).toMatch(/^\d+$/);
    expect(lines[0]!.status).toBe('201');
    expect(lines[1]).toMatchObject({ field: 'prod_weight', column: 'prod_weight', value: 'heavy' });

    // The rejects file: the input's own columns plus _error and _source, ready to fix and import again.
    const rejected = await csv(rejects);
    expect(Object.keys(rejected[0]!)).toEqual([
      '_command',
      'prod_ref',
      'prod_title',
      'prod_weight',
      '_error',
      '_source',
    ]);
    expect(rejected.map((r) => r._source)).toEqual(['line 3', 'line 4']);
    expect(rejected.map((r) => r.prod_ref)).toEqual(['E-4', 'E-1']);
    expect(rejected[0]!.prod_weight).toBe('heavy');
    expect(rejected[1]!._error).toMatch(/already exists/);
  });

  it('2 for a file that cannot be read, and for a bad flag', async () => {
    const missing = await run(['import', join(dir, 'nope.csv'), ...connection()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.csv/);

    const notCsv = await feed('binary.csv', '\u0000\u0001\u0002PK\u0003\u0004');
    const unreadable = await run(['import', notCsv, ...connection()]);
    expect(unreadable.code).toBe(2);

    const file = await feed('flags.csv', 'prod_ref,prod_title\nE-9,Nine\n');
    const badMode = await run(['import', file, '--mode', 'sideways', ...connection()]);
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toMatch(/mode/);
    const badBatch = await run(['import', file, '--batch-size', '500', ...connection()]);
    expect(badBatch.code).toBe(2);
    expect(badBatch.stderr).toContain(
      '--batch-size must be a whole number from 1 to 100 (records looked up per batch), found 500',
    );
    const badEntity = await run(['import', file, '--entity', 'widgets', ...connection()]);
    expect(badEntity.code).toBe(2);
    // Nothing was written by any of them.
    expect((await products()).has('E-9')).toBe(false);
  });

  it('a missing file is said first: nothing is started or asked of the tenant', async () => {
    await resetStats();
    for (const command of ['import', 'validate']) {
      const out = memoryOutput();
      // No --catalog-url: had the command connected first, it would start the embedded sandbox and say so.
      const code = await main([command, join(dir, 'missing.csv')], out);
      expect(code).toBe(2);
      expect(out.stderr).toEqual([
        `catalog-io: File not found: ${join(dir, 'missing.csv')} [SOURCE_NOT_FOUND]`,
      ]);
    }
    expect((await stats()).total).toBe(0);
  });

  it('--rate is the short form of --rate-limit, and --concurrency is checked', async () => {
    const file = await feed('rate.csv', 'prod_ref,prod_title\nR-1,One\n');
    const base = connection().slice(0, 6); // without --rate-limit off
    const badRate = await run(['import', file, '--rate', 'fast', ...base]);
    expect(badRate.code).toBe(2);
    expect(badRate.stderr).toMatch(/rate-limit/);
    const badConcurrency = await run(['import', file, '--concurrency', 'many', ...base]);
    expect(badConcurrency.code).toBe(2);
    const paced = await run(['import', file, '--rate', '100/1', '--concurrency', '2', ...base]);
    expect(paced.code).toBe(0);
    expect((await products()).has('R-1')).toBe(true);
  });

  it('3 when --max-errors is reached: the run stops and says so', async () => {
    const rows = ['prod_ref,prod_title,prod_weight'];
    for (let i = 0; i < 30; i++) rows.push(`ME-${i},Item,${i % 3 === 0 ? 'bad' : i}`);
    const file = await feed('max-errors.csv', rows.join('\n'));
    const report = join(dir, 'max-errors.report.csv');
    const { code, stderr } = await run([
      'import',
      file,
      '--max-errors',
      '3',
      '--batch-size',
      '5',
      '--report',
      report,
      ...connection(),
    ]);
    expect(code).toBe(3);
    expect(stderr).toContain('stopped: --max-errors 3 reached');
    // One line per source row: the rows after the stop are there, not attempted.
    const lines = await csv(report);
    expect(lines).toHaveLength(30);
    expect(lines.filter((l) => l.outcome === 'invalid').length).toBeGreaterThanOrEqual(3);
    const notAttempted = lines.filter((l) => l.outcome === 'not-attempted');
    expect(notAttempted.length).toBeGreaterThan(0);
    expect(notAttempted[0]!.message).toContain('--max-errors');
  });

  it('1 when an image registered by the run failed processing (--wait-for-images)', async () => {
    // A name of its own: the CLI keeps an asset cache per tenant in the working directory.
    const name = `cli-fail-${Date.now()}.png`;
    const file = await feed(
      'wait.csv',
      `prod_ref,prod_title,prod_images\nWI-1,One,${fixture.sb.assetsUrl}/${name}?process=fail\n`,
    );
    const { code, stderr } = await run(['import', file, '--wait-for-images', ...connection()]);
    expect(code).toBe(1);
    expect(stderr).toContain(`images that failed processing: ${name}`);
  });
});

describe('--json and --plan', () => {
  it('--json prints one summary object on stdout', async () => {
    const file = await feed('json.csv', 'prod_ref,prod_title\nJS-1,One\n');
    const { code, out } = await run(['import', file, '--json', ...connection()]);
    expect(code).toBe(0);
    expect(out.stdout).toHaveLength(1);
    const summary = JSON.parse(out.stdout[0]!);
    expect(summary).toMatchObject({ rows: 1, plan: false, stopped: false, outcomes: { created: 1 } });
    expect(summary.requests.byMethod.POST).toBe(1);
    expect(summary.requests).toMatchObject({ retries: 0, rateLimited: 0 });
    const sent = Object.values(summary.requests.byMethod as Record<string, number>).reduce(
      (a, b) => a + b,
      0,
    );
    expect(summary.requests.total).toBe(sent);
  });

  it('--plan writes nothing and reports would-create / would-update with old -> new', async () => {
    await run(['import', await feed('plan-base.csv', 'prod_ref,prod_title\nPL-1,Old\n'), ...connection()]);
    const file = await feed('plan.csv', 'prod_ref,prod_title\nPL-1,New\nPL-2,Fresh\n');
    const report = join(dir, 'plan.report.csv');
    await resetStats();
    const { code, stderr } = await run(['import', file, '--plan', '--report', report, ...connection()]);
    expect(code).toBe(0);
    expect(stderr).toContain('(plan: nothing was written)');
    expect(stderr).toContain('would-create 1 · would-update 1');
    const s = await stats();
    expect(Object.keys(s.byMethod)).toEqual(['GET']);
    const lines = await csv(report);
    expect(lines.map((l) => [l.ref, l.outcome, l.changed])).toEqual([
      ['PL-1', 'would-update', 'prod_title_en: "Old" -> "New"'],
      ['PL-2', 'would-create', ''],
    ]);
    expect((await products()).get('PL-1')!.prod_title).toBe('Old');
  });
});

describe('entities', () => {
  it('--entity "custom:Store Locations"', async () => {
    const file = await feed('stores.csv', 'ce_ref,ce_name,ce_city\nCS-1,Corner shop,Nantes\n');
    const { code, stderr } = await run([
      'import',
      file,
      '--entity',
      'custom:Store Locations',
      ...connection(),
    ]);
    expect(code).toBe(0);
    expect(stderr).toContain('created 1');
    const res = await call(fixture.sb.catalogUrl, "/CustomEntities('Store%20Locations')?$top=100", {
      key: fixture.sb.apiKey,
    });
    const stores = (res.body as { value: Array<Record<string, unknown>> }).value;
    expect(stores.find((s) => s.ce_ref === 'CS-1')!.ce_city).toBe('Nantes');
  });

  it('variants by profile, categories out of order with --batch-size 2', async () => {
    const profile = join(dir, 'variants.json');
    await writeFile(profile, JSON.stringify({ entity: 'products', variants: true }));
    const file = await feed(
      'pv.csv',
      'prod_ref,prod_title,frmt_ref,frmt_price\nPV-1,Tee,PV-1-S,5\nPV-1,Tee,PV-1-M,5\n',
    );
    const pv = await run(['import', file, '--profile', profile, ...connection()]);
    expect(pv.code).toBe(0);

    const cats = await feed(
      'cats.csv',
      'cat_ref,cat_title,cat_parent_ref\nCC-2,Two,CC-1\nCC-3,Three,CC-2\nCC-1,One,\n',
    );
    const c = await run(['import', cats, '--entity', 'categories', '--batch-size', '2', ...connection()]);
    expect(c.code).toBe(0);
    expect(c.stderr).toContain('created 3');
  });
});
