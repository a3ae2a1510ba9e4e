// Vitest global setup: every test run gets its own temporary root (TMPDIR, inherited by the test
// workers and the child processes they start), removed when the run ends, so no test leaves files
// behind in the machine's temp folder even when it forgets to clean up or fails half-way. The user's
// state folder (XDG_STATE_HOME: the machine's run locks) is moved there too, and the run fails when a
// test wrote into the working folder's `.catalog-io/` (work-folder.ts gives each test file its own).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WORKING_STATE = join(import.meta.dirname, '..', '..', '.catalog-io');

/** Every path under the working folder's `.catalog-io/`, to tell what a test run added. */
function listing(): Set<string> {
  if (!existsSync(WORKING_STATE)) return new Set();
  return new Set(readdirSync(WORKING_STATE, { recursive: true }).map(String));
}

export default function setup(): () => void {
  // Vitest runs a global setup for each project too: one root for the whole run, not one inside
  // another (a deep path breaks what keeps a socket in TMPDIR: chromium's, for one).
  if (process.env.CATALOG_IO_TEST_ROOT) return () => {};
  const root = mkdtempSync(join(tmpdir(), 'catalog-io-test-'));
  const saved = {
    TMPDIR: process.env.TMPDIR,
    XDG_STATE_HOME: process.env.XDG_STATE_HOME,
    CATALOG_IO_TEST_ROOT: process.env.CATALOG_IO_TEST_ROOT,
  };
  process.env.CATALOG_IO_TEST_ROOT = root;
  process.env.TMPDIR = root;
  process.env.XDG_STATE_HOME = join(root, 'state');
  mkdirSync(process.env.XDG_STATE_HOME);
  const before = listing();
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(root, { recursive: true, force: true });
    const added = [...listing()].filter((p) => !before.has(p));
    if (added.length > 0) {
      throw new Error(
        `Tests wrote into the working folder's .catalog-io/ (${added.slice(0, 5).join(', ')}${added.length > 5 ? ', ...' : ''}): a test must run the CLI in a temporary folder`,
      );
    }
  };
}
