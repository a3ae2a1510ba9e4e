// Validate benchmark, in-process cases: our validate pipeline (reader, mapper, write-schema validator,
// report written) reading on one thread and on two, our reader alone, and on XLSX raw exceljs streaming
// against our reader and `validate`. Each case runs in its own child process, so peak RSS is per case.
// The comparison with a raw papaparse -> mapping -> Ajv loop, whole process against whole process on every
// feed shape, is `validate-shapes.ts`.
//
//   npx tsx bench/validate.ts                          200k rows
//   CATALOG_IO_BENCH_ROWS=1000000 npx tsx bench/validate.ts
//   CATALOG_IO_BENCH_REPS=5 ...                        runs of each case (default 3; the best counts)
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ExcelJS from 'exceljs';
import type { Profile } from '../src/mappers/profile-types.js';
import { ownPeakRssKb } from '../test/helpers/own-peak-rss.mjs';
import { pulledSchemas } from './_schemas.js';

type Impl =
  | 'catalog-io'
  | 'second thread'
  | 'reader only'
  | 'xlsx exceljs'
  | 'xlsx exceljs+styles'
  | 'xlsx catalog-io'
  | 'xlsx reader';

interface CaseResult {
  impl: Impl;
  rows: number;
  invalid: number;
  seconds: number;
  peakRssMb: number;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');

/** Our side runs the compiled code that ships (dist/, built by run()), as `catalog-io validate` does. */
async function shipped<T>(module: string): Promise<T> {
  return (await import(pathToFileURL(join(ROOT, 'dist', module)).href)) as T;
}
type ValidateModule = typeof import('../src/runner/validate.js');
type LoadModule = typeof import('../src/schema/load.js');
type ReadersModule = typeof import('../src/readers/index.js');
const DATA = join(HERE, '.data');
const ROWS = Number(process.env.CATALOG_IO_BENCH_ROWS ?? 200_000);
const XLSX_ROWS = Number(process.env.CATALOG_IO_BENCH_XLSX_ROWS ?? 100_000);
/** Runs of each case; the best counts. */
const REPS = Number(process.env.CATALOG_IO_BENCH_REPS ?? 3);

const PROFILE: Profile = {
  entity: 'products',
  columns: {
    sku: 'prod_ref',
    name: 'prod_title',
    name_fr: { field: 'prod_title', culture: 'fr' },
    description: 'prod_description',
    weight: 'prod_weight',
    pack: 'prod_pack_size',
    tags: 'prod_tags',
    category: 'cat_refs',
    released: 'prod_release_date',
  },
};

/** One row in 100 has a bad weight, so both sides exercise their error paths. */
async function generate(rows: number): Promise<string> {
  mkdirSync(DATA, { recursive: true });
  const path = join(DATA, `validate-${rows}.csv`);
  if (existsSync(path)) return path;
  const out = createWriteStream(path);
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  await write('sku,name,name_fr,description,weight,pack,tags,category,released\n');
  for (let i = 0; i < rows; i += 1) {
    const weight = i % 100 === 7 ? '1,2O' : `${(i % 997) / 10}`.replace('.', ',');
    await write(
      `SKU-${String(i).padStart(8, '0')},"Product ${i}, classic","Produit ${i}",A description for product ${i} with words,"${weight}",${1 + (i % 12)},a|b|tag${i % 50},CAT-${i % 40},2025-0${1 + (i % 9)}-1${i % 10}\n`,
    );
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return path;
}

/** The same feed as XLSX (cells as text, like a spreadsheet exported from a supplier's system). */
async function generateXlsx(rows: number): Promise<string> {
  const path = join(DATA, `validate-${rows}.xlsx`);
  if (existsSync(path)) return path;
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Products');
  sheet
    .addRow(['sku', 'name', 'name_fr', 'description', 'weight', 'pack', 'tags', 'category', 'released'])
    .commit();
  for (let i = 0; i < rows; i += 1) {
    const weight = i % 100 === 7 ? '1,2O' : `${(i % 997) / 10}`.replace('.', ',');
    sheet
      .addRow([
        `SKU-${String(i).padStart(8, '0')}`,
        `Product ${i}, classic`,
        `Produit ${i}`,
        `A description for product ${i} with words`,
        weight,
        String(1 + (i % 12)),
        `a|b|tag${i % 50}`,
        `CAT-${i % 40}`,
        `2025-0${1 + (i % 9)}-1${i % 10}`,
      ])
      .commit();
  }
  sheet.commit();
  await workbook.commit();
  return path;
}

/**
 * Raw exceljs streaming over the XLSX: every row's values read, nothing else. With `styles` cached, as our
 * reader has them, a date cell reads as a date rather than as the day's serial number.
 */
async function xlsxRaw(
  path: string,
  styles: 'ignore' | 'cache' = 'ignore',
): Promise<{ rows: number; invalid: number }> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(createReadStream(path), {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    styles,
  });
  let rows = 0;
  for await (const sheet of reader) {
    for await (const row of sheet) {
      if ((row as ExcelJS.Row).values) rows += 1;
    }
  }
  return { rows: rows - 1, invalid: 0 };
}

async function ours(
  path: string,
  schemasDir: string,
  report = 'validate-report.csv',
  readThread: 'on' | 'off' = 'off',
): Promise<{ rows: number; invalid: number }> {
  const { validateFile } = await shipped<ValidateModule>('runner/validate.js');
  const { loadTenantModel } = await shipped<LoadModule>('schema/load.js');
  const model = await loadTenantModel({ schemasDir });
  const result = await validateFile({
    source: path,
    model,
    profile: PROFILE,
    reportFile: join(DATA, report),
    readThread,
  });
  return { rows: result.rows, invalid: result.outcomes.invalid };
}

/** Our reader alone over the same file (no mapping, no validation, no report): how much of the gap is reading. */
async function readerOnly(path: string): Promise<{ rows: number; invalid: number }> {
  const { openSource } = await shipped<ReadersModule>('readers/index.js');
  const opened = await openSource(path);
  let rows = 0;
  try {
    for await (const _ of opened.rows) rows += 1;
  } finally {
    await opened.close();
  }
  return { rows, invalid: 0 };
}

const CASES: Record<Impl, (path: string, schemasDir: string) => Promise<{ rows: number; invalid: number }>> =
  {
    'catalog-io': (path, schemasDir) => ours(path, schemasDir),
    'second thread': (path, schemasDir) => ours(path, schemasDir, 'validate-report.csv', 'on'),
    'reader only': (path) => readerOnly(path),
    'xlsx exceljs': (path) => xlsxRaw(path),
    'xlsx exceljs+styles': (path) => xlsxRaw(path, 'cache'),
    'xlsx catalog-io': (path, schemasDir) => ours(path, schemasDir, 'validate-report-xlsx.csv'),
    'xlsx reader': (path) => readerOnly(path),
  };

function runCase(impl: Impl, path: string, schemasDir: string): Promise<CaseResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--case', impl, path, schemasDir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`bench case ${impl} exited with ${code}`));
      else resolve(JSON.parse(text.trim().split('\n').pop()!) as CaseResult);
    });
  });
}

