// `catalog-io validate` end to end: main([...]) against a real sandbox over loopback.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let dir: string;

const connection = () => [...sandboxFlags(fixture.sb)];

async function stats(): Promise<number> {
  const res = await fetch(`${fixture.sb.origin}/_sandbox/stats`);
  return ((await res.json()) as { total: number }).total;
}

async function run(args: string[]) {
  const out = memoryOutput();
  const code = await main(args, out);
  const all = [...out.stdout, ...out.stderr].join('\n');
  expect(all).not.toContain(fixture.sb.apiKey);
  return { code, out };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-cli-'));
  await writeFile(
    join(dir, 'good.csv'),
    'prod_ref,prod_title,prod_title_fr,prod_weight,prod_tags\nCLI-1,Shirt,Chemise,"0,5",a|b\nCLI-2,Pants,Pantalon,.7,\n',
  );
  await writeFile(
    join(dir, 'bad.csv'),
    '_command,prod_ref,prod_title,prod_weight,prod_season\n,CLI-1,Shirt,12;5O,summer\n,CLI-2,Pants,1,monsoon\nmerge,CLI-3,Hat,2,winter\nIGNORE,CLI-4,,x,\n',
  );
  await writeFile(join(dir, 'variants.csv'), 'Product,SKU,Price\nCLI-1,CLI-1-S,9.90\nCLI-1,CLI-1-M,abc\n');
  await writeFile(
    join(dir, 'variants.json'),
    JSON.stringify({
      entity: 'variants',
      columns: { Product: 'prod_ref', SKU: 'frmt_ref', Price: 'frmt_price' },
    }),
  );
});

