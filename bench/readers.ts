// Readers benchmark: the raw library against our reader on the same generated file, side by side in
// one run. Each case runs in its own child process so peak RSS is per case.
//
//   npx tsx bench/readers.ts                      default sizes (200k CSV/JSON/NDJSON rows, 50k XLSX rows)
//   CATALOG_IO_BENCH_FULL=1 npx tsx bench/readers.ts   1M rows (200k XLSX rows)
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import StreamArray from 'stream-json/streamers/stream-array.js';
import { openSource } from '../src/readers/index.js';

type Format = 'csv' | 'xlsx' | 'json' | 'ndjson';
type Impl = 'raw' | 'ours';

interface CaseResult {
  format: Format;
  impl: Impl;
  rows: number;
  seconds: number;
  peakRssMb: number;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA = join(HERE, '.data');
const FULL = process.env.CATALOG_IO_BENCH_FULL === '1';
const SIZES: Record<Format, number> = FULL
  ? { csv: 1_000_000, json: 1_000_000, ndjson: 1_000_000, xlsx: 200_000 }
  : { csv: 200_000, json: 200_000, ndjson: 200_000, xlsx: 50_000 };

function record(i: number) {
  return {
    sku: `SKU-${String(i).padStart(8, '0')}`,
    name: `Product ${i}, "quoted" edition`,
    description: `A longer description for product ${i}. It has commas, and words to make the row realistic.`,
    price: Math.round(i * 1.37 * 100) / 100,
    stock: i % 500,
    category: `Category ${i % 40}/Sub ${i % 7}`,
    ean: String(4000000000000 + i),
  };
}

async function write(path: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const line of lines)
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
}

/** Generates the input files once per size; they are kept in bench/.data (gitignored). */
async function generate(format: Format, rows: number): Promise<string> {
  mkdirSync(DATA, { recursive: true });
  const path = join(DATA, `products-${rows}.${format}`);
  if (existsSync(path)) return path;
  if (format === 'csv') {
    await write(
      path,
      (function* () {
        yield 'sku,name,description,price,stock,category,ean\n';
        for (let i = 0; i < rows; i++) {
          const r = record(i);
          yield `${r.sku},"${r.name.replaceAll('"', '""')}","${r.description}",${r.price},${r.stock},${r.category},${r.ean}\n`;
        }
      })(),
    );
  } else if (format === 'ndjson') {
    await write(
      path,
      (function* () {
        for (let i = 0; i < rows; i++) yield `${JSON.stringify(record(i))}\n`;
      })(),
    );
  } else if (format === 'json') {
    await write(
      path,
      (function* () {
        yield '[\n';
        for (let i = 0; i < rows; i++) yield `${i ? ',\n' : ''}  ${JSON.stringify(record(i))}`;
        yield '\n]\n';
      })(),
    );
  } else {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
    const sheet = workbook.addWorksheet('Products');
    sheet.addRow(Object.keys(record(0))).commit();
    for (let i = 0; i < rows; i++) sheet.addRow(Object.values(record(i))).commit();
    await workbook.commit();
  }
  return path;
}

/** The library used as its documentation shows, counting what it yields. */
async function runRaw(format: Format, path: string): Promise<number> {
  let rows = 0;
  if (format === 'csv') {
    const parsed = createReadStream(path).pipe(Papa.parse(Papa.NODE_STREAM_INPUT, { header: true }));
    for await (const _row of parsed) rows++;
  } else if (format === 'ndjson') {
    for await (const line of createInterface({
      input: createReadStream(path),
      crlfDelay: Number.POSITIVE_INFINITY,
    })) {
      if (line) {
        JSON.parse(line);
        rows++;
      }
    }
  } else if (format === 'json') {
    const items = createReadStream(path).pipe(StreamArray.withParserAsStream());
    for await (const _item of items) rows++;
  } else {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(createReadStream(path), {
      sharedStrings: 'cache',
      styles: 'cache',
      worksheets: 'emit',
    });
    for await (const sheet of reader) for await (const _row of sheet) rows++;
    rows--; // the header row
  }
  return rows;
}

async function runOurs(path: string): Promise<number> {
  const source = await openSource(path);
  let rows = 0;
  for await (const _row of source.rows) rows++;
  return rows;
}

/** Child side: one case, result as one JSON line on stdout. */
async function runCase(format: Format, impl: Impl, path: string): Promise<void> {
  const start = process.hrtime.bigint();
  const rows = impl === 'raw' ? await runRaw(format, path) : await runOurs(path);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const result: CaseResult = { format, impl, rows, seconds, peakRssMb };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function child(format: Format, impl: Impl, path: string): Promise<CaseResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--case', format, impl, path],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) reject(new Error(`${format}/${impl} exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()!) as CaseResult);
    });
  });
}

export async function run(): Promise<void> {
  const line = (text: string) => process.stdout.write(`${text}\n`);
  line('readers benchmark: raw library vs catalog-io reader, same file, one child process per case');
  line(
    `date ${new Date().toISOString()}; node ${process.version}; ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}; ${Math.round(totalmem() / 2 ** 30)} GiB`,
  );
  line(
    `sizes: ${Object.entries(SIZES)
      .map(([f, n]) => `${f} ${n}`)
      .join(', ')}${FULL ? ' (full run)' : ' (set CATALOG_IO_BENCH_FULL=1 for 1M rows)'}`,
  );
  line(
    'raw: papaparse NODE_STREAM_INPUT (header) | exceljs WorkbookReader | stream-json streamArray | readline + JSON.parse',
  );
  line('');
  line('format  rows        raw rows/s  ours rows/s  ours/raw  raw RSS MB  ours RSS MB');
  for (const format of ['csv', 'json', 'ndjson', 'xlsx'] as const) {
    const path = await generate(format, SIZES[format]);
    const raw = await child(format, 'raw', path);
    const ours = await child(format, 'ours', path);
    if (raw.rows !== ours.rows) line(`  ! ${format}: row counts differ (raw ${raw.rows}, ours ${ours.rows})`);
    const rawRate = raw.rows / raw.seconds;
    const oursRate = ours.rows / ours.seconds;
    line(
      [
        format.padEnd(6),
        String(ours.rows).padEnd(10),
        Math.round(rawRate).toString().padStart(11),
        Math.round(oursRate).toString().padStart(12),
        `${Math.round((oursRate / rawRate) * 100)}%`.padStart(9),
        raw.peakRssMb.toFixed(0).padStart(11),
        ours.peakRssMb.toFixed(0).padStart(12),
      ].join('  '),
    );
  }
}

const invokedDirectly = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (invokedDirectly) {
  const index = process.argv.indexOf('--case');
  if (index !== -1) {
    const [format, impl, path] = process.argv.slice(index + 1) as [Format, Impl, string];
    await runCase(format, impl, path);
  } else {
    await run();
  }
}
