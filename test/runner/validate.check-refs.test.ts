// `validate --check-refs`: references must name a record of
// the file or of the tenant, asked 100 refs per request; rows keep their order in the report.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-refs-'));
});

async function validate(file: string, ...extra: string[]) {
  const report = join(dir, `${file}.report.csv`);
  const out = memoryOutput();
  const code = await main(
    [
      'validate',
      join(dir, file),
      '--report',
      report,
      '--check-refs',
      ...extra,
      '--catalog-url',
      fixture.sb.catalogUrl,
      '--api-key',
      fixture.sb.apiKey,
      '--rate-limit',
      'off',
    ],
    out,
  );
  const lines = Papa.parse<Record<string, string>>((await readFile(report, 'utf8')).replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
  return { code, lines };
}

async function getRequests(): Promise<number> {
  const stats = (await call(fixture.sb.origin, '/_sandbox/stats')).body as {
    byMethod: Record<string, number>;
  };
  return stats.byMethod.GET ?? 0;
}

describe('validate --check-refs', () => {
  it('a parent in the tenant or in the file passes; one in neither is an invalid row', async () => {
    await writeFile(
      join(dir, 'categories.csv'),
      [
        'cat_ref,cat_title,cat_parent_ref',
        'C-1,One,CAT-SHIRTS',
        'C-2,Two,C-1',
        'C-3,Three,NOPE',
        'C-4,Four,C-5',
        'C-5,Five,',
      ].join('\n'),
    );
    const { code, lines } = await validate('categories.csv', '--entity', 'categories');
    expect(code).toBe(1);
    expect(lines.map((l) => [l.location, l.ref, l.outcome])).toEqual([
      ['line 2', 'C-1', 'valid'],
      ['line 3', 'C-2', 'valid'],
      ['line 4', 'C-3', 'invalid'],
      ['line 5', 'C-4', 'valid'],
      ['line 6', 'C-5', 'valid'],
    ]);
    expect(lines[2]).toMatchObject({
      column: 'cat_parent_ref',
      value: 'NOPE',
      message: 'column "cat_parent_ref": categories "NOPE" is neither in the file nor in the tenant',
    });
    // Without the check, the same file passes.
    const off = await validate('categories.csv', '--entity', 'categories', '--no-check-refs');
    expect(off.code).toBe(0);
  });

  it('asks the tenant 100 refs per request: 150 variants of 150 unknown products cost 2 GET', async () => {
    const rows = ['frmt_ref,prod_ref,frmt_price', 'VR-0,LINEN-SHIRT,10'];
    for (let i = 1; i <= 150; i++) rows.push(`VR-${i},GHOST-${i},10`);
    await writeFile(join(dir, 'variants.csv'), rows.join('\n'));
    const before = await getRequests();
    const { code, lines } = await validate('variants.csv', '--entity', 'variants');
    const gets = (await getRequests()) - before;
    expect(code).toBe(1);
    expect(lines).toHaveLength(151);
    expect(lines[0]).toMatchObject({ ref: 'VR-0', outcome: 'valid' });
    expect(lines.slice(1).every((l) => l.outcome === 'invalid')).toBe(true);
    expect(lines[1]!.message).toBe(
      'column "prod_ref": products "GHOST-1" is neither in the file nor in the tenant',
    );
    // Beyond what reading the schemas costs, the 151 refs take 2 requests (100, then 51).
    const start = await getRequests();
    await validate('variants.csv', '--entity', 'variants', '--no-check-refs');
    const schemaGets = (await getRequests()) - start;
    expect(gets - schemaGets).toBe(2);
  });

  it('categories named by paths resolve: the import finds or creates them', async () => {
    await writeFile(
      join(dir, 'paths.csv'),
      ['SKU,Name,Categories', 'PP-1,Coat,New Arrivals > Coats', 'PP-2,Hat,CAT-NOPE'].join('\n'),
    );
    const profile = join(dir, 'paths.profile.json');
    await writeFile(
      profile,
      JSON.stringify({
        entity: 'products',
        columns: {
          SKU: 'prod_ref',
          Name: 'prod_title',
          Categories: { field: 'cat_refs', categoryPath: true },
        },
      }),
    );
    const { lines } = await validate('paths.csv', '--profile', profile);
    expect(lines.map((l) => l.outcome)).toEqual(['valid', 'valid']);
  });
});
