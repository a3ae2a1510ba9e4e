// The console in a real browser (Debian's chromium driven by playwright-core) over runs made by real
// imports on a sandbox: the runs list, a run's failed rows and grouped problems, a plan's diffs, a live
// import's progress moving, a dropped file validated; and a bind beyond loopback refused without a token.
// One browser for the file; each page is also saved as a screenshot (docs/console.png is one of them).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleHandle, startConsole } from '../../src/console/server.js';
import { startCli } from '../helpers/cli-child.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const CHROMIUM = '/usr/bin/chromium';
const chromiumThere =
  existsSync(CHROMIUM) && spawnSync(CHROMIUM, ['--version'], { stdio: 'ignore' }).status === 0;
const run = chromiumThere || Boolean(process.env.CI);
if (!run)
  console.warn(
    `\n*** SKIPPED: test/console/console.browser.test.ts needs Debian's chromium at ${CHROMIUM} (apt-get install chromium). On CI these tests never skip. ***\n`,
  );

const ROOT = join(import.meta.dirname, '../..');
const DOCS_SHOT = join(ROOT, 'docs', 'console.png');
const fixture = useSandbox();

const PROFILE = {
  entity: 'products',
  columns: { SKU: 'prod_ref', Name: 'prod_title', 'Weight (kg)': 'prod_weight' },
};

/** A feed of `rows` products; every `badEvery`-th row has a weight that is no number. */
function feed(prefix: string, rows: number, badEvery = 0, name = (i: number) => `Product ${i}`): string {
  let text = 'SKU,Name,Weight (kg)\n';
  for (let i = 1; i <= rows; i++)
    text += `${prefix}-${i},${name(i)},${badEvery && i % badEvery === 0 ? `heavy-${i}` : `0.${i % 10}`}\n`;
  return text;
}

