// `npm run bench import-rates`: import throughput and request counts as whole processes — a sandbox
// in a process of its own (bench/_sandbox-process.ts) and `catalog-io import --rate-limit off` as
// another — for a feed that creates, re-imports unchanged, and changes 2% of its rows, in one and in
// three languages, without the import state (`--full-compare`) and with it. Request counts are the
// sandbox's own counters; the schemas are pulled once (`--schemas`), so a run's count is its import.
//   CATALOG_IO_BENCH_IMPORT_ROWS=20000   rows per feed (default 20,000)
//   CATALOG_IO_BENCH_IMPORT_LANGUAGES=1  only the one-language feeds (default: 1 and 3)
//   CATALOG_IO_BENCH_IMPORT_PERSIST=1    the sandbox keeps its state on disk (fsync'd write log)
//   CATALOG_IO_BENCH_IMPORT_ROOT=DIR     run another checkout's CLI (a "before" measurement)
//   CATALOG_IO_BENCH_PLAN_ROWS=300000    rows of the large `--plan` (0: no plan runs)
// Each import's CPU time (user + system, start-up included) is printed beside its rates: on a shared
// machine it varies far less than the wall time.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI_ROOT = process.env.CATALOG_IO_BENCH_IMPORT_ROOT ?? ROOT;
/** Another checkout without the import state: only the steps it can run. */
const OTHER = CLI_ROOT !== ROOT && !existsSync(join(CLI_ROOT, 'src/runs/known-state.ts'));
const ROWS = Number(process.env.CATALOG_IO_BENCH_IMPORT_ROWS ?? 20_000);
const LANGUAGES = process.env.CATALOG_IO_BENCH_IMPORT_LANGUAGES === '1' ? ([1] as const) : ([1, 3] as const);
const PERSIST = process.env.CATALOG_IO_BENCH_IMPORT_PERSIST === '1';
/**
 * `--plan` of new products at a tenth of this and at this: past about 100,000 rows a plan holds more
 * than its memory budget of planned values and drops the oldest, so its CPU per row shows whether that
 * stays cheap (it once grew with the rows: 300,000 took 22 s).
 */
const PLAN_ROWS = Number(process.env.CATALOG_IO_BENCH_PLAN_ROWS ?? 300_000);
const KEY = 'sandbox-rw-key';
/** tsx by its own path, for the sandbox's process (it runs from the checkout's sources). */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
/** Writes the process's CPU time on exit (loaded into the CLI with `--import`). */
const USAGE_HOOK = pathToFileURL(join(ROOT, 'bench', '_peak-rss.mjs')).href;

interface Sandbox {
  child: ChildProcess;
  origin: string;
  catalogUrl: string;
  damUrl: string;
}

async function startSandboxProcess(dataDir: string | undefined): Promise<Sandbox> {
  // The checkout measured brings its own sandbox (copy _sandbox-process.ts into an older one).
  const args = ['--import', TSX, join(CLI_ROOT, 'bench', '_sandbox-process.ts')];
  if (dataDir) args.push('--data-dir', dataDir);
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const nl = text.indexOf('\n');
      if (nl !== -1) resolve(text.slice(0, nl));
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as Omit<Sandbox, 'child'>) };
}

async function sandboxTotal(sb: Sandbox): Promise<{ total: number; byMethod: Record<string, number> }> {
  return (await (await fetch(`${sb.origin}/_sandbox/stats`)).json()) as {
    total: number;
    byMethod: Record<string, number>;
  };
}

async function resetStats(sb: Sandbox): Promise<void> {
  await fetch(`${sb.origin}/_sandbox/stats/reset`, { method: 'POST' });
}

interface CliResult {
  rows: number;
  outcomes: Record<string, number>;
  /** The import inside the process, as its summary measured it. */
  importMs: number;
  /** The whole process, start-up included. */
  wallMs: number;
  /** CPU time (user + system) of the whole process. */
  cpuSeconds: number;
  peakRssMb: number;
}

function cli(args: string[], cwd: string): Promise<CliResult> {
  const started = performance.now();
  const usageFile = join(cwd, '.bench-usage.json');
  return new Promise((resolve, reject) => {
    // The CLI as shipped (built by run()): what a user's cron job starts.
    const node = ['--import', USAGE_HOOK, join(CLI_ROOT, 'bin', 'catalog-io.js')];
    const child = spawn(process.execPath, [...node, ...args], {
      cwd,
      env: { ...process.env, CATALOG_API_KEY: KEY, CATALOG_IO_BENCH_USAGE: usageFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 && code !== 1)
        return reject(new Error(`catalog-io ${args[0]} exited with ${code}: ${err}`));
      if (args[0] !== 'import')
        return resolve({ rows: 0, outcomes: {}, importMs: 0, wallMs: 0, cpuSeconds: 0, peakRssMb: 0 });
      const summary = JSON.parse(out) as {
        rows: number;
        outcomes: Record<string, number>;
        durationMs: number;
      };
      const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { cpuSeconds: number; peakRssMb: number };
      resolve({
        rows: summary.rows,
        outcomes: summary.outcomes,
        importMs: summary.durationMs,
        wallMs: performance.now() - started,
        cpuSeconds: usage.cpuSeconds,
        peakRssMb: usage.peakRssMb,
      });
    });
  });
}

