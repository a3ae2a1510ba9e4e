// Vitest global setup: every test run gets its own temporary root (TMPDIR, inherited by the test
// workers and the child processes they start), removed when the run ends, so no test leaves files
// behind in the machine's temp folder even when it forgets to clean up or fails half-way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'catalog-io-test-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
