// The order the test files start in: the slow project's first, longest first (by the last run's
// durations that vitest caches; on a fresh checkout, as CI has, by the measured list below), then the
// fast project's as vitest orders them (longest first by the cached durations; on a fresh checkout,
// the measured list of the longest first). With a few workers sharing two cores, a long file that starts
// last is what makes the whole run long.
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/** The longest slow files as measured, longest first: the order when no earlier run is cached. */
const LONGEST = [
  'test/jobs/jobs.test.ts',
  'test/runner/import.outage.test.ts',
  'test/redis/faults.test.ts',
  'test/redis/import.shared.test.ts',
  'test/runner/export.memory.test.ts',
  'test/cli/pace.notice.test.ts',
  'test/jobs/worker-wait.test.ts',
  'test/runner/import.resume-checks.test.ts',
  'test/runner/import.faults-rows.test.ts',
  'test/redis/limiter.test.ts',
  'test/runner/import.faults-uncertain.test.ts',
  'test/runner/copy.test.ts',
  'test/runner/import.resume.test.ts',
  'test/api/cli.hang.test.ts',
  'test/runner/import.faults.test.ts',
  'test/api/outage.test.ts',
  'test/cli/progress.eta.test.ts',
];

/**
 * The longest fast files as measured, longest first (CPU-bound, or waiting on their own child
 * processes and sandboxes): with no earlier run cached, vitest starts the fast files largest first,
 * which left import.full-sync-stop (some 12 s, mostly waiting) to start among the last and run alone.
 */
const FAST_LONGEST = [
  'test/runner/validate.parts.test.ts',
  'test/runner/realworld.agreement.test.ts',
  'test/runner/output-full.test.ts',
  'test/cli/errors.ux.test.ts',
  'test/runner/check.quick.test.ts',
  'test/runner/import.full-sync-variants.test.ts',
  'test/readers/bounds.cli.test.ts',
  'test/runner/import.full-sync-stop.test.ts',
  'test/runner/validate.parts-auto.test.ts',
  'test/runner/import.stop-early.test.ts',
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const slow = sorted.filter((spec) => spec.project.name === 'slow');
    const rest = sorted.filter((spec) => spec.project.name !== 'slow');
    const rank = (spec: TestSpecification) => {
      const i = LONGEST.findIndex((path) => spec.moduleId.endsWith(path));
      return i === -1 ? LONGEST.length : i;
    };
    const cached = (spec: TestSpecification) =>
      this.ctx.cache.getFileTestResults(
        `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`,
      )?.duration;
    // Array.sort is stable: files neither measured nor listed keep vitest's order.
    slow.sort((a, b) => {
      const da = cached(a);
      const db = cached(b);
      if (da !== undefined && db !== undefined) return db - da;
      return rank(a) - rank(b);
    });
    // Cached durations already ordered the fast files (vitest: longest first); with none, the list.
    if (!rest.some((spec) => cached(spec) !== undefined)) {
      const fastRank = (spec: TestSpecification) => {
        const i = FAST_LONGEST.findIndex((path) => spec.moduleId.endsWith(path));
        return i === -1 ? FAST_LONGEST.length : i;
      };
      rest.sort((a, b) => fastRank(a) - fastRank(b));
    }
    return [...slow, ...rest];
  }
}

function relative(root: string, path: string): string {
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}