describe.runIf(run)('the console in a browser', () => {
  let work: string;
  let shots: string;
  let consoleHandle: ConsoleHandle;
  let context: BrowserContext;
  let page: Page;
  const runs: Record<string, string> = {};

  const cli = async (args: string[]) => {
    const result = await runCliProcess([...args, ...sandboxFlags(fixture.sb, { rateLimit: 'off' })], {
      cwd: work,
      timeoutMs: 60_000,
    });
    expect(result.stderr).not.toContain('catalog-io:');
    return result;
  };
  const lastRun = async (): Promise<string> => {
    const listed = await runCliProcess(['runs', '--json'], { cwd: work });
    return (JSON.parse(listed.stdout) as Array<{ runId: string }>)[0]!.runId;
  };
  const shot = async (name: string) => {
    const file = join(shots, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'console-'));
    // CONSOLE_SHOTS_DIR keeps them (the test run's temporary folder is removed when it ends).
    shots = process.env.CONSOLE_SHOTS_DIR ?? mkdtempSync(join(tmpdir(), 'console-shots-'));
    writeFileSync(join(work, 'profile.json'), JSON.stringify(PROFILE));
    writeFileSync(join(work, 'good.csv'), feed('GOOD', 30));
    writeFileSync(join(work, 'night.csv'), feed('NIGHT', 60, 7));
    // Several reads long (the reader reads 192 KB at a time), so the rows it holds can be estimated.
    writeFileSync(
      join(work, 'live.csv'),
      feed('LIVE', 3000, 0, (i) => `Product ${i} ${'x'.repeat(200)}`),
    );
    // A finished import, one with invalid rows (and its rejects), and a plan that would rename products.
    await cli(['import', 'good.csv', '--profile', 'profile.json']);
    runs.good = await lastRun();
    await cli(['import', 'night.csv', '--profile', 'profile.json', '--rejects', 'rejects.csv']);
    runs.night = await lastRun();
    writeFileSync(
      join(work, 'renamed.csv'),
      feed('GOOD', 30, 0, (i) => (i <= 3 ? `Renamed ${i}` : `Product ${i}`)),
    );
    await cli(['import', 'renamed.csv', '--profile', 'profile.json', '--plan']);
    runs.plan = await lastRun();

    consoleHandle = await startConsole({
      stateDir: join(work, '.catalog-io'),
      port: 0,
      flags: { catalogUrl: fixture.sb.catalogUrl, damUrl: fixture.sb.damUrl, apiKey: fixture.sb.apiKey },
      liveEveryMs: 250,
    });
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'chromium-profile-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(20_000);
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await consoleHandle?.close();
  });

  it('lists the runs, newest first, and filters them by state', async () => {
    await page.goto(`${consoleHandle.url}/`);
    const rows = page.locator('#runs tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run')))).toEqual([
      runs.plan,
      runs.night,
      runs.good,
    ]);
    const night = page.locator(`tr[data-run="${runs.night}"]`);
    await expect.poll(() => night.innerText()).toContain('invalid 8');
    expect(await night.innerText()).toContain('night.csv');
    expect(await night.locator('td').nth(7).innerText()).toBe('1');
    expect(await page.locator(`tr[data-run="${runs.good}"] td`).nth(6).innerText()).toBe('created 30');
    await shot('runs');
    await page.selectOption('#filter-state', 'running');
    await expect.poll(() => page.locator('#runs tbody tr').count()).toBe(0);
  });

  it("shows a run's problems grouped by kind and column, and filters its grid to the failed rows", async () => {
    await page.goto(`${consoleHandle.url}/runs/${runs.night}`);
    const problems = page.locator('#problems tbody tr');
    await expect.poll(() => problems.count()).toBe(1);
    const problem = await problems.first().innerText();
    expect(problem).toMatch(/^8\s+invalid\s+Weight \(kg\)\s+must be a number/);
    expect(problem).toContain('NIGHT-7');
    await expect.poll(() => page.locator('#grid-total').innerText()).toBe('60 rows');
    await page.selectOption('#filter-outcome', 'failed,invalid,not-attempted');
    await expect.poll(() => page.locator('#grid-total').innerText()).toBe('8 rows');
    const refs = await page.locator('#grid .tabulator-row [tabulator-field="ref"]').allInnerTexts();
    expect(refs).toEqual([7, 14, 21, 28, 35, 42, 49, 56].map((i) => `NIGHT-${i}`));
    await page.fill('#search', 'heavy-42');
    await page.press('#search', 'Enter');
    await expect.poll(() => page.locator('#grid-total').innerText()).toBe('1 rows');
    expect(await page.locator('#grid .tabulator-row [tabulator-field="ref"]').allInnerTexts()).toEqual([
      'NIGHT-42',
    ]);
    expect(await page.locator('a[href$="/rejects"]').count()).toBe(1);
    const rejects = await context.request.get(`${consoleHandle.url}/api/runs/${runs.night}/rejects`);
    const rejected = (await rejects.text()).trim().split(/\r?\n/);
    expect(rejected[0]).toMatch(/^(\uFEFF)?SKU,Name,Weight \(kg\),_error,_source$/);
    expect(rejected.slice(1).map((l) => l.split(',')[0])).toEqual(
      [7, 14, 21, 28, 35, 42, 49, 56].map((i) => `NIGHT-${i}`),
    );
    const download = await context.request.get(`${consoleHandle.url}/api/runs/${runs.night}/report.csv`);
    expect((await download.text()).split('\r\n').filter((l) => l.includes(',invalid,'))).toHaveLength(8);
    await page.selectOption('#filter-outcome', '');
    await page.fill('#search', '');
    await page.press('#search', 'Enter');
    await expect.poll(() => page.locator('#grid-total').innerText()).toBe('60 rows');
    const file = await shot('run');
    // docs/console.png: written when missing, or again with UPDATE_SCREENSHOTS=1.
    if (!existsSync(DOCS_SHOT) || process.env.UPDATE_SCREENSHOTS) copyFileSync(file, DOCS_SHOT);
  });

  it("shows a plan's would-update rows as field diffs", async () => {
    await page.goto(`${consoleHandle.url}/plans/${runs.plan}`);
    await expect.poll(() => page.locator('#grid-total').innerText()).toBe('3 rows');
    const diffs = await page.locator('#grid .diff').allInnerTexts();
    expect(diffs.map((d) => d.replace(/\s+/g, ' ').trim())).toEqual(
      [1, 2, 3].map((i) => `prod_title_en: Product ${i} → Renamed ${i}`),
    );
    await shot('plan');
  });

  it("moves a live import's progress, then offers to resume it once interrupted", async () => {
    // Paced by a client-side limit so that the run lasts: 10 rows, then a pause, again and again.
    const child = startCli(
      [
        'import',
        'live.csv',
        '--profile',
        'profile.json',
        '--batch-size',
        '10',
        ...sandboxFlags(fixture.sb, { rateLimit: '20/1' }),
      ],
      { cwd: work },
    );
    try {
      // The list is read when the page opens: open it once the run has its folder.
      await expect
        .poll(
          async () => {
            const listed = await context.request.get(`${consoleHandle.url}/api/runs?state=running`);
            return ((await listed.json()) as { runs: unknown[] }).runs.length;
          },
          { timeout: 30_000 },
        )
        .toBe(1);
      await page.goto(`${consoleHandle.url}/`);
      const live = page.locator('#runs tbody tr[data-state="running"] .live[data-rows]');
      const rows = async () => Number((await live.getAttribute('data-rows', { timeout: 30_000 })) ?? -1);
      await expect.poll(rows, { timeout: 60_000 }).toBeGreaterThan(0);
      const first = await rows();
      await expect.poll(rows, { timeout: 60_000 }).toBeGreaterThan(first);
      const text = await live.innerText();
      expect(text).toMatch(/^[\d,]+ rows of ~[\d,]+, [\d.]+ rows\/s, ETA [\w ]+, \d+ requests, 0 × 429$/);
      await shot('live');
    } finally {
      child.child.kill('SIGTERM');
    }
    const ended = await child.done;
    expect(ended.code).toBe(143);
    const id = await lastRun();
    await page.goto(`${consoleHandle.url}/runs/${id}`);
    await expect
      .poll(() => page.locator('#resume').innerText())
      .toBe(`catalog-io import live.csv --profile profile.json --resume ${id}`);
  }, 120_000);

  it('validates a dropped feed and profile, and shows the result in the same grid', async () => {
    await page.goto(`${consoleHandle.url}/check`);
    const files = await page.evaluateHandle(
      ({ csv, profile }) => {
        const data = new (
          globalThis as unknown as { DataTransfer: new () => { items: { add(file: unknown): void } } }
        ).DataTransfer();
        data.items.add(new File([csv], 'supplier.csv', { type: 'text/csv' }));
        data.items.add(new File([profile], 'profile.json', { type: 'application/json' }));
        return data;
      },
      { csv: feed('DROP', 20, 5), profile: JSON.stringify(PROFILE) },
    );
    await page.dispatchEvent('#drop', 'drop', { dataTransfer: files });
    await expect
      .poll(() => page.locator('#drop').innerText())
      .toContain('feed: supplier.csv · profile: profile.json');
    await page.click('#check');
    await page.waitForURL(/\/checks\/\d+$/);
    await expect.poll(() => page.locator('#check-summary').innerText()).toContain('20: valid 16 · invalid 4');
    await page.selectOption('#filter-outcome', 'invalid');
    await expect.poll(() => page.locator('#grid-total').innerText()).toBe('4 rows');
    expect(await page.locator('#grid .tabulator-row [tabulator-field="ref"]').allInnerTexts()).toEqual([
      'DROP-5',
      'DROP-10',
      'DROP-15',
      'DROP-20',
    ]);
    expect(await page.locator('#problems tbody tr').first().innerText()).toMatch(
      /^4\s+invalid\s+Weight \(kg\)/,
    );
    await shot('check');
  });
});

describe('serve beyond loopback', () => {
  it('refuses to start without a token', async () => {
    const refused = await runCliProcess(['serve', '--host', '0.0.0.0', '--port', '0'], {
      env: { CATALOG_IO_CONSOLE_TOKEN: '' },
      timeoutMs: 30_000,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'serve --host 0.0.0.0: a console reachable from other machines needs a token',
    );
  });
});
