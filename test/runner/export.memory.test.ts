// Constant memory at any catalog size: 100,000 products export to XLSX with a peak RSS under 300 MB.
// The sandbox (which holds the whole tenant) runs here; the export runs in a child process, whose own
// own peak RSS (its high-water mark, test/helpers/own-peak-rss.mjs) is what is measured.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { seedBulkProducts } from '../../src/sandbox/catalog/index.js';
import { useSandbox } from '../helpers/sandbox.js';

const PRODUCTS = 100_000;
const PEAK_RSS_LIMIT_MB = 300;

const fixture = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'catalog-io-export-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tsxLoader = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const cliMain = new URL('../../src/cli/main.ts', import.meta.url).href;
const ownPeakRss = new URL('../helpers/own-peak-rss.mjs', import.meta.url).href;

describe('export memory', () => {
  it(`exports ${PRODUCTS.toLocaleString('en')} products to XLSX under ${PEAK_RSS_LIMIT_MB} MB peak RSS`, {
    timeout: 240_000,
  }, async () => {
    const { sb } = fixture;
    seedBulkProducts(sb.services.catalog, PRODUCTS);
    const file = join(dir, 'big.xlsx');
    const script = `
        const { main } = await import(${JSON.stringify(cliMain)});
        const code = await main(['export', 'products', '--out', process.env.OUT, '--catalog-url', process.env.EXPORT_CATALOG_URL,
          '--rate-limit', 'off', '--json']);
        const { ownPeakRssKb } = await import(${JSON.stringify(ownPeakRss)});
        process.stderr.write(JSON.stringify({ code, maxRssKb: ownPeakRssKb() }) + '\\n');`;
    const child = spawn(process.execPath, ['--import', tsxLoader, '--input-type=module', '-e', script], {
      cwd: dir,
      // The key through the environment, as a person would pass it: never on a command line.
      env: { ...process.env, OUT: file, EXPORT_CATALOG_URL: sb.catalogUrl, CATALOG_API_KEY: sb.apiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(exitCode, stderr).toBe(0);
    const measured = JSON.parse(stderr.trim().split('\n').pop()!) as { code: number; maxRssKb: number };
    expect(measured.code, stderr).toBe(0);
    const summary = JSON.parse(stdout) as { entities: Array<{ rows: number }> };
    expect(summary.entities[0]!.rows).toBe(PRODUCTS + 20);
    expect(measured.maxRssKb / 1024).toBeLessThan(PEAK_RSS_LIMIT_MB);

    // The workbook is complete: its last row is there (read with the streaming reader, not into memory).
    expect(statSync(file).size).toBeGreaterThan(1_000_000);
    let rows = 0;
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {});
    for await (const sheet of reader) {
      for await (const _row of sheet) rows += 1;
    }
    expect(rows).toBe(PRODUCTS + 20 + 1);
  });
});
