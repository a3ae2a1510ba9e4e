// Validation on every feed shape, whole process against whole process: `catalog-io validate` writing its
// per-row report (the CLI as shipped, as a user runs it) against the raw loop of `_raw-validate.mjs`
// (papaparse in chunk mode -> the same mapping -> Ajv with ajv-formats compiled from the same pulled
// schemas, every format checked), spawned side by side in one run, in turns (raw, ours, ours without the
// report, raw, ...). For every shape at 300,000 rows (3 pairs, medians) and at 2,000,000 (1 pair): our time
// with `--report` (as shipped: a file of a million rows and more whose head quotes no cell is checked in parts on
// two threads, see docs/reports.md), the raw loop's, their ratio (raw / ours: above 1.0 we are faster),
// the CPU ratio, peak RSS of each, our time without the report, and, where the default checked the file
// in parts, our time on one thread (`CATALOG_IO_VALIDATE_PARTS=off`). One row in 100 carries a bad value
// in each shape, and both sides must count the same invalid rows.
//
//   npm run bench validate-shapes
//   CATALOG_IO_BENCH_SHAPE_ROWS=300000   rows per shape (default 300,000)
//   CATALOG_IO_BENCH_REPS=3              pairs per shape (default 3)
//   CATALOG_IO_BENCH_BIG_ROWS=2000000    rows of the large files, every shape (0: skipped)
//   CATALOG_IO_BENCH_SHAPES=dates,mixed  only these shapes
//   CATALOG_IO_BENCH_NO_REPORT=0         skip the runs without the report
//   CATALOG_IO_BENCH_ONE_THREAD=0        skip ours on one thread where the default checks in parts
//   CATALOG_IO_BENCH_STDIN=0             skip ours reading the file from a pipe (no size known)
import { spawn, spawnSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { Profile } from '../src/mappers/profile-types.js';
import { fileHead, wantsParts } from '../src/runner/validate-parts/parts.js';
import { pulledSchemas } from './_schemas.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const DATA = join(HERE, '.data');
const ROWS = Number(process.env.CATALOG_IO_BENCH_SHAPE_ROWS ?? 300_000);
const REPS = Number(process.env.CATALOG_IO_BENCH_REPS ?? 3);
const BIG_ROWS = Number(process.env.CATALOG_IO_BENCH_BIG_ROWS ?? 2_000_000);

type Kind = 'text' | 'number' | 'integer' | 'list' | 'refs' | 'date' | 'date-time';
interface Column {
  header: string;
  field: string;
  kind: Kind;
  culture?: string;
  /** The cell of row i (CSV-escaped by the generator). */
  cell: (i: number) => string;
}
interface Shape {
  name: string;
  title: string;
  columns: Column[];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const bad = (i: number) => i % 100 === 37;

const sku: Column = {
  header: 'sku',
  field: 'prod_ref',
  kind: 'text',
  cell: (i) => `SKU-${pad(i, 8)}`,
};
/**
 * The same refs in no order (a multiplicative scramble modulo a prime above two million: unique up to
 * two million rows): the duplicate check's path for feeds not sorted by ref.
 */
const scrambledSku: Column = {
  header: 'sku',
  field: 'prod_ref',
  kind: 'text',
  cell: (i) => `SKU-${pad((i * 7919) % 2_000_003, 8)}`,
};
const textColumns: Column[] = [
  { header: 'name', field: 'prod_title', kind: 'text', cell: (i) => `Product ${i} classic` },
  {
    header: 'description',
    field: 'prod_description',
    kind: 'text',
    cell: (i) => `A description for product ${i} with some words in it`,
  },
  {
    header: 'brand',
    field: 'prod_brand',
    kind: 'text',
    // Too long for the field (100) on a bad row.
    cell: (i) => (bad(i) ? 'B'.repeat(120) : `Brand ${i % 300}`),
  },
];
const dateTimeColumns: Column[] = [
  {
    header: 'published',
    field: 'prod_date',
    kind: 'date-time',
    cell: (i) =>
      `20${pad(10 + (i % 15))}-${pad(1 + (i % 12))}-${pad(1 + (i % 28))}T${pad(i % 24)}:${pad(i % 60)}:${pad((i * 7) % 60)}Z`,
  },
  {
    header: 'launch',
    field: 'prod_launch_at',
    kind: 'date-time',
    cell: (i) =>
      bad(i)
        ? '2024-02-30T10:00:00Z'
        : `2024-${pad(1 + (i % 12))}-${pad(1 + ((i * 3) % 28))}T${pad((i * 5) % 24)}:${pad((i * 11) % 60)}:00Z`,
  },
];
const releasedColumn: Column = {
  header: 'released',
  field: 'prod_release_date',
  kind: 'date',
  cell: (i) =>
    bad(i) ? '2025-02-30' : `20${pad(10 + (i % 15))}-${pad(1 + ((i * 7) % 12))}-${pad(1 + (i % 28))}`,
};
const numberColumns: Column[] = [
  {
    header: 'weight',
    field: 'prod_weight',
    kind: 'number',
    cell: (i) => (bad(i) ? '"1,2O"' : `"${Math.floor(i / 7) % 1000},${pad(i % 100)}"`),
  },
  { header: 'pack', field: 'prod_pack_size', kind: 'integer', cell: (i) => String(1 + (i % 5000)) },
];
const listColumns: Column[] = [
  {
    header: 'tags',
    field: 'prod_tags',
    kind: 'list',
    cell: (i) => (bad(i) ? `a|${'t'.repeat(60)}` : `tag${i % 50}|tag${(i * 7) % 300}|t${i % 9000}`),
  },
  { header: 'category', field: 'cat_refs', kind: 'refs', cell: (i) => `CAT-${i % 40}|CAT-${(i * 3) % 400}` },
];
const languageColumns: Column[] = [
  { header: 'title', field: 'prod_title', kind: 'text', cell: (i) => `Product ${i} in English` },
  {
    header: 'title_fr',
    field: 'prod_title',
    kind: 'text',
    culture: 'fr',
    cell: (i) => (bad(i) ? 'x'.repeat(300) : `Produit ${i} en français`),
  },
  {
    header: 'title_es',
    field: 'prod_title',
    kind: 'text',
    culture: 'es',
    cell: (i) => `Producto ${i} en español`,
  },
];
const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
const quotedColumns: Column[] = [
  {
    header: 'name',
    field: 'prod_title',
    kind: 'text',
    cell: (i) => quote(`Shirt "${i}", cotton, size ${i % 9}`),
  },
  {
    header: 'description',
    field: 'prod_description',
    kind: 'text',
    cell: (i) => quote(`Line one of ${i}, with "quotes"\nline two, more, commas\nline three`),
  },
  {
    header: 'brand',
    field: 'prod_brand',
    kind: 'text',
    cell: (i) => quote(bad(i) ? `"${'Q'.repeat(110)}"` : `Brand "${i % 300}", Ltd`),
  },
];

const SHAPES: Shape[] = [
  { name: 'text', title: 'text columns only', columns: [sku, ...textColumns] },
  { name: 'unsorted', title: 'text, refs in no order', columns: [scrambledSku, ...textColumns] },
  {
    name: 'date-times',
    title: 'two date-times and a date',
    columns: [sku, ...dateTimeColumns, releasedColumn],
  },
  { name: 'dates', title: 'dates only', columns: [sku, releasedColumn] },
  { name: 'numbers', title: 'decimals and integers', columns: [sku, ...numberColumns] },
  { name: 'lists', title: 'lists a|b|c', columns: [sku, ...listColumns] },
  { name: 'languages', title: 'three languages of one field', columns: [sku, ...languageColumns] },
  { name: 'quoted', title: 'quoted cells (commas, quotes, newlines)', columns: [sku, ...quotedColumns] },
];
/** Every column of every shape once (the quoted texts stand for the text columns). */
const MIXED: Shape = {
  name: 'mixed',
  title: 'a mixed file of all',
  columns: [
    sku,
    ...quotedColumns,
    ...dateTimeColumns,
    releasedColumn,
    ...numberColumns,
    ...listColumns,
    ...languageColumns.slice(1),
  ],
};

async function generate(shape: Shape, rows: number): Promise<string> {
  mkdirSync(DATA, { recursive: true });
  const path = join(DATA, `shape-${shape.name}-${rows}.csv`);
  if (existsSync(path)) return path;
  const partial = `${path}.part`;
  const out = createWriteStream(partial);
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  await write(`${shape.columns.map((c) => c.header).join(',')}\n`);
  let chunk = '';
  for (let i = 0; i < rows; i += 1) {
    chunk += `${shape.columns.map((c) => c.cell(i)).join(',')}\n`;
    if (chunk.length > 1 << 16) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((resolve) => out.end(() => resolve()));
  const { renameSync } = await import('node:fs');
  renameSync(partial, path);
  return path;
}

function profileOf(shape: Shape): Profile {
  const columns: NonNullable<Profile['columns']> = {};
  for (const c of shape.columns)
    columns[c.header] = c.culture ? { field: c.field, culture: c.culture } : c.field;
  return { entity: 'products', columns };
}

interface Run {
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  rows: number;
  invalid: number;
}
/** Spawns one whole process and measures it from spawn to exit. */
function runProcess(
  args: string[],
  env: Record<string, string>,
  parse: (stdout: string) => { rows: number; invalid: number },
  stdinFile?: string,
): Promise<Run> {
  const usageFile = join(DATA, `usage-${process.pid}.json`);
  rmSync(usageFile, { force: true });
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', join(HERE, '_peak-rss.mjs'), ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env, CATALOG_IO_BENCH_USAGE: usageFile },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    // Through a pipe, as `cat FILE | catalog-io validate -` (a redirected file is read as a file is).
    if (stdinFile === undefined) child.stdin.end();
    else pipeline(createReadStream(stdinFile), child.stdin).catch(() => {});
    child.on('error', reject);
    child.on('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      try {
        const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as {
          peakRssMb: number;
          cpuSeconds: number;
        };
        resolve({ seconds, ...usage, ...parse(stdout) });
      } catch {
        reject(new Error(`${args.join(' ')} failed:\n${stderr}${stdout}`));
      }
    });
  });
}

