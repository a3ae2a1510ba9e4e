// `catalog-io copy` keeps values exactly as the source tenant holds them: a reference and a text with
// spaces at their ends (made in the source outside this tool) arrive in the target spelled the same, and
// the records that name them (a variant's product, a product's category, a category's parent) are linked
// to them. The import's default trim would read them trimmed: the copy would then not be a copy. A text
// the target holds trimmed is written with the source's spaces (an import takes that difference for a
// file's rendering; a copy's values come from the API). A second copy finds everything unchanged.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { copySideFlags, useCliFolder } from '../helpers/cli-main.js';
import { call, type SandboxFixture, useSandbox, useTargetSandbox } from '../helpers/sandbox.js';

const source = useSandbox({ seed: 'empty' });
const target = useTargetSandbox(source);
useCliFolder('copy-edge-spaces');

interface CopyJson {
  steps: Array<{ step: string; rows: number; outcomes: Record<string, number> }>;
  exitCode: number;
}

async function copy(): Promise<CopyJson> {
  const out = memoryOutput();
  const code = await main(
    ['copy', ...copySideFlags('from', source.sb), ...copySideFlags('to', target.sb), '--json'],
    out,
  );
  expect(code, out.stderr.join('\n')).toBe(0);
  return JSON.parse(out.stdout[0]!) as CopyJson;
}

async function post(
  path: string,
  body: Record<string, unknown>,
  { sb }: SandboxFixture = source,
): Promise<number> {
  const res = await call(sb.catalogUrl, path, { method: 'POST', key: sb.apiKey, body });
  expect(res.status, res.text).toBe(201);
  return Number(res.headers.get('location')?.match(/\((\d+)\)/)?.[1]);
}

async function all(fixture: SandboxFixture, path: string): Promise<Array<Record<string, unknown>>> {
  const res = await call(fixture.sb.catalogUrl, `${path}?$top=100`, {
    key: fixture.sb.apiKey,
    headers: { 'accept-language': 'en' },
  });
  expect(res.status, res.text).toBe(200);
  return (res.body as { value: Array<Record<string, unknown>> }).value;
}

describe('copy of values with spaces at their ends', () => {
  it('writes refs and texts in the target exactly as the source holds them, links included', async () => {
    // Made through the source's API, as another tool or a person would.
    const parent = await post('/Categories', { cat_ref: ' CAT-EDGE ', cat_title: { en: ' Edge ' } });
    const child = await post('/Categories', {
      cat_ref: 'CAT-SUB ',
      cat_title: { en: 'Below' },
      cat_parent_id: parent,
    });
    const product = await post('/Products', {
      prod_ref: ' EDGE-1 ',
      prod_title: { en: '  Spaced title  ' },
      cat_ids: [child],
    });
    await post('/Variants', { frmt_ref: 'VAR-EDGE ', prod_id: product, frmt_price: 5 });
    // A record both tenants have, the target's text trimmed.
    await post('/Products', { prod_ref: 'BOTH-1', prod_title: { en: 'Trimmed ' } });
    await post('/Products', { prod_ref: 'BOTH-1', prod_title: { en: 'Trimmed' } }, target);

    const first = await copy();
    expect(first.exitCode).toBe(0);

    // Read back from the target's own API.
    const categories = await all(target, '/Categories');
    const byCatRef = new Map(categories.map((c) => [c.cat_ref, c]));
    expect([...byCatRef.keys()].sort()).toEqual([' CAT-EDGE ', 'CAT-SUB ']);
    expect(byCatRef.get(' CAT-EDGE ')!.cat_title).toBe(' Edge ');
    expect(byCatRef.get('CAT-SUB ')!.cat_parent_id).toBe(byCatRef.get(' CAT-EDGE ')!.cat_id);

    const products = new Map((await all(target, '/Products')).map((p) => [p.prod_ref, p]));
    expect([...products.keys()].sort()).toEqual([' EDGE-1 ', 'BOTH-1']);
    const edge = products.get(' EDGE-1 ')!;
    expect(edge.prod_title).toBe('  Spaced title  ');
    expect(edge.cat_ids).toEqual([byCatRef.get('CAT-SUB ')!.cat_id]);
    expect(products.get('BOTH-1')!.prod_title).toBe('Trimmed ');

    const variants = await all(target, '/Variants');
    expect(variants.map((v) => v.frmt_ref)).toEqual(['VAR-EDGE ']);
    expect(variants[0]!.prod_id).toBe(edge.prod_id);

    // A copy again: every record found as it is, nothing written.
    const again = await copy();
    for (const step of again.steps.filter((s) => ['categories', 'products', 'variants'].includes(s.step)))
      expect(step.outcomes, step.step).toEqual(step.rows > 0 ? { unchanged: step.rows } : {});
  }, 120_000);
});
