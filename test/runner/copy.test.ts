// `catalog-io copy` between two sandboxes: the demo tenant into an empty one gives the same attribute
// sets, layouts, categories, products, variants, custom entities and assets (field by field, ids mapped
// by ref); a second copy writes nothing; `--since` after 5 edits writes exactly 5 records; a copy killed
// with SIGKILL, or stopped by SIGINT, in the middle and resumed ends with the same tenant; a second copy
// between the same tenants, or a `--resume`, while one runs is refused (exit 75) and touches nothing.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { startCli } from '../helpers/cli-child.js';
import { copySideFlags, useCliFolder } from '../helpers/cli-main.js';
import { call, type SandboxFixture, useSandbox, useTargetSandbox } from '../helpers/sandbox.js';

const demo = useSandbox({ seed: 'demo' });
const target = useTargetSandbox(demo);
// Slow enough (one request in flight, 40 ms each: the 20 products take over 0.8 s) for a kill to land
// in the middle of the records.
const slow = useTargetSandbox(demo, { latencyMs: 40 });
// The same pace, for a copy stopped by Ctrl-C.
const stopped = useTargetSandbox(demo, { latencyMs: 40 });
// Slower still, for a second copy tried while the first runs.
const busy = useTargetSandbox(demo, { latencyMs: 60 });
const dir = useCliFolder('copy');

const side = copySideFlags;

async function copy(to: SandboxFixture, extra: string[] = []) {
  const out = memoryOutput();
  const code = await main(['copy', ...side('from', demo.sb), ...side('to', to.sb), '--json', ...extra], out);
  expect(code, out.stderr.join('\n') + out.stdout.join('\n')).toBe(0);
  return JSON.parse(out.stdout[0]!) as {
    copyId: string;
    steps: Array<{ step: string; rows: number; outcomes: Record<string, number>; report?: string }>;
    exitCode: number;
  };
}

async function writes(fixture: SandboxFixture): Promise<number> {
  const byMethod = (
    (await call(fixture.sb.origin, '/_sandbox/stats')).body as { byMethod: Record<string, number> }
  ).byMethod;
  return (byMethod.POST ?? 0) + (byMethod.PATCH ?? 0) + (byMethod.DELETE ?? 0) + (byMethod.PUT ?? 0);
}

async function get(fixture: SandboxFixture, base: 'catalogUrl' | 'damUrl', path: string): Promise<unknown> {
  const res = await call(fixture.sb[base], path, { key: fixture.sb.apiKey });
  return res.status === 404 ? 404 : res.body;
}

/** Every page of a catalog collection. */
async function all(
  fixture: SandboxFixture,
  path: string,
  culture?: string,
): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let url: string | undefined = `${fixture.sb.catalogUrl}${path}`;
  while (url) {
    const res = await call(url, '', {
      key: fixture.sb.apiKey,
      ...(culture && { headers: { 'accept-language': culture } }),
    });
    const body = res.body as { value: Array<Record<string, unknown>>; '@nextLink'?: string };
    out.push(...body.value);
    url = body['@nextLink'];
  }
  return out;
}

const SERVER_OWNED =
  /^(prod_id|frmt_id|cat_id|ce_id|typ_id|cat_ids|prod_id|cat_parent_id)$|_(created|modified)_at$/;

/**
 * A tenant as plain data keyed by refs and names, without what each tenant assigns itself (ids,
 * timestamps): links appear as the refs (or set names) they point at, in every language.
 */
