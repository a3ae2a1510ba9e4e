// The hostile corpus (test/fixtures/hostile/) through the CLI, each in a child process as a user would
// run it: the error code, where, the exit code (2 for a file that cannot be read, 1 for row errors),
// and what the file cost: the child's peak memory under a bound, and its time under a generous
// timeout. Bombs and files of hundreds of MB are generated here, in a temporary folder. The children
// run a few at a time (most of each one's time is starting Node and the CLI). What only the library
// can show (a raised limit reads the file) is checked in process, after.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { gzipBomb, sharedStringsBomb, writeLongLineCsv, xlsxBomb } from '../fixtures/hostile/generate.js';
import { expectCode, readAll, tempFile, tempPath } from './helpers.js';
import { type MeasuredRun, runMeasured } from './hostile-process.js';

const CORPUS = join(import.meta.dirname, '../fixtures/hostile');
/** Peak memory allowed to a child reading a hostile file: Node, tsx and the readers, not the file. */
const PEAK_MB = 220;
/** Ample for any case on a loaded machine; a hang or a 47 s inflate is what it catches. */
const TIMEOUT_MS = 90_000;
/** A test may run a child and read a file of hundreds of MB itself. */
const TEST_TIMEOUT_MS = 2 * TIMEOUT_MS;

/** `preview --json`: the rows as NDJSON on stdout, problems on stderr. */
async function preview(source: string, ...flags: string[]): Promise<MeasuredRun> {
  const run = await runMeasured(['preview', source, '--json', '--limit', '100', ...flags], {
    timeoutMs: TIMEOUT_MS,
  });
  expect(run.peakMb, `peak memory of ${source}`).toBeLessThan(PEAK_MB);
  expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at |\.ts:\d+:\d+/);
  return run;
}

/** Exit 2 with one coded line on stderr. */
function expectFatal(run: MeasuredRun, code: string): string {
  expect(run.code, run.stderr).toBe(2);
  const line = run.stderr.trim().split('\n').at(-1)!;
  expect(line).toMatch(new RegExp(`^catalog-io: .+ \\[${code}\\]$`));
  return line;
}

interface RowOut {
  location: string;
  error?: { code: string; message: string };
  cells: Record<string, unknown>;
}

function rowsOf(run: MeasuredRun): RowOut[] {
  return run.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RowOut);
}