function rate(r: CaseResult): string {
  return Math.round(r.rows / r.seconds)
    .toLocaleString('en')
    .padStart(9);
}

/**
 * Runs every case REPS times, in turns (a, b, c, a, b, c, ...), so a slow moment of a shared machine
 * falls on all of them alike; each case's best time (noise only adds time) and highest peak RSS.
 */
async function runInTurns(
  impls: Impl[],
  path: string,
  schemasDir: string,
): Promise<Array<CaseResult & { spread: string }>> {
  const runs = new Map<Impl, CaseResult[]>(impls.map((impl) => [impl, []]));
  for (let rep = 0; rep < REPS; rep++)
    for (const impl of impls) runs.get(impl)!.push(await runCase(impl, path, schemasDir));
  return impls.map((impl) => {
    const all = runs.get(impl)!;
    const times = all.map((r) => r.seconds).sort((a, b) => a - b);
    return {
      ...all[0]!,
      seconds: times[0]!,
      peakRssMb: Math.max(...all.map((r) => r.peakRssMb)),
      spread: times.map((t) => t.toFixed(2)).join(' / '),
    };
  });
}

export async function run(): Promise<void> {
  // Our cases run the compiled code: build it from the sources as they are now.
  const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  if (built.status !== 0) throw new Error('npm run build failed: run it to see why');
  const path = await generate(ROWS);
  const schemasDir = await pulledSchemas(join(DATA, 'schemas'));
  process.stdout.write(
    `validate: ${ROWS} CSV rows, ${cpus().length} cores, node ${process.version}, ${new Date().toISOString()}\n`,
  );
  const xlsxPath = await generateXlsx(XLSX_ROWS);
  process.stdout.write(
    `  each case ${REPS} times, taken in turns; the best time (other work on the machine only ever adds time) and the highest peak RSS\n`,
  );
  const csvCases = await runInTurns(['catalog-io', 'second thread', 'reader only'], path, schemasDir);
  const xlsxCases = await runInTurns(
    ['xlsx exceljs', 'xlsx catalog-io', 'xlsx reader', 'xlsx exceljs+styles'],
    xlsxPath,
    schemasDir,
  );
  for (const r of [...csvCases, ...xlsxCases]) {
    process.stdout.write(
      `  ${r.impl.padEnd(19)} ${rate(r)} rows/s  ${r.seconds.toFixed(2)} s (${r.spread})  ${r.invalid} invalid  peak RSS ${r.peakRssMb} MB\n`,
    );
  }
  const [cio, threaded, reader] = csvCases as unknown as [CaseResult, CaseResult, CaseResult];
  const [xlsxRawResult, xlsxOurs, xlsxReader, xlsxStyles] = xlsxCases as unknown as [
    CaseResult,
    CaseResult,
    CaseResult,
    CaseResult,
  ];
  process.stdout.write(
    `  catalog-io peak RSS ${cio.peakRssMb} MB (target < 200 MB)\n` +
      `  reading on a second thread (readThread 'on'): ${((cio.seconds / threaded.seconds) * 100).toFixed(0)}% of one thread's speed, peak RSS ${threaded.peakRssMb} MB\n` +
      `  XLSX (${XLSX_ROWS} rows): catalog-io validate / raw exceljs streaming: ${((xlsxRawResult.seconds / xlsxOurs.seconds) * 100).toFixed(0)}% (target >= 85%)\n` +
      `  XLSX: against raw exceljs with styles cached (dates read as dates, as ours): ${((xlsxStyles.seconds / xlsxOurs.seconds) * 100).toFixed(0)}%\n` +
      `  XLSX: our reader alone takes ${((xlsxReader.seconds / xlsxOurs.seconds) * 100).toFixed(0)}% of catalog-io's time (${((xlsxReader.seconds / xlsxRawResult.seconds) * 100).toFixed(0)}% of raw exceljs)\n` +
      `  CSV: the reader alone takes ${((reader.seconds / cio.seconds) * 100).toFixed(0)}% of catalog-io's time\n`,
  );
}

const invokedDirectly = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (invokedDirectly) {
  const index = process.argv.indexOf('--case');
  if (index >= 0) {
    const [impl, path, schemasDir] = process.argv.slice(index + 1) as [Impl, string, string];
    const started = process.hrtime.bigint();
    const counts = await CASES[impl](path, schemasDir);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const peakRssMb = Math.round(ownPeakRssKb() / 1024);
    process.stdout.write(`${JSON.stringify({ impl, ...counts, seconds, peakRssMb } satisfies CaseResult)}\n`);
  } else {
    await run();
  }
}
