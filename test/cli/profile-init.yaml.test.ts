// `profile init --out` writes the format its file name says: YAML for `.yaml` and `.yml`, JSON otherwise,
// and every command that takes `--profile` reads both. Run as shipped (the bundle, in a child process).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCliProcess } from '../helpers/cli-process.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';

const fixture = useSandbox({ remoteAssets: 'synthetic' });
const FEED = join(REALWORLD, 'woocommerce_sample_products.csv');
let dir: string;

const cli = (args: string[]) =>
  runCliProcess([...args, ...sandboxFlags(fixture.sb)], { cwd: dir, timeoutMs: 60_000 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'profile-yaml-'));
});

describe('profile init --out', () => {
  it('a .yaml or .yml file gets YAML that validate reads as it reads the JSON draft', async () => {
    const json = await cli(['profile', 'init', FEED, '--out', 'woo.json']);
    expect(json.code, json.stderr).toBe(0);
    const drafted = JSON.parse(await readFile(join(dir, 'woo.json'), 'utf8')) as Record<string, unknown>;
    const { $schema, ...profile } = drafted;
    expect($schema).toMatch(/schemas\/profile\.schema\.json$/);

    const validated = await cli(['validate', FEED, '--profile', 'woo.json', '--json', '--quiet']);
    for (const name of ['woo.yaml', 'woo.yml']) {
      const init = await cli(['profile', 'init', FEED, '--out', name]);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stderr).toContain(`profile written to ${name}`);
      const text = await readFile(join(dir, name), 'utf8');
      expect(() => JSON.parse(text), name).toThrow();
      // The schema is named where editors' YAML support looks for it, relative to the file.
      expect(text.split('\n')[0]).toBe(`# yaml-language-server: $schema=${String($schema)}`);
      expect(parse(text)).toEqual(profile);
      const fromYaml = await cli(['validate', FEED, '--profile', name, '--json', '--quiet']);
      expect(fromYaml.code, fromYaml.stderr).toBe(validated.code);
      const summary = (out: string) => {
        const { durationMs: _, ...rest } = JSON.parse(out) as Record<string, unknown>;
        return rest;
      };
      expect(summary(fromYaml.stdout)).toEqual(summary(validated.stdout));
    }
  });

  it('a YAML profile that does not parse is one error naming its line and column', async () => {
    await writeFile(
      join(dir, 'broken.yaml'),
      'entity: products\ncolumns:\n  SKU: prod_ref\n  SKU: frmt_ref\n',
    );
    const run = await cli(['validate', FEED, '--profile', 'broken.yaml']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'Profile is not valid YAML at line 4, column 3: Map keys must be unique (broken.yaml) [PROFILE_INVALID]',
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a YAML profile is held to the profile schema like a JSON one', async () => {
    await writeFile(
      join(dir, 'wrong.yml'),
      'entity: products\ncolumns:\n  Price:\n    field: frmt_price\n    decimal: ";"\n',
    );
    const run = await cli(['validate', FEED, '--profile', 'wrong.yml']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Profile is not valid: $.columns.Price.decimal must be one of ".", ","');
  });
});