async function tenant(fixture: SandboxFixture): Promise<Record<string, unknown>> {
  const sets = (
    (await get(fixture, 'catalogUrl', '/v2/AttributeSets')) as { value: Array<Record<string, unknown>> }
  ).value;
  const setName = new Map(sets.map((s) => [s.identifier, s.name]));
  const defaultSet = sets.find((s) => s.isDefault)!.name;
  const out: Record<string, unknown> = {
    sets: Object.fromEntries(sets.map(({ identifier: _id, ...rest }) => [rest.name, rest])),
    categoryLayout: await get(fixture, 'catalogUrl', '/Categories/layout'),
    storeLayout: await get(fixture, 'catalogUrl', "/CustomEntities('Store%20Locations')/layout"),
    supplierLayout: await get(fixture, 'catalogUrl', "/CustomEntities('Suppliers')/layout"),
  };
  const categories = await all(fixture, '/Categories');
  const catRef = new Map(categories.map((c) => [c.cat_id, c.cat_ref]));
  const products = await all(fixture, '/Products');
  const prodRef = new Map(products.map((p) => [p.prod_id, p.prod_ref]));
  const collections: Array<[string, string, string]> = [
    ['categories', '/Categories', 'cat_ref'],
    ['products', '/Products', 'prod_ref'],
    ['variants', '/Variants', 'frmt_ref'],
    ['stores', "/CustomEntities('Store%20Locations')", 'ce_ref'],
    ['suppliers', "/CustomEntities('Suppliers')", 'ce_ref'],
  ];
  for (const [name, path, ref] of collections) {
    for (const culture of ['en', 'fr', 'es']) {
      for (const record of await all(fixture, path, culture)) {
        const kept: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(record)) if (!SERVER_OWNED.test(k)) kept[k] = v;
        if ('cat_ids' in record)
          kept.cat_refs = (record.cat_ids as number[]).map((id) => catRef.get(id)).sort();
        if ('cat_parent_id' in record) kept.parent = catRef.get(record.cat_parent_id) ?? null;
        if (name === 'variants') kept.product = prodRef.get(record.prod_id) ?? null;
        if ('typ_id' in record) kept.set = record.typ_id === null ? defaultSet : setName.get(record.typ_id);
        out[`${name}/${String(record[ref])}/${culture}`] = kept;
      }
    }
  }
  for (const kind of ['images', 'files']) {
    const assets = (
      (await get(fixture, 'damUrl', `/${kind}?$top=100`)) as { value: Array<Record<string, unknown>> }
    ).value;
    for (const a of assets) {
      out[`${kind}/${String(a.reference)}`] = {
        fileType: a.fileType,
        tags: a.tags,
        ...(kind === 'images' && { width: a.width, height: a.height, status: a.status }),
      };
    }
  }
  return out;
}

