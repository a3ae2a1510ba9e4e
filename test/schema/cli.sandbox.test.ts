// `catalog-io schema pull` then `catalog-io schema show products`, through main() as a person runs them.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'catalog-io-cli-schema-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function connection(): string[] {
  const sb = fixture.sb;
  return ['--catalog-url', sb.catalogUrl, '--dam-url', sb.damUrl, '--api-key', sb.apiKey];
}

describe('catalog-io schema', () => {
  it('pull writes the cache; show reads it offline and prints a table', async () => {
    const cache = path.join(dir, 'cache');
    const pull = memoryOutput();
    expect(await main(['schema', 'pull', '--out', cache, ...connection()], pull)).toBe(0);
    expect(pull.stdout.join('\n')).toContain(`Written to ${cache}`);
    expect(pull.stdout.join('\n')).toContain('Languages: en, fr, es');
    expect(existsSync(path.join(cache, 'index.json'))).toBe(true);
    expect([...pull.stdout, ...pull.stderr].join('\n')).not.toContain(fixture.sb.apiKey);

    const show = memoryOutput();
    expect(await main(['schema', 'show', 'products', '--schemas', cache], show)).toBe(0);
    const lines = show.stdout;
    expect(lines[0]).toContain('products (/Products): id prod_id, ref prod_ref');
    const header = lines.find((l) => l.startsWith('field'))!;
    expect(header.split(/\s{2,}/)).toEqual([
      'field',
      'type',
      'languages',
      'writable',
      'asset',
      'multi',
      'references',
    ]);
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))!.split(/\s{2,}/);
    expect(row('prod_id')).toEqual(['prod_id', 'integer', '-', 'no (read-only)', '-', '-', '-']);
    expect(row('prod_ref')).toEqual([
      'prod_ref',
      'string max 64, required',
      '-',
      'on create only',
      '-',
      '-',
      '-',
    ]);
    expect(row('prod_title')).toEqual(['prod_title', 'string max 255', 'en,fr,es', 'yes', '-', '-', '-']);
    expect(row('prod_images')).toEqual(['prod_images', 'string', 'en,fr,es', 'yes', 'image', 'yes', '-']);
    expect(row('cat_ids')).toEqual(['cat_ids', 'integer', '-', 'yes', '-', 'yes', 'Categories']);
    // Offline: nothing was announced, no sandbox started.
    expect(show.stderr).toEqual([]);
    // A field's pattern is shown: rows are refused for it.
    const variants = memoryOutput();
    expect(await main(['schema', 'show', 'variants', '--schemas', cache], variants)).toBe(0);
    const ean = variants.stdout.find((l) => l.startsWith('frmt_ean '))!.split(/\s{2,}/);
    expect(ean[1]).toMatch(/^string.* matching \^\[0-9\]\{13\}\$/);
  });

  it('show without an entity lists the entities; a custom entity by its denominator', async () => {
    const list = memoryOutput();
    expect(await main(['schema', 'show', ...connection()], list)).toBe(0);
    expect(list.stdout.join('\n')).toContain("custom:Store Locations  /CustomEntities('Store Locations')");
    const custom = memoryOutput();
    expect(await main(['schema', 'show', 'Store Locations', ...connection()], custom)).toBe(0);
    expect(custom.stdout[0]).toContain(
      "Store Locations (/CustomEntities('Store Locations')): id ce_id, ref ce_ref",
    );
  });

  it('an unknown entity is a fatal, readable error (exit 2)', async () => {
    const out = memoryOutput();
    expect(await main(['schema', 'show', 'widgets', ...connection()], out)).toBe(2);
    expect(out.stderr.join('\n')).toMatch(/no entity "widgets".*\[SCHEMA_UNKNOWN_ENTITY\]/);
  });

  it('a missing cache folder is SCHEMA_UNAVAILABLE (exit 2)', async () => {
    const out = memoryOutput();
    expect(await main(['schema', 'show', 'products', '--schemas', path.join(dir, 'none')], out)).toBe(2);
    expect(out.stderr.join('\n')).toContain('[SCHEMA_UNAVAILABLE]');
  });
});
