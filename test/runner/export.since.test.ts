// Incremental export: `--since <ISO>` exports exactly the items changed after that moment (from the
// changelog), and `--since last` the items changed since the previous export of the same entity.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'catalog-io-export-since-'));
const home = process.cwd();
beforeAll(() => process.chdir(dir));
afterAll(() => {
  process.chdir(home);
  rmSync(dir, { recursive: true, force: true });
});

async function run(...args: string[]) {
  const { sb } = fixture;
  const out = memoryOutput();
  const code = await main(
    ['export', ...args, '--catalog-url', sb.catalogUrl, '--api-key', sb.apiKey, '--json'],
    out,
  );
  expect(out.stderr.filter((l) => l.includes('catalog-io:'))).toEqual([]);
  expect(code).toBe(0);
  return JSON.parse(out.stdout[0]!) as {
    entities: Array<{ entity: string; rows: number; since?: string; full?: boolean }>;
    notes: string[];
  };
}

function refsIn(file: string, column: string): string[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => String((JSON.parse(line) as Record<string, unknown>)[column]))
    .sort();
}

async function patch(path: string, body: Record<string, unknown>) {
  const { sb } = fixture;
  const res = await call(sb.catalogUrl, path, { method: 'PATCH', key: sb.apiKey, body });
  expect(res.status, res.text).toBe(204);
}

async function create(path: string, body: Record<string, unknown>) {
  const { sb } = fixture;
  const res = await call(sb.catalogUrl, path, { method: 'POST', key: sb.apiKey, body });
  expect(res.status, res.text).toBe(201);
}

async function modifiedAt(path: string, filter: string, field: string): Promise<string> {
  const { sb } = fixture;
  const res = await call(sb.catalogUrl, `${path}?$filter=${encodeURIComponent(filter)}`, { key: sb.apiKey });
  const value = (res.body as { value: Array<Record<string, string>> }).value[0]![field]!;
  expect(value).toMatch(/Z$/);
  return value;
}

describe('export --since', () => {
  it('exports exactly the items created or modified after the moment given', async () => {
    await create('/Products', { prod_ref: 'BEFORE-1', prod_title: 'made before' });
    // The moment in the service's clock (it need not agree with this machine's): the last change before it.
    const moment = await modifiedAt('/Products', `prod_ref eq 'BEFORE-1'`, 'prod_modified_at');
    await patch('/Products(2)', { prod_brand: 'Changed brand' });
    await patch('/Products(5)', { prod_title: 'Nouveau titre' }); // a French value only
    await create('/Products', { prod_ref: 'AFTER-1', prod_title: 'made after' });
    await patch('/Variants(3)', { frmt_stock: 99 });

    const file = join(dir, 'since.ndjson');
    const summary = await run('products', '--out', file, '--since', moment);
    expect(summary.entities).toEqual([{ entity: 'products', rows: 3, since: moment }]);
    const refs = refsIn(file, 'prod_ref');
    expect(refs).toHaveLength(3);
    expect(refs).toContain('AFTER-1');
    expect(refs).not.toContain('BEFORE-1');

    const variants = join(dir, 'since-variants.ndjson');
    await run('variants', '--out', variants, '--since', moment);
    expect(readFileSync(variants, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('--since last exports everything the first time, then only what changed since that export', async () => {
    const first = join(dir, 'first.ndjson');
    const summary = await run('categories', '--out', first, '--since', 'last');
    expect(summary.entities[0]).toMatchObject({ entity: 'categories', rows: 14, full: true });
    expect(summary.notes.join(' ')).toContain('no earlier export');
    const history = join(dir, '.catalog-io', 'exports');
    expect(existsSync(history)).toBe(true);

    await sleep(20);
    await patch('/Categories(3)', { cat_title: 'Shirts & blouses' });
    await create('/Categories', { cat_ref: 'CAT-NEW', cat_title: 'New', cat_parent_id: 1 });

    const second = join(dir, 'second.ndjson');
    const again = await run('categories', '--out', second, '--since', 'last');
    // `last` starts 1 ms before the newest change seen by the previous export, so a change in that same
    // millisecond is never missed: the item changed last before it may come again (at most that one).
    const refs = refsIn(second, 'cat_ref');
    expect(refs).toEqual(expect.arrayContaining(['CAT-NEW', 'CAT-SHIRTS']));
    expect(refs.length).toBeLessThanOrEqual(3);
    expect(again.entities[0]!.rows).toBe(refs.length);
    const newOne = readFileSync(second, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r.cat_ref === 'CAT-NEW')!;
    expect(newOne.cat_parent_ref).toBe('CAT-CLOTHING');

    // Nothing changed since: only the newest change of the previous export can come again.
    const third = join(dir, 'third.ndjson');
    const quiet = await run('categories', '--out', third, '--since', 'last');
    expect(quiet.entities[0]!.rows).toBe(1);
    expect(refsIn(third, 'cat_ref')).toEqual(['CAT-NEW']);
  });

  it('an export with --filter keeps its own mark: the full --since last still gets what it left out', async () => {
    const base = join(dir, 'base.ndjson');
    await run('categories', '--out', base, '--since', 'last');
    await sleep(20);
    await patch('/Categories(4)', { cat_title: 'Changed four' });
    await patch('/Categories(5)', { cat_title: 'Changed five' });

    const filter = 'cat_id eq 5';
    const filtered = await run(
      'categories',
      '--out',
      join(dir, 'filtered.ndjson'),
      '--since',
      'last',
      '--filter',
      filter,
    );
    // Its first run has no mark of its own: everything the filter takes.
    expect(filtered.notes.join(' ')).toContain(`categories --filter ${filter}: no earlier export`);
    expect(refsIn(join(dir, 'filtered.ndjson'), 'cat_id')).toEqual(['5']);

    const after = join(dir, 'after.ndjson');
    await run('categories', '--out', after, '--since', 'last');
    expect(refsIn(after, 'cat_id')).toEqual(expect.arrayContaining(['4', '5']));

    // The filtered export's own mark: its next run has only what changed since it.
    const again = await run(
      'categories',
      '--out',
      join(dir, 'filtered-2.ndjson'),
      '--since',
      'last',
      '--filter',
      filter,
    );
    expect(again.notes.join(' ')).not.toContain('no earlier export');
  });
});
