// `npm run bench [name ...]`: runs the benchmarks in bench/ one after another and prints what each
// measured. Each bench module exports `run()`; results are ratios measured side by side in one run.
import { readdirSync } from 'node:fs';
import { arch, cpus, totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => basename(f, '.ts'))
  .sort();
const names = wanted.length > 0 ? wanted : available;
const unknown = names.filter((n) => !available.includes(n));
if (unknown.length > 0) {
  process.stderr.write(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available.join(', ')}\n`);
  process.exit(2);
}

process.stdout.write(
  `catalog-io benchmarks — ${new Date().toISOString()} — node ${process.version}, ${arch()}, ` +
    `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB\n`,
);
for (const name of names) {
  process.stdout.write(`\n== ${name} ==\n`);
  const mod = (await import(pathToFileURL(join(here, `${name}.ts`)).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== 'function') {
    process.stderr.write(`bench/${name}.ts exports no run()\n`);
    process.exitCode = 2;
    continue;
  }
  await mod.run();
}
