// The console's front end: our pages (`web/`) and the libraries they use, served from their npm
// packages as they are installed (no CDN: the console works offline). Found from this module's place,
// in the sources, in tsc's output and in the CLI's bundle alike.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CatalogIoError } from '../errors.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** `/vendor/<name>` -> a file of an installed package. */
const VENDOR: Record<string, { pkg: string; file: string; type: string }> = {
  'preact.mjs': { pkg: 'preact', file: 'dist/preact.mjs', type: 'text/javascript' },
  'hooks.mjs': { pkg: 'preact', file: 'hooks/dist/hooks.mjs', type: 'text/javascript' },
  'htm.mjs': { pkg: 'htm', file: 'dist/htm.module.js', type: 'text/javascript' },
  'tabulator.mjs': {
    pkg: 'tabulator-tables',
    file: 'dist/js/tabulator_esm.min.mjs',
    type: 'text/javascript',
  },
  'tabulator.css': { pkg: 'tabulator-tables', file: 'dist/css/tabulator_simple.min.css', type: 'text/css' },
  'chart.js': { pkg: 'chart.js', file: 'dist/chart.umd.min.js', type: 'text/javascript' },
};

/** The folder of an installed package: the nearest `node_modules/<name>` above this module. */
export function packageDir(name: string, from = HERE): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir)
      throw new CatalogIoError('CONFIG_INVALID', `The console needs the package ${name}: run npm ci`);
  }
}

export function vendorFile(name: string): { file: string; type: string } | undefined {
  const entry = Object.hasOwn(VENDOR, name) ? VENDOR[name] : undefined;
  return entry && { file: path.join(packageDir(entry.pkg), entry.file), type: entry.type };
}

/**
 * Our pages: `src/console/web` beside the sources, `dist/console/web` (copied by the build) beside tsc's
 * output and the bundle (`dist/bin/`, two folders below the package like every module).
 */
export function webDir(): string {
  const root = path.resolve(HERE, '../..');
  const inDist = path.basename(path.dirname(HERE)) === 'dist';
  const dir = inDist ? path.join(root, 'dist', 'console', 'web') : path.join(root, 'src', 'console', 'web');
  if (!existsSync(dir))
    throw new CatalogIoError('CONFIG_INVALID', `The console's pages are missing (${dir}): run npm run build`);
  return dir;
}
