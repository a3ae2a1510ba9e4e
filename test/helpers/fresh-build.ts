// Vitest global setup: the CLI that tests start as a child process is the bundle (cli-entry.ts), so it
// must be what the sources say. When a file under src/ (or the build's own inputs) is newer than the
// bundle, `npm run build` runs first; when that build fails, the children run the sources through tsx
// (CATALOG_IO_TEST_CLI=src) and the run says so. CI builds in `npm ci`, so it finds the bundle fresh.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE } from './cli-entry.js';

const ROOT = join(import.meta.dirname, '..', '..');
const INPUTS = ['src', 'scripts', 'schemas', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

export default function setup(): void {
  if (process.env.CATALOG_IO_TEST_CLI === 'src') return;
  const built = existsSync(BUNDLE) ? statSync(BUNDLE).mtimeMs : 0;
  const sources = Math.max(
    ...INPUTS.map((p) => join(ROOT, p))
      .filter(existsSync)
      .map(newest),
  );
  if (sources <= built) return;
  process.stdout.write('The CLI bundle is older than the sources: npm run build\n');
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? String(err);
    process.stdout.write(`npm run build failed; the CLI runs from the sources (tsx):\n${why}\n`);
    process.env.CATALOG_IO_TEST_CLI = 'src';
  }
}