describe('catalog-io validate', () => {
  it('exits 0 when every row is valid, and reads only $metadata', async () => {
    const before = await stats();
    const { code, out } = await run(['validate', join(dir, 'good.csv'), ...connection()]);
    expect(code).toBe(0);
    expect(out.stderr.join('\n')).toContain('2 rows: 2 valid, 0 invalid, 0 skipped');
    const res = await fetch(`${fixture.sb.origin}/_sandbox/stats`);
    const after = (await res.json()) as { total: number; byMethod: Record<string, number> };
    expect(after.total).toBeGreaterThan(before);
    expect(Object.keys(after.byMethod)).toEqual(['GET']);
  });

  it('costs /$metadata and one request per 100 refs the file does not define; --no-check-refs: /$metadata alone', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => `REQ-${i},Shirt ${i},${i % 7},cat-${i % 3}`);
    await writeFile(join(dir, 'many.csv'), ['prod_ref,prod_title,prod_weight,cat_refs', ...rows].join('\n'));
    const cost = async (args: string[]) => {
      const before = await stats();
      const { code } = await run([...args, ...connection()]);
      return { code, requests: (await stats()) - before };
    };
    const pull = await cost(['schema', 'pull', '--out', join(dir, 'pulled')]);
    const few = await cost(['validate', join(dir, 'good.csv')]);
    const many = await cost(['validate', join(dir, 'many.csv'), '--no-check-refs']);
    // The 300 rows name 3 categories the tenant does not have: asked in one request, and every row is
    // invalid, as the import would fail it.
    const checked = await cost(['validate', join(dir, 'many.csv')]);
    expect([pull.code, few.code, many.code, checked.code]).toEqual([0, 0, 0, 1]);
    // `schema pull` reads every `$metadata` document; validate of products only `/$metadata` (it
    // holds the standard resources under `$defs`), not the attribute sets' nor the custom entities'.
    expect(pull.requests).toBeGreaterThan(1);
    expect(few.requests).toBe(1);
    expect(many.requests).toBe(1);
    expect(checked.requests).toBe(1 + 1);
  });

  it('exits 1 with some invalid rows; --json prints the summary object', async () => {
    const report = join(dir, 'report.csv');
    const rejects = join(dir, 'rejects.csv');
    const { code, out } = await run([
      'validate',
      join(dir, 'bad.csv'),
      '--json',
      '--report',
      report,
      '--rejects',
      rejects,
      ...connection(),
    ]);
    expect(code).toBe(1);
    expect(out.stdout).toHaveLength(1);
    const summary = JSON.parse(out.stdout[0]!);
    expect(summary).toMatchObject({ rows: 4, outcomes: { valid: 1, invalid: 2, skipped: 1 } });
    expect(summary.topErrors).toEqual([
      { message: 'column "prod_weight": must be a number', count: 1, first: 'line 2' },
      {
        message:
          'column "prod_season": must be one of "spring", "summer", "autumn", "winter" (found "monsoon")',
        count: 1,
        first: 'line 3',
      },
    ]);
    const lines = Papa.parse<Record<string, string>>(await readFile(report, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    expect(lines.map((l) => [l.location, l.outcome])).toEqual([
      ['line 2', 'invalid'],
      ['line 3', 'invalid'],
      ['line 4', 'valid'],
      ['line 5', 'skipped'],
    ]);
    expect(lines[0]).toMatchObject({
      entity: 'products',
      ref: 'CLI-1',
      field: 'prod_weight',
      column: 'prod_weight',
      value: '12;5O',
    });
    const rejected = Papa.parse<Record<string, string>>(await readFile(rejects, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    });
    expect(rejected.meta.fields).toEqual([
      '_command',
      'prod_ref',
      'prod_title',
      'prod_weight',
      'prod_season',
      '_error',
      '_source',
    ]);
    expect(rejected.data.map((r) => r.prod_ref)).toEqual(['CLI-1', 'CLI-2']);
  });

  it('uses a profile and prints the most frequent problems on stderr', async () => {
    const { code, out } = await run([
      'validate',
      join(dir, 'variants.csv'),
      '--profile',
      join(dir, 'variants.json'),
      '--no-check-refs',
      ...connection(),
    ]);
    expect(code).toBe(1);
    const text = out.stderr.join('\n');
    expect(text).toContain('2 rows: 1 valid, 1 invalid, 0 skipped');
    expect(text).toMatch(/most frequent problems:\n\s+1 {2}column "Price": must be a number/);
  });

  it('validates offline with --schemas: no request reaches the tenant', async () => {
    const schemas = join(dir, 'schemas');
    expect((await run(['schema', 'pull', '--out', schemas, ...connection()])).code).toBe(0);
    const before = await stats();
    const { code } = await run([
      'validate',
      join(dir, 'good.csv'),
      '--schemas',
      schemas,
      '--catalog-url',
      fixture.sb.catalogUrl,
    ]);
    expect(code).toBe(0);
    expect(await stats()).toBe(before);
  });

  it('exits 2 on a fatal problem: missing file, bad profile, unknown entity', async () => {
    const missing = await run(['validate', join(dir, 'nope.csv'), ...connection()]);
    expect(missing.code).toBe(2);
    expect(missing.out.stderr.join('\n')).toMatch(/\[SOURCE_NOT_FOUND\]/);
    await writeFile(
      join(dir, 'bad-profile.json'),
      JSON.stringify({ entity: 'products', columns: { A: { field: 'prod_ref', split: 3 } } }),
    );
    const badProfile = await run([
      'validate',
      join(dir, 'good.csv'),
      '--profile',
      join(dir, 'bad-profile.json'),
      ...connection(),
    ]);
    expect(badProfile.code).toBe(2);
    expect(badProfile.out.stderr).toEqual([
      expect.stringMatching(/Profile is not valid: \$\.columns\.A\.split .*\[PROFILE_INVALID\]$/),
    ]);
    const entity = await run(['validate', join(dir, 'good.csv'), '--entity', 'custom:Nope', ...connection()]);
    expect(entity.code).toBe(2);
    expect(entity.out.stderr.join('\n')).toMatch(/\[SCHEMA_UNKNOWN_ENTITY\]/);
  });

  it('--strict makes unknown columns row errors; without it they are one warning', async () => {
    await writeFile(join(dir, 'extra.csv'), 'prod_ref,colour\nCLI-9,red\n');
    const lenient = await run(['validate', join(dir, 'extra.csv'), ...connection()]);
    expect(lenient.code).toBe(0);
    expect(lenient.out.stderr.join('\n')).toContain(
      'warning: column "colour" does not match a field of products: ignored',
    );
    const strict = await run(['validate', join(dir, 'extra.csv'), '--strict', ...connection()]);
    expect(strict.code).toBe(1);
  });
  it('quotes the value outside a list or a pattern, and says which line used a repeated ref first', async () => {
    const source = join(dir, 'messages.csv');
    await writeFile(
      source,
      'prod_ref,prod_title,prod_season\nM-1,Shirt,monsoon\nM-2,Hat,summer\nM-2,Cap,winter\n',
    );
    const variants = join(dir, 'messages-variants.csv');
    await writeFile(variants, 'prod_ref,frmt_ref,frmt_ean\nM-1,MV-1,12345\n');
    const report = join(dir, 'messages.csv.report.csv');
    const { code, out } = await run(['validate', source, '--report', report, ...connection()]);
    expect(code).toBe(1);
    const messages = Papa.parse<Record<string, string>>(await readFile(report, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data.map((l) => l.message);
    expect(messages).toEqual([
      'column "prod_season": must be one of "spring", "summer", "autumn", "winter" (found "monsoon")',
      '',
      'column "prod_ref": duplicate reference: "M-2" was first used on line 3',
    ]);
    // The summary's lines: the value found, the line that used the ref first, the first row of each kind.
    expect(out.stderr).toContain(
      '      1  column "prod_season": must be one of "spring", "summer", "autumn", "winter" (found "monsoon") (first such row: line 2)',
    );
    expect(out.stderr).toContain(
      '      1  column "prod_ref": duplicate reference: first used on line 3 (first such row: line 4)',
    );
    const pattern = await run([
      'validate',
      variants,
      '--entity',
      'variants',
      '--no-check-refs',
      ...connection(),
    ]);
    expect(pattern.code).toBe(1);
    expect(pattern.out.stderr).toContain(
      '      1  column "frmt_ean": must match the pattern ^[0-9]{13}$ (found "12345") (first such row: line 2)',
    );
  });

  it('reads a named pipe (a `<(curl …)` source) once: no header read before the run, which would leave it empty', async () => {
    const pipe = join(dir, 'piped');
    execFileSync('mkfifo', [pipe]);
    // Another process writes it, as a shell's process substitution does: opening a pipe waits for both ends.
    const writer = spawn('sh', [
      '-c',
      `printf 'prod_ref,prod_title\\nPIPE-1,Shirt\\nPIPE-2,Pants\\n' > "$1"`,
      'sh',
      pipe,
    ]);
    const written = new Promise((resolve) => writer.once('exit', resolve));
    const { code, out } = await run(['validate', pipe, ...connection()]);
    await written;
    expect(code).toBe(0);
    expect(out.stderr.join('\n')).toContain('2 rows: 2 valid, 0 invalid, 0 skipped');
  });
});

describe('catalog-io profile init', () => {
  it('writes a draft profile that validate can use, and lists the columns it could not place', async () => {
    await writeFile(
      join(dir, 'supplier.csv'),
      'SKU,Name,Name (FR),Weight,Colour code\nSUP-1,Lamp,Lampe,"1,5",RAL9010\n',
    );
    const profile = join(dir, 'supplier.json');
    const init = await run([
      'profile',
      'init',
      join(dir, 'supplier.csv'),
      '--entity',
      'products',
      '--out',
      profile,
      ...connection(),
    ]);
    expect(init.code).toBe(0);
    expect(init.out.stderr.join('\n')).toContain('4 of 5 columns placed');
    expect(init.out.stderr.join('\n')).toContain(
      'not placed (written as null, ignored until you map them): "Colour code"',
    );
    const written = JSON.parse(await readFile(profile, 'utf8'));
    expect(written).toMatchObject({
      entity: 'products',
      columns: {
        SKU: 'prod_ref',
        Name: 'prod_title',
        'Name (FR)': { field: 'prod_title', culture: 'fr' },
        // The values show a decimal comma.
        Weight: { field: 'prod_weight', decimal: ',' },
        'Colour code': null,
      },
    });
    expect(written.$schema).toMatch(/schemas\/profile\.schema\.json$/);
    const { code, out } = await run([
      'validate',
      join(dir, 'supplier.csv'),
      '--profile',
      profile,
      '--json',
      ...connection(),
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(out.stdout[0]!)).toMatchObject({ rows: 1, outcomes: { valid: 1 }, warnings: [] });
  });
});
