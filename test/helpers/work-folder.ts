// Vitest setup file (runs in each test process before its file): the test file runs in a working
// folder of its own, in the run's temporary root, so a command that keeps state in `./.catalog-io/`
// (runs, import state, the embedded sandbox) never writes into the project's. The project's folders
// are linked into it, so the relative paths tests use (`samples/...`, `src/cli/run.ts`) still resolve.
// The user's state folder (XDG_STATE_HOME: the machine's run locks) is the file's own too: files run
// side by side, and one file's imports must not meet another's locks.
import { mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PROJECT = join(import.meta.dirname, '..', '..');

const work = mkdtempSync(join(tmpdir(), 'work-'));
for (const name of readdirSync(PROJECT)) {
  if (name === '.catalog-io' || name === '.git') continue;
  symlinkSync(join(PROJECT, name), join(work, name));
}
process.env.XDG_STATE_HOME = mkdtempSync(join(tmpdir(), 'state-'));
process.chdir(work);