describe.concurrent('zip and gzip bombs stop early, naming the part and the sizes', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it('a workbook whose sheet inflates to 2 GB: XLSX_TOO_LARGE before a byte is inflated', async () => {
    const run = await preview(tempFile('bomb.xlsx', xlsxBomb(2048)));
    const line = expectFatal(run, 'XLSX_TOO_LARGE');
    expect(line).toContain('xl/worksheets/sheet1.xml');
    expect(line).toMatch(/inflates to 2\.0 GB from [\d.]+ MB \(\d+ times/);
    expect(line).toContain('--max-inflate');
  });

  it('a sheet past the total limit: XLSX_TOO_LARGE naming both sizes; --max-inflate raises it', async () => {
    const path = tempFile('bomb-small.xlsx', xlsxBomb(40));
    const line = expectFatal(await preview(path, '--max-inflate', '16MB'), 'XLSX_TOO_LARGE');
    expect(line).toMatch(/xl\/worksheets\/sheet1\.xml.* inflate to 40\.0 MB, more than 16\.0 MB/);
    // Raised, the same workbook is read (rows of the same two cells).
    const source = await openSource(path, { maxInflateBytes: 64 * 1024 ** 2 });
    for await (const row of source.rows) {
      expect(row.cells).toEqual({ sku: 'bomb', name: 'x' });
      break;
    }
  });

  it('a sheet that inflates to more than its directory says: XLSX_CORRUPT, stopped at the stated size', async () => {
    const run = await preview(tempFile('bomb-lying.xlsx', xlsxBomb(1024, 10_000)));
    expectFatal(run, 'XLSX_CORRUPT');
  });

  it('shared strings (held in memory) past a quarter of the limit: XLSX_TOO_LARGE', async () => {
    const path = tempFile('bomb-strings.xlsx', sharedStringsBomb(24));
    const line = expectFatal(await preview(path, '--max-inflate', '64MB'), 'XLSX_TOO_LARGE');
    expect(line).toContain('xl/sharedStrings.xml');
    expect(line).toContain('held in memory');
  });

  it('a .csv.gz that inflates a thousand times: SOURCE_TOO_LARGE after 64 MB, not 4 GB', async () => {
    const run = await preview(tempFile('bomb.csv.gz', gzipBomb(4000)));
    const line = expectFatal(run, 'SOURCE_TOO_LARGE');
    expect(line).toMatch(/inflates to 64\.\d MB from [\d.]+ KB \(\d+ times/);
  });
});

describe.concurrent('files that are only unusual', { timeout: TEST_TIMEOUT_MS }, () => {
  it('a workbook of inline strings only (no shared strings, no styles) is read like any other', async () => {
    const { rows } = await readAll(join(CORPUS, 'inline-strings.xlsx'));
    expect(rows.map((row) => ({ ...row.cells }))).toEqual([
      { sku: 'A-1', name: 'Chair', price: 49.5 },
      { sku: 'A-2', name: 'Rich text', price: 12 },
      { sku: 'A-3', name: 'Stool', price: 7 },
    ]);
  });
});

describe.concurrent('deep, huge and broken records are row errors; the others go through', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it('a JSON record nested 5,000 deep: JSON_TOO_DEEP on its item, exit 1', async () => {
    const run = await preview(join(CORPUS, 'deep.json'));
    expect(run.code, run.stderr).toBe(1);
    const rows = rowsOf(run);
    expect(rows.map((row) => [row.location, row.error?.code ?? 'ok'])).toEqual([
      ['item 1', 'ok'],
      ['item 2', 'JSON_TOO_DEEP'],
      ['item 3', 'ok'],
    ]);
    // Raised past its depth, a deep record is read (as one dotted column); the flag has a ceiling.
    const deep = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    const path = tempFile('deep-100.json', `[{"x":${deep}}]`);
    const raised = await readAll(path, { maxJsonDepth: 101 });
    expect(raised.rows[0]!.cells[`x${'.a'.repeat(100)}`]).toBe(1);
    await expectCode(openSource(path, { maxJsonDepth: 5000 }), 'CONFIG_INVALID');
  });

  it('an NDJSON line nested 5,000 deep: JSON_TOO_DEEP on its line, exit 1', async () => {
    const run = await preview(join(CORPUS, 'deep.ndjson'));
    expect(run.code, run.stderr).toBe(1);
    expect(rowsOf(run).map((row) => [row.location, row.error?.code ?? 'ok'])).toEqual([
      ['line 1', 'ok'],
      ['line 2', 'JSON_TOO_DEEP'],
      ['line 3', 'ok'],
    ]);
  });

  it('a JSON document nested 5,000 deep before any records: JSON_TOO_DEEP, exit 2', async () => {
    expectFatal(await preview(join(CORPUS, 'deep-document.json')), 'JSON_TOO_DEEP');
  });

  it('a 200 MB single CSV line: CELL_TOO_LARGE on line 3, the lines after it read, memory bounded', async () => {
    const path = tempPath('long-line.csv');
    await writeLongLineCsv(path, 200);
    const run = await preview(path);
    expect(run.code, run.stderr).toBe(1);
    const rows = rowsOf(run);
    expect(rows.map((row) => [row.location, row.error?.code ?? 'ok'])).toEqual([
      ['line 2', 'ok'],
      ['line 3', 'CELL_TOO_LARGE'],
      ['line 4', 'ok'],
      ['line 5', 'ok'],
    ]);
    expect(rows[1]!.error!.message).toContain('--max-cell');
  });

  it('a 2 MB quoted cell: CELL_TOO_LARGE naming line and column; a raised limit reads it', async () => {
    const path = tempPath('big-cell.csv');
    await writeLongLineCsv(path, 2, { quoted: true });
    const { rows } = await readAll(path);
    expect(rows[1]!.error!.message).toContain('line 3, column "description"');
    expect(rows[2]!.cells.sku).toBe('C');
    const raised = await readAll(path, { maxCellBytes: 4 * 1024 ** 2 });
    expect(raised.rows[1]!.cells.description).toHaveLength(2 * 1024 ** 2);
  });

  it('a quote left open for 20 MB to the end of the file: CSV_QUOTE_NOT_CLOSED at its line, exit 2', async () => {
    const path = tempPath('unclosed.csv');
    await writeLongLineCsv(path, 20, { quoted: true, unclosed: true });
    const line = expectFatal(await preview(path), 'CSV_QUOTE_NOT_CLOSED');
    expect(line).toContain('(line 3)');
  });

  it('an invalid UTF-8 byte: ENCODING_INVALID on its line and column, the file stays UTF-8', async () => {
    const run = await preview(join(CORPUS, 'invalid-utf8.csv'));
    expect(run.code, run.stderr).toBe(1);
    const rows = rowsOf(run);
    expect(rows.map((row) => row.cells.name)).toEqual(['Crème brûlée', 'Größe', 'caf\ufffd', 'Ça va']);
    expect(rows[2]!.error!.code).toBe('ENCODING_INVALID');
    expect(rows[2]!.error!.message).toContain('line 4, column "name"');
    expect(run.stderr).toMatch(/encoding:\s+utf-8/);
    // Named, the encoding decides.
    const named = await readAll(join(CORPUS, 'invalid-utf8.csv'), { encoding: 'windows-1252' });
    expect(named.rows[2]!.cells.name).toBe('café');
  });
});

describe.concurrent('a hostile network', { timeout: TEST_TIMEOUT_MS }, () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/trickle.csv') {
        res.writeHead(200, { 'content-type': 'text/csv' });
        res.write('sku,name\n');
        const timer = setInterval(() => res.write('x'), 100);
        res.on('close', () => clearInterval(timer));
      } else {
        res.writeHead(200, { 'content-type': 'text/csv' });
        res.end(`sku,name\nA,${req.headers.authorization ? 'with' : 'without'}\n`);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a feed that trickles a byte at a time: SOURCE_TIMEOUT within the source timeout, exit 2', async () => {
    const run = await preview(`${base}/trickle.csv`, '--source-timeout', '1500');
    const line = expectFatal(run, 'SOURCE_TIMEOUT');
    expect(line).toContain('--source-timeout');
    expect(run.ms).toBeLessThan(TIMEOUT_MS);
  });

  it('credentials in the URL are refused, never printed; a header carries them', async () => {
    const refused = await preview(base.replace('//', '//shop:s3cr3t@'));
    const line = expectFatal(refused, 'CONFIG_INVALID');
    expect(line).toContain('--source-header');
    expect(`${refused.stdout}${refused.stderr}`).not.toContain('s3cr3t');
    const run = await runMeasured(['preview', `${base}/feed.csv`, '--json'], {
      timeoutMs: TIMEOUT_MS,
      env: { CATALOG_SOURCE_AUTHORIZATION: 'Basic c2hvcDpzM2NyM3Q=' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(rowsOf(run)[0]!.cells.name).toBe('with');
    expect(`${run.stdout}${run.stderr}`).not.toContain('c2hvcDpzM2NyM3Q');
  });
});
