// A reference with spaces at its ends. Records made in the tenant outside this tool (`"WS-TRAIL "`) come
// back from an untouched export, XLSX or CSV, with every row unchanged and nothing written: validate,
// `import --plan` and the import find each record by its ref as written (its own, its variant's product,
// its category's parent, its categories). A supplier's padded cells (`" SUP-1 "`) still find the trimmed
// records, with a warning in all three reports; the spelling as written rides in the lookups the import
// makes anyway.
import { readdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { type TrialStep, trialSteps, tryFeed } from '../helpers/feed-trial.js';
import { call, sandboxFlags, useSandbox } from '../helpers/sandbox.js';
import { byRef, importWith, readAll, readCsv, resetStats, stats, writesOf } from './import.support.js';

const fixture = useSandbox();
let dir: string;

async function post(path: string, body: Record<string, unknown>): Promise<number> {
  const { sb } = fixture;
  const res = await call(sb.catalogUrl, path, { method: 'POST', key: sb.apiKey, body });
  expect(res.status, res.text).toBe(201);
  const id = res.headers.get('location')?.match(/\((\d+)\)/)?.[1];
  expect(id, res.headers.get('location') ?? '').toBeDefined();
  return Number(id);
}

/** How many records each collection holds (a duplicate made by a re-import shows here). */
async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const path of ['/Products', '/Variants', '/Categories'])
    out[path] = (await readAll(fixture.sb, path)).length;
  return out;
}

async function cli(args: string[]): Promise<{ code: number; stderr: string[] }> {
  const out = memoryOutput();
  const code = await main([...args, ...sandboxFlags(fixture.sb, { rateLimit: 'off' })], out);
  return { code, stderr: out.stderr };
}

let padded: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ref-spelling-'));
  // Made through the API, as another tool or a person would: refs with spaces at either end.
  padded = await post('/Categories', { cat_ref: 'WS-CAT ', cat_title: { en: 'Padded' } });
  await post('/Categories', { cat_ref: 'WS-SUB', cat_title: { en: 'Below' }, cat_parent_id: padded });
  const trailing = await post('/Products', {
    prod_ref: 'WS-TRAIL ',
    prod_title: { en: 'Trailing space' },
    cat_ids: [padded],
  });
  await post('/Products', { prod_ref: ' WS-LEAD', prod_title: { en: 'Leading space' } });
  await post('/Variants', { frmt_ref: 'WS-VAR ', prod_id: trailing, frmt_price: 5 });
  // Trimmed records a supplier's padded cells name.
  const supplierCat = await post('/Categories', { cat_ref: 'SUP-CAT', cat_title: { en: 'Supplier' } });
  const sup = await post('/Products', {
    prod_ref: 'SUP-1',
    prod_title: { en: 'One' },
    cat_ids: [supplierCat],
  });
  await post('/Variants', { frmt_ref: 'SUP-1-A', prod_id: sup, frmt_price: 7 });
});

/** Every line of the three reports: the verdict, and no warning. */
function expectUntouched(steps: Record<string, TrialStep>, verdicts: Record<string, string>): void {
  for (const [name, step] of Object.entries(steps)) {
    expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(0);
    expect(step.lines.length, name).toBeGreaterThan(0);
    for (const line of step.lines) {
      expect(line.outcome, `${name} ${line.sheet ?? ''} ${line.location} ${line.ref}: ${line.message}`).toBe(
        verdicts[name],
      );
      expect(line.warnings ?? '', `${name} ${line.location}`).toBe('');
    }
    // The report names the records as the tenant spells them.
    const refs = step.lines.map((l) => l.ref);
    for (const ref of ['WS-TRAIL ', ' WS-LEAD', 'WS-VAR ', 'WS-CAT ']) expect(refs, name).toContain(ref);
  }
}

describe('a ref with spaces at its ends, made outside this tool', () => {
  it('an untouched XLSX export re-imports unchanged: validate, plan and import, nothing written', async () => {
    const file = join(dir, 'catalog.xlsx');
    const exported = await cli(['export', 'categories', 'products', 'variants', '--out', file]);
    expect(exported.code, exported.stderr.join('\n')).toBe(0);
    const before = await counts();
    await resetStats(fixture.sb);
    const trial = await tryFeed(fixture.sb, file, { dir, name: 'ws-xlsx', profile: false });
    expectUntouched(trialSteps(trial), { validate: 'valid', plan: 'unchanged', imported: 'unchanged' });
    expect(writesOf(await stats(fixture.sb))).toBe(0);
    expect(await counts()).toEqual(before);
  });

  it('an untouched CSV export re-imports unchanged, entity by entity', async () => {
    const folder = join(dir, 'csv');
    const exported = await cli([
      'export',
      'categories',
      'products',
      'variants',
      '--out',
      folder,
      '--format',
      'csv',
    ]);
    expect(exported.code, exported.stderr.join('\n')).toBe(0);
    const before = await counts();
    await resetStats(fixture.sb);
    const lines: Record<string, TrialStep> = {};
    for (const entity of ['categories', 'products', 'variants']) {
      const file = readdirSync(folder).find((f) => f.startsWith(entity))!;
      const trial = await tryFeed(fixture.sb, join(folder, file), {
        dir,
        name: `ws-${entity}`,
        profile: false,
        feed: ['--entity', entity],
      });
      for (const [name, step] of Object.entries(trialSteps(trial))) {
        const all = lines[name] ?? { code: 0, lines: [], stderr: [] };
        lines[name] = all;
        all.code ||= step.code;
        all.lines.push(...step.lines);
        all.stderr.push(...step.stderr);
      }
    }
    expectUntouched(lines, { validate: 'valid', plan: 'unchanged', imported: 'unchanged' });
    expect(writesOf(await stats(fixture.sb))).toBe(0);
    expect(await counts()).toEqual(before);
  });
});

