// `catalog-io --version` prints the package's version and exits 0, without a command or a tenant.
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
});
