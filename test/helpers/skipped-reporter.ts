// A vitest reporter that repeats, after the run's summary, every test file that skipped its tests
// because something it needs is missing here (redis-server, chromium): the helpers that decide it
// print a `*** SKIPPED: ... ***` line, which would otherwise scroll away mid-log. Listed after the
// default reporter in vitest.config.ts, so its lines are the run's last.
import type { UserConsoleLog } from 'vitest';
import type { Reporter } from 'vitest/node';

const MARK = /\*\*\* SKIPPED: (.*?) \*\*\*/s;

export default class SkippedReporter implements Reporter {
  private readonly reasons = new Set<string>();

  onUserConsoleLog(log: UserConsoleLog): void {
    const found = MARK.exec(log.content);
    if (found) this.reasons.add(found[1]!.trim());
  }

  onTestRunEnd(): void {
    if (this.reasons.size === 0) return;
    const lines = ['', `${this.reasons.size} test file(s) skipped here, for what this machine lacks:`];
    for (const reason of [...this.reasons].sort()) lines.push(`  SKIPPED: ${reason}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