/** `rows` products; `languages` 1 or 3; every 50th row renamed when `changed`; refs `<prefix>-0000001`. */
function writeFeed(
  file: string,
  languages: 1 | 3,
  changed: boolean,
  rows = ROWS,
  prefix = languages === 3 ? 'L3' : 'L1',
): void {
  const lines = [
    languages === 3
      ? 'prod_ref,prod_title,prod_title_fr,prod_title_es,prod_weight'
      : 'prod_ref,prod_title,prod_weight',
  ];
  for (let i = 0; i < rows; i++) {
    const title = changed && i % 50 === 0 ? `Renamed ${i}` : `Product ${i}`;
    const ref = `${prefix}-${String(i).padStart(7, '0')}`;
    lines.push(
      languages === 3 ? `${ref},${title},Produit ${i},Producto ${i},${i % 9}` : `${ref},${title},${i % 9}`,
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function show(label: string, r: CliResult, requests: number): void {
  const outcomes = Object.entries(r.outcomes)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${o} ${n}`)
    .join(', ');
  const cpuPerRow = r.rows > 0 ? ` = ${Math.round((r.cpuSeconds / r.rows) * 1e6)} µs a row` : '';
  process.stdout.write(
    `  ${label.padEnd(44)} ${String(Math.round((r.rows / r.importMs) * 1000)).padStart(7)} rows/s` +
      `  (process ${(r.wallMs / 1000).toFixed(1)} s, cpu ${r.cpuSeconds.toFixed(2)} s${cpuPerRow}, ${r.peakRssMb} MB)` +
      `  ${String(requests).padStart(6)} requests  ${outcomes}\n`,
  );
}

export async function run(): Promise<void> {
  const built = spawnSync('npm', ['run', 'build'], { cwd: CLI_ROOT, stdio: 'ignore' });
  if (built.status !== 0) throw new Error(`npm run build failed in ${CLI_ROOT}: run it to see why`);
  const work = mkdtempSync(join(tmpdir(), 'catalog-io-bench-import-'));
  const sb = await startSandboxProcess(PERSIST ? join(work, 'sandbox') : undefined);
  try {
    process.stdout.write(
      `${ROWS.toLocaleString('en')} rows per feed, --rate-limit off, concurrency 8; sandbox ${PERSIST ? "with its fsync'd write log" : 'in memory'}; CLI of ${CLI_ROOT}\n`,
    );
    const schemas = join(work, 'schemas');
    const connection = ['--catalog-url', sb.catalogUrl, '--dam-url', sb.damUrl];
    await cli(['schema', 'pull', '--out', schemas, ...connection], work);
    const common = [...connection, '--schemas', schemas, '--rate-limit', 'off', '--quiet', '--json'];
    for (const languages of LANGUAGES) {
      process.stdout.write(`${languages} language${languages === 1 ? '' : 's'}:\n`);
      const cwd = join(work, `l${languages}`);
      mkdirSync(cwd);
      const feed = join(cwd, 'feed.csv');
      const changedFeed = join(cwd, 'changed.csv');
      writeFeed(feed, languages, false);
      writeFeed(changedFeed, languages, true);
      const step = async (label: string, file: string, extra: string[] = []) => {
        if (OTHER && label.includes('with state')) return;
        if (OTHER) extra = [];
        await resetStats(sb);
        const r = await cli(['import', file, ...common, ...extra], cwd);
        show(label, r, (await sandboxTotal(sb)).total);
      };
      await step('create', feed);
      await step('unchanged, without state (--full-compare)', feed, ['--full-compare']);
      await step('unchanged, with state', feed);
      await step('2% changed, without state (--full-compare)', changedFeed, ['--full-compare']);
      // The run before wrote 2%: their refs are looked up once more, then the state holds them.
      await step('back to the feed, with state', feed);
      await step('2% changed, with state', changedFeed);
    }
    if (PLAN_ROWS > 0) {
      process.stdout.write('--plan of new products (past about 100,000 rows, beyond its memory budget):\n');
      for (const rows of [Math.round(PLAN_ROWS / 10), PLAN_ROWS]) {
        const feed = join(work, `plan-${rows}.csv`);
        writeFeed(feed, 1, false, rows, 'PLAN');
        await resetStats(sb);
        const r = await cli(['import', feed, ...common, '--plan'], work);
        show(`plan, ${rows.toLocaleString('en')} rows`, r, (await sandboxTotal(sb)).total);
      }
    }
  } finally {
    sb.child.kill('SIGTERM');
    await new Promise((resolve) => sb.child.once('exit', resolve));
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
