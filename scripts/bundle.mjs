// Bundles the CLI as shipped (`bin/catalog-io.js` runs `dist/bin/run.js`): our modules and the libraries
// every run loads (Ajv, papaparse, yargs, ...) in one CommonJS file, `dist/bin/cli.cjs`, so a run starts
// without resolving and reading a hundred small modules, and `run.js` (src/cli/launch.ts) compiles it
// with the code cache made here (`cli.cjs.cache`): V8's bytecode of what a sample validate ran, which
// saves a short run most of its compile time. The reading and validating threads are ES modules of
// their own beside it (they share chunks). The library entry (`dist/index.js`) stays tsc's output.
// Packages with native parts, or only used by some commands, stay in node_modules.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';

// Chunk names carry a hash of their content: last build's chunks would otherwise stay beside the new ones.
rmSync('dist/bin', { recursive: true, force: true });

const external = [
  'bullmq',
  'ioredis',
  'ssh2',
  'ssh2-sftp-client',
  'cpu-features',
  'basic-ftp',
  'nodemailer',
  'sharp',
  'exceljs',
  'undici',
  'yaml',
  // `serve` only: the web console's server and the job dashboard (which serves its own page files).
  'fastify',
  '@fastify/multipart',
  '@fastify/static',
  '@bull-board/api',
  '@bull-board/fastify',
];
const shared = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', external };

// The CLI: one CommonJS file. `import.meta.url` is the bundle's own URL, two folders deep like every
// tsc module, so `new URL('../../samples/', import.meta.url)` still finds the package's files, and
// `./part-worker.js` the threads. A command's `import()` of a package left in node_modules becomes a
// `require` (every such package can be required).
await build({
  ...shared,
  entryPoints: ['dist/cli/run.js'],
  outfile: 'dist/bin/cli.cjs',
  format: 'cjs',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// Its first line names this build: the cache is used with this bundle only (launch.ts).
// Every character past ASCII escaped (esbuild leaves some in comments and regular expressions): an
// ASCII file is read into a one-byte string several times faster (launch.ts).
const cli = readFileSync('dist/bin/cli.cjs', 'utf8').replace(
  /[^\0-\x7f]/g,
  (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
);
const buildId = createHash('sha256').update(cli).digest('hex').slice(0, 32);
writeFileSync('dist/bin/cli.cjs', `// build ${buildId}\n${cli}`);

await build({
  ...shared,
  entryPoints: {
    run: 'dist/cli/start.js',
    worker: 'dist/readers/thread/worker.js',
    'part-worker': 'dist/runner/validate-parts/part-worker.js',
  },
  outdir: 'dist/bin',
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  splitting: true,
  format: 'esm',
  // Bundled CommonJS libraries call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
});

// The code cache: a `validate` of a sample feed with its report, against a sandbox tenant started for it,
// run through the launcher, which writes the cache of what ran when asked to (the commands `validate`
// does not run compile as usual). `validate` is the command bound by our own speed; a larger cache (the
// whole tour, `demo`) costs every start more to read than it saves. Without a cache (the sample run
// failed) the CLI runs as well, only compiles more.
const scratch = mkdtempSync(join(tmpdir(), 'catalog-io-build-'));
const sandbox = spawn(
  process.execPath,
  ['dist/bin/run.js', 'sandbox', '--port', '0', '--json', '--data-dir', join(scratch, 'sandbox')],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
try {
  const [first] = await Promise.race([
    once(createInterface({ input: sandbox.stdout }), 'line'),
    once(sandbox, 'exit').then(() => ['{}']),
  ]);
  const tenant = JSON.parse(first);
  const sample = spawnSync(
    process.execPath,
    [
      'dist/bin/run.js',
      'validate',
      'samples/products.csv',
      '--profile',
      'samples/profiles/products.json',
      '--report',
      join(scratch, 'report.csv'),
      '--rejects',
      join(scratch, 'rejects.csv'),
      '--json',
      '--catalog-url',
      String(tenant.catalogUrl),
      '--dam-url',
      String(tenant.damUrl),
      '--api-key',
      String(tenant.apiKey),
    ],
    { env: { ...process.env, CATALOG_IO_WRITE_CODE_CACHE: 'dist/bin/cli.cjs.cache' }, encoding: 'utf8' },
  );
  if (sample.status === 2 || sample.error)
    console.warn(`bundle: no code cache (the sample validate failed): ${sample.stderr || sample.error}`);
} finally {
  sandbox.kill();
  rmSync(scratch, { recursive: true, force: true });
}

// The console's pages (plain ES modules, no build): beside tsc's output, where src/console/assets.ts
// finds them from the sources' place in dist/ and from the bundle's.
rmSync('dist/console/web', { recursive: true, force: true });
cpSync('src/console/web', 'dist/console/web', { recursive: true });
