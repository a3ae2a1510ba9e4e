// `catalog-io --version` prints the package's version and exits 0, without a command or a tenant, wherever
// it stands among the flags (after a command, beside --json): main.ts answers it before yargs parses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli-process.js';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
  version: string;
};

describe('--version', () => {
  it('prints the version from package.json on stdout', async () => {
    const run = await runCliProcess(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(run.stderr).toBe('');
  }, 60_000);

  it('anywhere among the flags: after a command, beside --json or other flags, with --help', async () => {
    for (const args of [
      ['import', '--version'],
      ['--json', '--version'],
      ['import', 'feed.csv', '--json', '--mode', 'update', '--version'],
      ['export', '--version', '--out', 'x.xlsx'],
      ['--help', '--version'],
    ]) {
      const run = await runCliProcess(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout.trim(), args.join(' ')).toBe(pkg.version);
      expect(run.stderr, args.join(' ')).toBe('');
    }
  }, 60_000);
});
