// Readers benchmark: the raw library against our reader on the same generated file, side by side in
// one run. Each case runs in its own child process, which loads only what that case needs, so peak
// RSS is per case; an empty child with the same loader gives the RSS floor that every case pays.
//
//   npx tsx bench/readers.ts                           200k CSV/JSON/NDJSON rows, 50k XLSX rows
//   CATALOG_IO_BENCH_FULL=1 npx tsx bench/readers.ts   1M rows (200k XLSX rows)
//   CATALOG_IO_BENCH_REPEAT=3 ...                      runs per case, raw and ours alternating (default 2)
//   CATALOG_IO_BENCH_COMPILED=1 ...                    children run compiled JS (tsc into bench/.data/build)
//   CATALOG_IO_BENCH_FORMATS=ndjson,json ...           only these formats
//
// On a shared machine each case is run REPEAT times and its fastest run is reported; throughput is
// also given per CPU second (user + system), which other processes disturb less than wall time.
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ownPeakRssKb } from '../test/helpers/own-peak-rss.mjs';

type Format = 'csv' | 'xlsx' | 'json' | 'ndjson';
type Impl = 'raw' | 'ours' | 'floor';

interface CaseResult {
  format: Format;
  impl: Impl;
  rows: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(HERE);
const DATA = join(ROOT, 'bench', '.data');
const BUILD = join(DATA, 'build');
const FULL = process.env.CATALOG_IO_BENCH_FULL === '1';
const REPEAT = Math.max(1, Number(process.env.CATALOG_IO_BENCH_REPEAT ?? 2) || 2);
const COMPILED = process.env.CATALOG_IO_BENCH_COMPILED === '1';
const ALL_FORMATS: Format[] = ['csv', 'json', 'ndjson', 'xlsx'];
const FORMATS = (process.env.CATALOG_IO_BENCH_FORMATS?.split(',') as Format[] | undefined) ?? ALL_FORMATS;
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
    const { default: ExcelJS } = await import('exceljs');
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
    const sheet = workbook.addWorksheet('Products');
    sheet.addRow(Object.keys(record(0))).commit();
    for (let i = 0; i < rows; i++) sheet.addRow(Object.values(record(i))).commit();
    await workbook.commit();
  }
  return path;
}

type Reading = (path: string) => Promise<number>;

/**
 * The library used as its documentation shows, counting what it yields. Each case loads only its own
 * library, before the clock starts.
 */
async function rawReading(format: Format): Promise<Reading> {
  if (format === 'csv') {
    const { default: Papa } = await import('papaparse');
    return async (path) => {
      let rows = 0;
      const parsed = createReadStream(path).pipe(Papa.parse(Papa.NODE_STREAM_INPUT, { header: true }));
      for await (const _row of parsed) rows++;
      return rows;
    };
  }
  if (format === 'ndjson') {
    return async (path) => {
      let rows = 0;
      const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of lines) {
        if (line) {
          JSON.parse(line);
          rows++;
        }
      }
      return rows;
    };
  }
  if (format === 'json') {
    const { default: StreamArray } = await import('stream-json/streamers/stream-array.js');
    return async (path) => {
      let rows = 0;
      const items = createReadStream(path).pipe(StreamArray.withParserAsStream());
      for await (const _item of items) rows++;
      return rows;
    };
  }
  const { default: ExcelJS } = await import('exceljs');
  return async (path) => {
    let rows = 0;
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(createReadStream(path), {
      sharedStrings: 'cache',
      styles: 'cache',
      worksheets: 'emit',
    });
    for await (const sheet of reader) for await (const _row of sheet) rows++;
    return rows - 1; // the header row
  };
}

/** Our reader as the CLI uses it. exceljs, which it loads when a workbook is opened, is loaded first. */
async function oursReading(format: Format): Promise<Reading> {
  const { openSource } = await import('../src/readers/index.js');
  if (format === 'xlsx') await import('../src/readers/xlsx/xlsx.js');
  return async (path) => {
    const source = await openSource(path);
    let rows = 0;
    for await (const _row of source.rows) rows++;
    return rows;
  };
}

