// What a test runs as `catalog-io` in a child process: the shipped bundle (`dist/bin/run.js`, what
// `bin/catalog-io.js` loads), which starts in a fraction of the time the sources take through tsx.
// test/helpers/fresh-build.ts rebuilds it before the run when a source is newer. With
// CATALOG_IO_TEST_CLI=src the children run the sources through tsx instead.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..', '..');
export const BUNDLE = join(ROOT, 'dist', 'bin', 'run.js');
const SOURCE = join(ROOT, 'src', 'cli', 'run.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** The node arguments that start the CLI (the command's own arguments follow). */
export function cliEntry(): string[] {
  return process.env.CATALOG_IO_TEST_CLI === 'src' ? ['--import', TSX, SOURCE] : [BUNDLE];
}
