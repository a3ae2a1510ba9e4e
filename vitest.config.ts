import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/sequencer.js';

// Two projects, both run by `npm test` (and so by CI): `slow` holds the suites that wait on real time
// or real processes (crashes and signals on child processes, Redis, SFTP, outages and fault storms,
// the memory bounds), `fast` everything else. `npm test -- --project fast` runs the quick part.
const SLOW = [
  'test/redis/**/*.test.ts',
  'test/jobs/**/*.test.ts',
  'test/readers/remote.sftp.test.ts',
  'test/cli/import.remote-notify.test.ts',
  'test/cli/json-endings.test.ts',
  'test/notify/notify.test.ts',
  'test/console/console.browser.test.ts',
  'test/console/serve.test.ts',
  'test/console/check.test.ts',
  'test/api/cli.hang.test.ts',
  'test/api/outage.test.ts',
  'test/api/timeouts.test.ts',
  'test/cli/progress.eta.test.ts',
  'test/cli/progress.outage.test.ts',
  'test/cli/pace.notice.test.ts',
  'test/readers/hostile.cli.test.ts',
  'test/readers/thread.test.ts',
  'test/runner/copy.test.ts',
  'test/runner/export.memory.test.ts',
  'test/runner/import.faults*.test.ts',
  'test/runner/import.interrupt.test.ts',
  'test/runner/import.lock.test.ts',
  'test/runner/import.outage*.test.ts',
  'test/runner/import.resume*.test.ts',
  'test/runner/import.state-crash.test.ts',
  'test/runs/known-state.memory.test.ts',
  'test/runs/registry.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/temp-root.ts', 'test/helpers/fresh-build.ts'],
    setupFiles: ['test/helpers/work-folder.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The slow files mostly wait (on retries, timers, child processes), so more files than cores run
    // at once; one number for both projects, which share the pool. `--maxWorkers N` overrides it.
    maxWorkers: 5,
    // The slow project's files first, longest first, so none starts last and runs alone.
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', './test/helpers/skipped-reporter.ts'],
    // The fast files share their worker's loaded modules (isolate: false): loading them again for
    // each file took more CPU than the tests themselves. The slow ones keep a fresh process each.
    projects: [
      { extends: true, test: { name: 'slow', include: SLOW } },
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW, isolate: false },
      },
    ],
  },
});
