// `catalog-io import` with category paths and images that cannot be registered, end to end through
// main([...]) against a sandbox in synthetic remote-assets mode: --plan prints the categories it would
// create; a dead image URL leaves the row created with a warning (exit 0) unless --on-asset-error fail.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty', processingMs: 5, remoteAssets: 'synthetic' });
// The run folders and the asset cache go to `.catalog-io/` of the working folder: a temporary one.
const dir = mkdtempSync(join(tmpdir(), 'import-paths-assets-'));
const home = process.cwd();
beforeAll(() => process.chdir(dir));
afterAll(() => {
  process.chdir(home);
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]) {
  const out = memoryOutput();
  const code = await main([...args, ...sandboxFlags(fixture.sb, { rateLimit: 'off' })], out);
  return { code, stdout: out.stdout, stderr: out.stderr.join('\n') };
}

describe('catalog-io import: category paths and asset warnings', () => {
  it('--plan prints the categories it would create; the import creates them', async () => {
    writeFileSync('garden.csv', 'SKU,Name,Categories\nG-1,Spade,Garden > Tools\nG-2,Seeds,Garden\n');
    writeFileSync(
      'garden.profile.json',
      JSON.stringify({
        entity: 'products',
        columns: {
          SKU: 'prod_ref',
          Name: 'prod_title',
          Categories: { field: 'cat_refs', categoryPath: true },
        },
      }),
    );
    const plan = await run(['import', 'garden.csv', '--profile', 'garden.profile.json', '--plan']);
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain(
      'categories that would be created for their paths: 2 (Garden; Garden > Tools)',
    );
    const done = await run(['import', 'garden.csv', '--profile', 'garden.profile.json', '--json']);
    expect(done.code).toBe(0);
    const summary = JSON.parse(done.stdout[0]!);
    expect(summary.categoriesCreated).toEqual({ count: 2, paths: ['Garden', 'Garden > Tools'] });
    expect(summary.outcomes.created).toBe(2);
  });

  it('a dead image URL: created with a warning and exit 0; --on-asset-error fail: failed and exit 1', async () => {
    writeFileSync('dead.csv', 'prod_ref,prod_title,prod_images\nD-1,Dead,https://dead.example.com/x.jpg\n');
    const warned = await run(['import', 'dead.csv', '--report', 'dead.report.csv']);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('created 1');
    expect(warned.stderr).toContain('1 rows written without an image or file that could not be registered');

    writeFileSync(
      'strict.csv',
      'prod_ref,prod_title,prod_images\nD-2,Strict,https://dead.example.com/y.jpg\n',
    );
    const strict = await run(['import', 'strict.csv', '--on-asset-error', 'fail']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('failed 1');
  });
});