/** Child side: one case, result as one JSON line on stdout. `floor` loads and reads nothing. */
async function runCase(format: Format, impl: Impl, path: string): Promise<void> {
  const reading: Reading =
    impl === 'raw' ? await rawReading(format) : impl === 'ours' ? await oursReading(format) : async () => 0;
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  const rows = await reading(path);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const peakRssMb = ownPeakRssKb() / 1024;
  const result: CaseResult = { format, impl, rows, seconds, cpuSeconds, peakRssMb };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Node's own command, its arguments before the script: `node --import tsx` unless compiled. */
function runnerFor(script: string): string[] {
  return script.endsWith('.ts') ? ['--import', 'tsx', script] : [script];
}

function exec(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited with ${code}\n${out}`));
      else resolve(out);
    });
  });
}

async function child(script: string, format: Format, impl: Impl, path: string): Promise<CaseResult> {
  const out = await exec([...runnerFor(script), '--case', format, impl, path]);
  return JSON.parse(out.trim().split('\n').pop()!) as CaseResult;
}

/** Compiles this file and the readers with tsc into bench/.data/build; returns the compiled script. */
async function compile(): Promise<string> {
  const self = fileURLToPath(import.meta.url);
  if (!self.endsWith('.ts')) return self;
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await exec([
    tsc,
    ...['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2023'],
    ...['--types', 'node', '--esModuleInterop', '--skipLibCheck', '--strict'],
    ...['--rootDir', ROOT, '--outDir', BUILD, self],
  ]);
  return join(BUILD, relative(ROOT, self).replace(/\.ts$/, '.js'));
}

interface Measured {
  best: CaseResult;
  bestCpu: number;
  /** The highest peak RSS of all runs: memory is judged on the worst run. */
  peakRssMb: number;
}

function measured(runs: CaseResult[]): Measured {
  const best = runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  return {
    best,
    bestCpu: Math.min(...runs.map((r) => r.cpuSeconds)),
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
  };
}

export async function run(): Promise<void> {
  const line = (text: string) => process.stdout.write(`${text}\n`);
  const script = COMPILED ? await compile() : fileURLToPath(import.meta.url);
  line('readers benchmark: raw library vs catalog-io reader, same file, one child process per case');
  line(
    `date ${new Date().toISOString()}; node ${process.version}; ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}; ${Math.round(totalmem() / 2 ** 30)} GiB`,
  );
  line(
    `sizes: ${FORMATS.map((f) => `${f} ${SIZES[f]}`).join(', ')}${FULL ? ' (full run)' : ' (set CATALOG_IO_BENCH_FULL=1 for 1M rows)'}`,
  );
  line(
    `children: ${script.endsWith('.ts') ? 'node --import tsx (TypeScript sources)' : 'node, compiled JS (bench/.data/build)'}; ` +
      `${REPEAT} run(s) per case, raw and ours alternating; fastest run reported, RSS the highest of the runs`,
  );
  line(
    'raw: papaparse NODE_STREAM_INPUT (header) | exceljs WorkbookReader | stream-json streamArray | readline + JSON.parse',
  );
  const floors: CaseResult[] = [];
  for (let i = 0; i < REPEAT; i++) floors.push(await child(script, 'csv', 'floor', ''));
  const floor = Math.max(...floors.map((r) => r.peakRssMb));
  line(`RSS floor (an empty child with the same loader): ${floor.toFixed(0)} MB`);
  line('');
  line(
    'format  rows       raw rows/s  ours rows/s  ours/raw  ours/raw CPU  raw RSS MB  ours RSS MB  ours-floor MB',
  );
  for (const format of FORMATS) {
    const path = await generate(format, SIZES[format]);
    const rawRuns: CaseResult[] = [];
    const oursRuns: CaseResult[] = [];
    for (let i = 0; i < REPEAT; i++) {
      rawRuns.push(await child(script, format, 'raw', path));
      oursRuns.push(await child(script, format, 'ours', path));
    }
    const raw = measured(rawRuns);
    const ours = measured(oursRuns);
    if (raw.best.rows !== ours.best.rows) {
      line(`  ! ${format}: row counts differ (raw ${raw.best.rows}, ours ${ours.best.rows})`);
    }
    const rawRate = raw.best.rows / raw.best.seconds;
    const oursRate = ours.best.rows / ours.best.seconds;
    line(
      [
        format.padEnd(6),
        String(ours.best.rows).padEnd(9),
        Math.round(rawRate).toString().padStart(11),
        Math.round(oursRate).toString().padStart(12),
        `${Math.round((oursRate / rawRate) * 100)}%`.padStart(9),
        `${Math.round((raw.bestCpu / ours.bestCpu) * 100)}%`.padStart(13),
        raw.peakRssMb.toFixed(0).padStart(11),
        ours.peakRssMb.toFixed(0).padStart(12),
        (ours.peakRssMb - floor).toFixed(0).padStart(14),
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
