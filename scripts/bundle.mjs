// Bundles the CLI as shipped (`bin/catalog-io.js` runs `dist/bin/run.js`): our modules and the libraries
// every run loads (Ajv, papaparse, yargs, ...) in a few files, so a run starts without resolving and
// reading a hundred small modules (a third of `validate`'s start-up). Commands still load on use: each
// dynamic import becomes a chunk of its own. The library entry (`dist/index.js`) stays tsc's output.
// Packages with native parts, or only used by some commands, stay in node_modules.
import { cpSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry a hash of their content: last build's chunks would otherwise stay beside the new ones.
rmSync('dist/bin', { recursive: true, force: true });

await build({
  entryPoints: {
    run: 'dist/cli/run.js',
    worker: 'dist/readers/thread/worker.js',
    'part-worker': 'dist/runner/validate-parts/part-worker.js',
  },
  // Two folders deep like every tsc module, so `new URL('../../samples/', import.meta.url)` still finds
  // the package's files.
  outdir: 'dist/bin',
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  external: [
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
    // YAML profiles only (CommonJS: Node's own import gives its named exports, a bundle's chunk does not).
    'yaml',
    // `serve` only: the web console's server and the job dashboard (which serves its own page files).
    'fastify',
    '@fastify/multipart',
    '@fastify/static',
    '@bull-board/api',
    '@bull-board/fastify',
  ],
  // Bundled CommonJS libraries call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
});

// The console's pages (plain ES modules, no build): beside tsc's output, where src/console/assets.ts
// finds them from the sources' place in dist/ and from the bundle's.
rmSync('dist/console/web', { recursive: true, force: true });
cpSync('src/console/web', 'dist/console/web', { recursive: true });