function rawSide(shape: Shape, path: string, schemasDir: string): Promise<Run> {
  const columns = Object.fromEntries(
    shape.columns.map((c) => [
      c.header,
      { field: c.field, kind: c.kind, ...(c.culture && { culture: c.culture }) },
    ]),
  );
  return runProcess([join(HERE, '_raw-validate.mjs'), path, schemasDir, JSON.stringify(columns)], {}, (out) =>
    JSON.parse(out.trim()),
  );
}

/**
 * `catalog-io validate` as a user runs it; with `report`, also writing its per-row report; with `stdin`,
 * reading the file from a pipe as its standard input (`validate -`: no size known, one thread).
 */
function ourSide(
  shape: Shape,
  path: string,
  schemasDir: string,
  report = false,
  env: Record<string, string> = {},
  stdin = false,
): Promise<Run> {
  const profile = join(DATA, `shape-${shape.name}.profile.json`);
  writeFileSync(profile, JSON.stringify(profileOf(shape)));
  const args = [
    join(ROOT, 'bin', 'catalog-io.js'),
    'validate',
    stdin ? '-' : path,
    '--schemas',
    schemasDir,
    '--profile',
    profile,
    ...(report ? ['--report', join(DATA, `shape-${shape.name}.report.csv`)] : []),
    '--json',
  ];
  return runProcess(
    args,
    env,
    (out) => {
      const summary = JSON.parse(out.trim().split('\n').pop()!) as {
        rows: number;
        outcomes: { invalid: number };
      };
      return { rows: summary.rows, invalid: summary.outcomes.invalid };
    },
    stdin ? path : undefined,
  );
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const NO_REPORT = process.env.CATALOG_IO_BENCH_NO_REPORT !== '0';
const ONE_THREAD = process.env.CATALOG_IO_BENCH_ONE_THREAD !== '0';
const STDIN = process.env.CATALOG_IO_BENCH_STDIN !== '0';
/** Whether the CLI as shipped checks this file in parts (on a machine with a second core). */
const inParts = (path: string) =>
  availableParallelism() > 1 && wantsParts('auto', statSync(path).size, () => fileHead(path));

async function measure(shape: Shape, rows: number, reps: number, schemasDir: string): Promise<void> {
  const path = await generate(shape, rows);
  const raw: Run[] = [];
  const ours: Run[] = [];
  const bare: Run[] = [];
  const single: Run[] = [];
  const piped: Run[] = [];
  for (let rep = 0; rep < reps; rep++) {
    raw.push(await rawSide(shape, path, schemasDir));
    ours.push(await ourSide(shape, path, schemasDir, true));
    if (NO_REPORT) bare.push(await ourSide(shape, path, schemasDir));
    if (ONE_THREAD && inParts(path))
      single.push(await ourSide(shape, path, schemasDir, true, { CATALOG_IO_VALIDATE_PARTS: 'off' }));
    if (STDIN) piped.push(await ourSide(shape, path, schemasDir, true, {}, true));
  }
  const r = median(raw.map((x) => x.seconds));
  const o = median(ours.map((x) => x.seconds));
  const cpu = median(raw.map((x) => x.cpuSeconds)) / median(ours.map((x) => x.cpuSeconds));
  const pairs = raw.map((x, i) => (x.seconds / ours[i]!.seconds).toFixed(2)).join(' ');
  const agree = [...ours, ...bare, ...single, ...piped].every(
    (x) => x.invalid === raw[0]!.invalid && x.rows === raw[0]!.rows,
  );
  const peak = (runs: Run[]) => Math.max(...runs.map((x) => x.peakRssMb));
  const b = bare.length > 0 ? median(bare.map((x) => x.seconds)) : undefined;
  process.stdout.write(
    `  ${shape.title.padEnd(42)} ${String(rows).padStart(9)}  ours ${o.toFixed(2).padStart(6)} s  raw ${r.toFixed(2).padStart(6)} s` +
      `  raw/ours ${(r / o).toFixed(2).padStart(5)} (CPU ${cpu.toFixed(2)}; pairs ${pairs})` +
      `  peak RSS ours ${peak(ours)} / raw ${peak(raw)} MB` +
      (b === undefined
        ? ''
        : `  | no report ${b.toFixed(2)} s, raw/ours ${(r / b).toFixed(2)}, ${peak(bare)} MB`) +
      (single.length === 0
        ? ''
        : `  | one thread ${median(single.map((x) => x.seconds)).toFixed(2)} s, raw/ours ${(r / median(single.map((x) => x.seconds))).toFixed(2)}, CPU ${(median(raw.map((x) => x.cpuSeconds)) / median(single.map((x) => x.cpuSeconds))).toFixed(2)}, ${peak(single)} MB`) +
      (piped.length === 0
        ? ''
        : `  | from a pipe ${median(piped.map((x) => x.seconds)).toFixed(2)} s, raw/ours ${(r / median(piped.map((x) => x.seconds))).toFixed(2)}, ${peak(piped)} MB`) +
      `  invalid ${raw[0]!.invalid}/${ours[0]!.invalid}${agree ? '' : ' DISAGREE'}\n`,
  );
}

export async function run(): Promise<void> {
  // Our side runs the CLI as shipped: build it from the sources as they are now.
  const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  if (built.status !== 0) throw new Error('npm run build failed: run it to see why');
  const schemasDir = await pulledSchemas(join(DATA, 'schemas'));
  const only = process.env.CATALOG_IO_BENCH_SHAPES?.split(',');
  const shapes = [...SHAPES, MIXED].filter((s) => !only || only.includes(s.name));
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  process.stdout.write(
    `validate-shapes: ${cpus().length} cores, node ${process.version}, ${new Date().toISOString()}, load ${load()}\n` +
      `  ${REPS} pairs a shape at ${ROWS} rows, 1 at ${BIG_ROWS}; raw, ours with --report, ours without, ours from a pipe, in turns; medians\n`,
  );
  for (const shape of shapes) await measure(shape, ROWS, REPS, schemasDir);
  if (BIG_ROWS > 0)
    for (const shape of shapes)
      await measure({ ...shape, name: `${shape.name}-big` }, BIG_ROWS, 1, schemasDir);
  process.stdout.write(`  load at the end: ${load()}\n`);
}

const invokedDirectly = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (invokedDirectly) await run();
