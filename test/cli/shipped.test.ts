// The CLI as shipped: `bin/catalog-io.js` runs the bundle of scripts/bundle.mjs (dist/bin/), not the
// TypeScript sources the other tests run. It must find the package's files (package.json, the profile
// schema, the samples), load the commands it bundles on use, and judge rows exactly as the sources do.
import { isAscii } from 'node:buffer';
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'catalog-io.js');
const fixture = useSandbox();

function shipped(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // In the test's own working folder (work-folder.ts): a run keeps its folder in ./.catalog-io/.
    execFile(process.execPath, [BIN, ...args], { cwd: process.cwd() }, (error, stdout, stderr) => {
      const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

async function fromSources(args: string[]): Promise<{ code: number; stdout: string }> {
  const out = memoryOutput();
  const code = await main(args, out);
  return { code, stdout: out.stdout.join('\n') };
}

/** The summary a `--json` run prints last, without what differs from run to run. */
function summaryOf(stdout: string): Record<string, unknown> {
  const summary = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  for (const key of ['durationMs', 'startedAt', 'finishedAt', 'runId', 'requests', 'runDir'])
    delete summary[key];
  return summary;
}

beforeAll(() => {
  // CI builds on `npm ci`; a checkout that never built gets its build here.
  if (!existsSync(join(ROOT, 'dist', 'bin', 'run.js')))
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
}, 300_000);

describe('the shipped CLI (bundle)', () => {
  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const run = await shipped(['--version']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  it('validates a sample with a sample profile as the sources do', async () => {
    const args = [
      'validate',
      join(ROOT, 'samples', 'variants-per-row.csv'),
      '--profile',
      join(ROOT, 'samples', 'profiles', 'variants-per-row.json'),
      '--json',
      ...sandboxFlags(fixture.sb),
    ];
    const bundled = await shipped(args);
    const sources = await fromSources(args);
    expect(bundled.code).toBe(sources.code);
    expect(summaryOf(bundled.stdout)).toEqual(summaryOf(sources.stdout));
    expect(summaryOf(bundled.stdout)).toMatchObject({ rows: expect.any(Number) });
  }, 60_000);

  it('plans an import (a command loaded on use, with the HTTP client) as the sources do', async () => {
    const args = [
      'import',
      join(ROOT, 'samples', 'products.csv'),
      '--plan',
      '--json',
      ...sandboxFlags(fixture.sb),
    ];
    const bundled = await shipped(args);
    const sources = await fromSources(args);
    expect(bundled.code).toBe(sources.code);
    const planned = summaryOf(bundled.stdout);
    expect(planned).toEqual(summaryOf(sources.stdout));
    expect(JSON.stringify(planned)).not.toContain(fixture.sb.apiKey);
  }, 60_000);

  it('the profile validator compiled by the build judges profiles as the schema compiled at run time', () => {
    const text = readFileSync(join(ROOT, 'schemas', 'profile.schema.json'), 'utf8');
    type Validator = ((data: unknown) => boolean) & { errors?: unknown; schemaText?: string };
    const built = createRequire(import.meta.url)(join(ROOT, 'dist', 'profile-validator.cjs')) as Validator;
    expect(built.schemaText).toBe(text);
    const compiled = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(text));
    const dir = join(ROOT, 'samples', 'profiles');
    const profiles: unknown[] = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
    profiles.push(
      { entity: 7 },
      { entity: 'products', columns: { Price: { typ: 'number' } } },
      { entity: 'products', columns: { Price: { field: 'p', decimal: 'x' } }, extra: true },
      {},
    );
    for (const profile of profiles) {
      expect(built(profile)).toBe(compiled(profile));
      expect(built.errors ?? null).toEqual(compiled.errors ?? null);
    }
  });

  it('refuses a bad flag with the same message and exit code', async () => {
    const bundled = await shipped(['validate', 'x.csv', '--bogus']);
    expect(bundled.code).toBe(2);
    expect(bundled.stderr).toContain('Unknown argument: bogus');
  });

  describe('the code cache the build made for the bundle', () => {
    const LAUNCH = join(ROOT, 'dist', 'cli', 'launch.js');
    /** Runs the bundle at `bundle` through the launcher with `args`; says how its cache was used. */
    function launched(bundle: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
      const code = `import { launch } from ${JSON.stringify(LAUNCH)}; process.stderr.write('cache ' + launch(${JSON.stringify(bundle)}));`;
      return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        // `-e` takes no script path: the CLI reads its arguments from the third on.
        execFile(
          process.execPath,
          ['--input-type=module', '-e', code, 'catalog-io', ...args],
          { env },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
    }
    const pkg = () =>
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

    it('is used by the shipped CLI, which runs as it does without it', async () => {
      const bundle = join(ROOT, 'dist', 'bin', 'cli.cjs');
      expect(existsSync(`${bundle}.cache`)).toBe(true);
      // The launcher reads an ASCII bundle without decoding UTF-8: the build escapes every other character.
      expect(isAscii(readFileSync(bundle))).toBe(true);
      const cached = await launched(bundle, ['--version']);
      expect(cached).toEqual({ code: 0, stdout: `${pkg()}\n`, stderr: 'cache used' });
      const off = await launched(bundle, ['--version'], { ...process.env, CATALOG_IO_CODE_CACHE: 'off' });
      expect(off).toEqual({ code: 0, stdout: `${pkg()}\n`, stderr: 'cache off' });
    });

    describe('a cache that does not fit the bundle', () => {
      // A copy of the bundle two folders deep in the package, as the shipped one (it finds package.json
      // and node_modules the same way).
      let dir = '';
      let bundle = '';
      beforeAll(() => {
        dir = mkdtempSync(join(ROOT, 'dist', 'cache-test-'));
        bundle = join(dir, 'cli.cjs');
        copyFileSync(join(ROOT, 'dist', 'bin', 'cli.cjs'), bundle);
      });
      afterAll(() => rmSync(dir, { recursive: true, force: true }));

      it('made for another build: not used, and the CLI runs', async () => {
        const shipped = readFileSync(join(ROOT, 'dist', 'bin', 'cli.cjs.cache'));
        const other = Buffer.from(shipped);
        other.write('0'.repeat(32), 0);
        writeFileSync(`${bundle}.cache`, other);
        expect(await launched(bundle, ['--version'])).toEqual({
          code: 0,
          stdout: `${pkg()}\n`,
          stderr: 'cache absent',
        });
      });

      it('made for this build but damaged: V8 refuses it, and the CLI runs', async () => {
        const id = readFileSync(bundle, 'utf8').split('\n')[0]!.replace('// build ', '');
        writeFileSync(`${bundle}.cache`, Buffer.concat([Buffer.from(`${id}\n`), Buffer.alloc(4096, 7)]));
        expect(await launched(bundle, ['--version'])).toEqual({
          code: 0,
          stdout: `${pkg()}\n`,
          stderr: 'cache rejected',
        });
      });

      it('missing: the CLI runs and judges rows as with it', async () => {
        rmSync(`${bundle}.cache`, { force: true });
        const args = ['validate', join(ROOT, 'samples', 'variants-per-row.csv'), '--profile'];
        args.push(
          join(ROOT, 'samples', 'profiles', 'variants-per-row.json'),
          '--json',
          ...sandboxFlags(fixture.sb),
        );
        const without = await launched(bundle, args);
        const withCache = await launched(join(ROOT, 'dist', 'bin', 'cli.cjs'), args);
        expect(without.stderr).toBe('cache absent');
        expect(withCache.stderr).toBe('cache used');
        expect(without.code).toBe(withCache.code);
        expect(summaryOf(without.stdout)).toEqual(summaryOf(withCache.stdout));
      }, 60_000);
    });
  });
});