describe('a command judges the record the spelling names', () => {
  it('UPDATE finds the record as written; NEW of it is refused, in validate, the plan and the import', async () => {
    const feed = join(dir, 'commands.csv');
    await writeFile(feed, '_command,prod_ref,prod_title\nUPDATE, WS-LEAD,Leading space\nNEW,WS-TRAIL ,New\n');
    await resetStats(fixture.sb);
    const trial = await tryFeed(fixture.sb, feed, {
      dir,
      name: 'commands',
      profile: false,
      feed: ['--entity', 'products'],
    });
    const trailing = (await byRef(fixture.sb, '/Products', 'prod_ref')).get('WS-TRAIL ')!.prod_id;
    const refused = `prod_ref 'WS-TRAIL ' already exists (id ${trailing}); the row asks for a new record`;
    const verdicts = {
      validate: ['valid', 'invalid'],
      plan: ['unchanged', 'failed'],
      imported: ['unchanged', 'failed'],
    };
    for (const [name, step] of Object.entries(trialSteps(trial))) {
      const [update, create] = verdicts[name as keyof typeof verdicts];
      expect(
        step.lines.map((l) => [l.ref, l.outcome, l.warnings ?? '']),
        name,
      ).toEqual([
        [' WS-LEAD', update, ''],
        ['WS-TRAIL ', create, ''],
      ]);
      expect(step.lines[1]!.message, name).toContain(refused);
    }
    expect(writesOf(await stats(fixture.sb))).toBe(0);
  });
});

describe("a supplier's padded cells", () => {
  it('still find the trimmed records, with a warning in validate, the plan and the import', async () => {
    const feed = join(dir, 'supplier.csv');
    await writeFile(
      feed,
      'prod_ref,prod_title,cat_refs,frmt_ref,frmt_price\n SUP-1 ,One, SUP-CAT ,SUP-1-A  ,7\n',
    );
    // One row per variant: the row's product and its variant, linked by the product's ref.
    const profile = join(dir, 'supplier.profile.json');
    await writeFile(profile, JSON.stringify({ entity: 'products', variants: true }));
    const before = await counts();
    await resetStats(fixture.sb);
    const trial = await tryFeed(fixture.sb, feed, { dir, name: 'supplier', profile });
    const said = [
      'column "prod_ref": the reference " SUP-1 " is read trimmed, as "SUP-1": the tenant has no products record " SUP-1 " as written',
      'column "cat_refs": the reference " SUP-CAT " is read trimmed, as "SUP-CAT": the tenant has no categories record " SUP-CAT " as written',
      'column "frmt_ref": the reference "SUP-1-A  " is read trimmed, as "SUP-1-A": the tenant has no variants record "SUP-1-A  " as written',
    ];
    const verdicts = { validate: 'valid', plan: 'unchanged', imported: 'unchanged' };
    for (const [name, step] of Object.entries(trialSteps(trial))) {
      expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(0);
      expect(
        step.lines.map((l) => [l.ref, l.outcome]),
        name,
      ).toEqual([['SUP-1-A', verdicts[name as keyof typeof verdicts]]]);
      // Each said once, though the row's product and its variant both name the product.
      expect(step.lines[0]!.warnings?.split('; ').sort(), name).toEqual([...said].sort());
    }
    expect(writesOf(await stats(fixture.sb))).toBe(0);
    expect(await counts()).toEqual(before);
  });

  it('the spelling as written rides in the lookups the import makes anyway', async () => {
    const { sb } = fixture;
    const before = (await counts())['/Products']!;
    const rows = Array.from({ length: 150 }, (_, i) => `RQ-${String(i).padStart(3, '0')},Title ${i}`);
    const plain = join(dir, 'requests-plain.csv');
    await writeFile(plain, `prod_ref,prod_title\n${rows.join('\n')}\n`);
    expect((await importWith(sb, plain)).outcomes.created).toBe(150);
    // The same feed again, then with one ref of its second batch padded (51 refs: still one lookup).
    const spaced = join(dir, 'requests-padded.csv');
    rows[120] = ` ${rows[120]}`;
    await writeFile(spaced, `prod_ref,prod_title\n${rows.join('\n')}\n`);
    const requests = async (file: string) => {
      await resetStats(sb);
      const summary = await importWith(sb, file, { reportFile: `${file}.report.csv` });
      expect(summary.outcomes.unchanged, file).toBe(150);
      return (await stats(sb)).total;
    };
    const unpadded = await requests(plain);
    expect(await requests(spaced)).toBe(unpadded);
    const lines = await readCsv(`${spaced}.report.csv`);
    expect(lines[120]!.warnings).toBe(
      'column "prod_ref": the reference " RQ-120" is read trimmed, as "RQ-120": the tenant has no products record " RQ-120" as written',
    );
    expect(lines.filter((l) => l.warnings).length).toBe(1);
    expect((await byRef(sb, '/Products', 'prod_ref')).size).toBe(before + 150);
  });
});