/** Waits until the live copy `child` has written `count` products into `fixture` (60 s at most). */
async function untilProducts(
  fixture: SandboxFixture,
  count: number,
  child: { stderr(): string },
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const products = (await get(fixture, 'catalogUrl', '/Products?$top=0')) as { '@count': number };
    if (products['@count'] >= count) return;
    if (Date.now() > deadline) throw new Error(`no product written in 60 s: ${child.stderr()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Images registered by the copy are processed in the background: wait until none is. */
async function processed(fixture: SandboxFixture): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await get(fixture, 'damUrl', "/images?$filter=status eq 'Up'&$top=1");
    if ((res as { '@count': number })['@count'] === 0) return;
    if (Date.now() > deadline) throw new Error('images still processing after 30 s');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('catalog-io copy', () => {
  it('plans, then copies the demo tenant into an empty one; a second copy writes nothing', async () => {
    const before = await writes(target);
    const planned = await copy(target, ['--plan']);
    expect(await writes(target)).toBe(before);
    const plannedSteps = Object.fromEntries(planned.steps.map((s) => [s.step, s.outcomes]));
    expect(plannedSteps.products).toMatchObject({ 'would-create': 20 });
    expect(plannedSteps.variants).toMatchObject({ 'would-create': 49 });
    expect(plannedSteps.assets?.['would-create']).toBeGreaterThan(20);

    const first = await copy(target);
    const steps = Object.fromEntries(first.steps.map((s) => [s.step, s]));
    expect(first.steps.map((s) => s.step)).toEqual([
      'structure',
      'assets',
      'categories',
      'products',
      'variants',
      'custom:Store Locations',
      'custom:Suppliers',
    ]);
    expect(steps.categories!.outcomes).toEqual({ created: 14 });
    expect(steps.products!.outcomes).toEqual({ created: 20 });
    expect(steps.variants!.outcomes).toEqual({ created: 49 });
    expect(steps.structure!.outcomes.created).toBe(3);
    // Each step's run counts its own requests, not the whole copy's: the products run sent 20 POSTs.
    const runsDir = join(dir, '.catalog-io', 'runs');
    const created = readdirSync(runsDir)
      .map((id) => JSON.parse(readFileSync(join(runsDir, id, 'summary.json'), 'utf8')))
      .find((s) => s.entity === 'products' && s.outcomes?.created === 20);
    expect(created.requests.byMethod.POST).toBe(20);
    // A report per entity, one line per record.
    const report = readFileSync(steps.products!.report!, 'utf8').trim().split('\n');
    expect(report).toHaveLength(21);
    // A finished copy keeps its reports, not its copy of the source's records.
    const kept = readdirSync(join(dir, '.catalog-io', 'copies', first.copyId)).sort();
    expect(kept).toContain('products.report.csv');
    expect(kept.filter((f) => f.endsWith('.ndjson'))).toEqual([]);

    await processed(target);
    const source = await tenant(demo);
    expect(Object.keys(source).length).toBeGreaterThan(200);
    expect(await tenant(target)).toEqual(source);

    const again = await writes(target);
    const second = await copy(target);
    expect(await writes(target)).toBe(again);
    for (const step of second.steps) {
      for (const outcome of Object.keys(step.outcomes)) expect(outcome).toBe('unchanged');
    }

    // An image whose tags changed on the source: its tags are brought over, the rest is unchanged.
    const images = (await get(demo, 'damUrl', '/images?$top=1')) as { value: Array<{ reference: string }> };
    const name = images.value[0]!.reference;
    const edited = await call(demo.sb.damUrl, `/images(${name})`, {
      method: 'PATCH',
      key: demo.sb.apiKey,
      body: { tags: ['demo', 'edited'] },
    });
    expect(edited.status, edited.text).toBeLessThan(300);
    const third = await copy(target);
    const assets = third.steps.find((s) => s.step === 'assets')!;
    expect(assets.outcomes.updated).toBe(1);
    const copied = (await get(target, 'damUrl', `/images(${name})`)) as { value: { tags: string[] } };
    expect([...copied.value.tags].sort()).toEqual(['demo', 'edited']);
  }, 120_000);

  it('--since after 5 edits writes exactly 5 records', async () => {
    const edits: Array<[string, Record<string, unknown>]> = [];
    const first = (await all(demo, '/Products?$top=2&$orderby=prod_id')).slice(0, 2);
    for (const p of first) edits.push([`/Products(${p.prod_id})`, { prod_brand: `Edited ${p.prod_ref}` }]);
    const variant = (await all(demo, '/Variants?$top=1'))[0]!;
    edits.push([`/Variants(${variant.frmt_id})`, { frmt_price: 123.45 }]);
    const category = (await all(demo, '/Categories?$top=1'))[0]!;
    edits.push([`/Categories(${category.cat_id})`, { cat_title: { fr: 'Titre modifié' } }]);
    const store = (await all(demo, "/CustomEntities('Store%20Locations')?$top=1"))[0]!;
    edits.push([`/CustomEntities('Store%20Locations')/item(${store.ce_id})`, { ce_city: 'Edited city' }]);
    for (const [path, body] of edits) {
      const res = await call(demo.sb.catalogUrl, path, { method: 'PATCH', key: demo.sb.apiKey, body });
      expect(res.status, res.text).toBe(204);
    }
    const before = await writes(target);
    const result = await copy(target, ['--since']);
    expect(await writes(target)).toBe(before + 5);
    const updated = result.steps.reduce((n, s) => n + (s.outcomes.updated ?? 0), 0);
    expect(updated).toBe(5);
    // Only what the changelogs name since the last copy is read and compared: the edited records, and
    // at most the one changed last before that copy (its mark is 1 ms before the newest entry).
    const steps = Object.fromEntries(result.steps.map((s) => [s.step, s]));
    expect(steps.assets!.rows).toBe(0);
    for (const [entity, edited] of [
      ['categories', 1],
      ['products', 2],
      ['variants', 1],
      ['custom:Store Locations', 1],
    ] as const) {
      expect(steps[entity]!.outcomes.updated).toBe(edited);
      expect(steps[entity]!.rows).toBeLessThanOrEqual(edited + 1);
    }
    expect(await tenant(target)).toEqual(await tenant(demo));
  }, 120_000);

  it('a copy killed with SIGKILL in the middle ends, with --resume, with the same tenant', async () => {
    const child = startCli(
      ['copy', ...side('from', demo.sb), ...side('to', slow.sb), '--to-concurrency', '1'],
      { cwd: dir },
    );
    // Killed once some products are in (the categories are, the products are being written).
    await untilProducts(slow, 3, child);
    child.child.kill('SIGKILL');
    const killed = await child.done;
    expect(killed.code).toBeNull();
    const products = (await get(slow, 'catalogUrl', '/Products?$top=0')) as { '@count': number };
    expect(products['@count']).toBeLessThan(20);

    const resumed = await copy(slow, ['--resume']);
    const steps = Object.fromEntries(resumed.steps.map((s) => [s.step, s]));
    expect(steps.structure).toMatchObject({ skipped: true });
    expect(steps.categories).toMatchObject({ skipped: true });
    // The products import resumed its run: every row reported once, none written twice.
    expect(steps.products!.rows).toBe(20);
    expect(readFileSync(steps.products!.report!, 'utf8').trim().split('\n')).toHaveLength(21);
    await processed(slow);
    expect(await tenant(slow)).toEqual(await tenant(demo));
  }, 120_000);

  it('a copy stopped by SIGINT in the middle ends within seconds, interrupted, and --resume finishes it', async () => {
    const child = startCli(
      ['copy', ...side('from', demo.sb), ...side('to', stopped.sb), '--to-concurrency', '1'],
      { cwd: dir },
    );
    await untilProducts(stopped, 3, child);
    const signalled = Date.now();
    child.child.kill('SIGINT');
    const ended = await child.done;
    expect(ended.code, ended.stderr).toBe(130);
    // Within 5 s (the writes in flight get 2 s), and 3 s more for a busy machine.
    expect(Date.now() - signalled).toBeLessThan(8_000);
    expect(ended.stderr).toMatch(
      /SIGINT: stopping; requests in flight get 2 s to finish \(copy --resume goes on\)/,
    );

    const resumed = await copy(stopped, ['--resume']);
    const steps = Object.fromEntries(resumed.steps.map((s) => [s.step, s]));
    expect(steps.categories).toMatchObject({ skipped: true });
    expect(steps.products!.rows).toBe(20);
    await processed(stopped);
    expect(await tenant(stopped)).toEqual(await tenant(demo));
  }, 120_000);

  it('takes each side from its own config file, counts each side apart, and refuses a missing side', async () => {
    const config = (name: string, sb: SandboxHandle) => {
      const file = join(dir, `${name}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          catalogUrl: sb.catalogUrl,
          damUrl: sb.damUrl,
          apiKey: sb.apiKey,
          rateLimit: '1000/10',
        }),
      );
      return file;
    };
    const out = memoryOutput();
    const code = await main(
      [
        'copy',
        '--from',
        config('staging', demo.sb),
        '--to',
        config('production', target.sb),
        '--plan',
        '--json',
      ],
      out,
    );
    expect(code, out.stderr.join('\n')).toBe(0);
    const result = JSON.parse(out.stdout[0]!) as {
      steps: Array<{ outcomes: Record<string, number> }>;
      requests: { from: { total: number; byMethod: Record<string, number> }; to: { total: number } };
    };
    // Everything is already there: the plan finds nothing to do.
    for (const step of result.steps) for (const o of Object.keys(step.outcomes)) expect(o).toBe('unchanged');
    expect(Object.keys(result.requests.from.byMethod)).toEqual(['GET']);
    expect(result.requests.from.total).toBeGreaterThan(10);
    expect(result.requests.to.total).toBeGreaterThan(10);
    expect(JSON.stringify(result)).not.toContain(demo.sb.apiKey);

    const missing = memoryOutput();
    expect(await main(['copy', '--from', join(dir, 'staging.json')], missing)).toBe(2);
    expect(missing.stderr.join('\n')).toContain('copy needs the target tenant: --to FILE');
    const same = memoryOutput();
    expect(
      await main(['copy', '--from', join(dir, 'staging.json'), '--to', join(dir, 'staging.json')], same),
    ).toBe(2);
    expect(same.stderr.join('\n')).toContain('--from and --to name the same tenant');
  });

  it('a second copy, or copy --resume, beside a live copy is refused with exit 75 and makes no folder', async () => {
    const child = startCli(
      ['copy', ...side('from', demo.sb), ...side('to', busy.sb), '--to-concurrency', '1'],
      { cwd: dir },
    );
    try {
      // The live copy is in its records (its lock taken long before).
      await untilProducts(busy, 1, child);
      const folders = readdirSync(join(dir, '.catalog-io', 'copies')).sort();
      for (const extra of [[], ['--resume']]) {
        const out = memoryOutput();
        const code = await main(
          ['copy', ...side('from', demo.sb), ...side('to', busy.sb), '--json', ...extra],
          out,
        );
        expect(code, out.stderr.join('\n')).toBe(75);
        const said = JSON.parse(out.stdout.at(-1)!) as { code: string; error: string };
        expect(said.code).toBe('LOCKED');
        expect(said.error).toMatch(
          new RegExp(
            `^Another copy from \\S+ to this tenant is running: run copy-${child.child.pid} \\(pid ${child.child.pid} on .+, started .+\\)\\. Try again when it ends$`,
          ),
        );
        expect(readdirSync(join(dir, '.catalog-io', 'copies')).sort()).toEqual(folders);
      }
    } finally {
      child.child.kill('SIGINT');
      await child.done;
    }
  }, 120_000);
});
