// `import --plan` carries what it would write to the rows after it, as the import finds what it wrote:
// a product drafted again later in the file (one row per variant, past the grouping window), with the
// same values or others, under each `_command`; and a workbook imported whole, whose later sheets name
// what its earlier sheets would create. Each plan is made on the tenant as it is, then the same import
// runs for real: both give the same row outcomes, the same changed fields and the same counts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { PlannedRecords } from '../../src/runner/import/planned.js';
import { importFile } from '../../src/runner/import/run.js';
import { AS_DONE, counts, importRun, type ReportLine } from '../helpers/plan-run.js';
import { copyDam, type SandboxFixture, sandboxFlags, useSandbox } from '../helpers/sandbox.js';
import { connectTo } from './import.support.js';

const demo = useSandbox({ seed: 'demo' });
const empty = useSandbox({ seed: 'empty' });
// The import keeps its run folders and known state under the working directory: a folder of its own.
const dir = mkdtempSync(join(tmpdir(), 'catalog-io-plan-carried-'));
const home = process.cwd();
beforeAll(() => process.chdir(dir));
afterAll(() => {
  process.chdir(home);
  rmSync(dir, { recursive: true, force: true });
});

/** A line as the import would write it: the plan's outcome in the import's word, changed fields by name. */
function asDone(line: ReportLine): string[] {
  const changed = line.changed
    .split('; ')
    .filter(Boolean)
    .map((c) => c.split(': ')[0]);
  return [
    line.sheet ?? '',
    line.location,
    line.ref,
    AS_DONE[line.outcome] ?? line.outcome,
    changed.join(';'),
  ];
}

/** Plans the feed, then imports it. */
async function planThenImport(fixture: SandboxFixture, args: string[]) {
  const plan = await importRun(fixture, dir, args, true);
  const real = await importRun(fixture, dir, args, false);
  return { plan, real };
}

/** The plan said what the import did: row by row (outcome, changed fields), in the counts, in the exit code. */
function expectSame({ plan, real }: Awaited<ReturnType<typeof planThenImport>>): void {
  expect(plan.lines.map(asDone)).toEqual(real.lines.map(asDone));
  expect(counts(plan.outcomes)).toEqual(counts(real.outcomes));
  expect(plan.code).toBe(real.code);
}

/**
 * One row per variant with a grouping window of one product: a product that comes back after another
 * is drafted again. Product-only rows (no SKU) carry the product's own outcome to the report.
 */
function repeatedProducts(p: string): string {
  return [
    'Handle,Title,Brand,SKU,_command',
    `${p}-1,Shirt,Atelier,${p}-1-S,`, // the product and its variant: created
    `${p}-2,Cap,Field,,`, // created
    `${p}-1,Shirt,Atelier,,`, // again, the same values: unchanged
    `${p}-2,Cap v2,Field,,`, // again, another title: updated
    `${p}-1,Shirt,Nord,,UPDATE`, // updated
    `${p}-2,Cap v2,Field,,NEW`, // failed: it exists
    `${p}-1,,,,DELETE`, // deleted
    `${p}-2,Cap v3,Field,${p}-2-M,`, // the variant created, its product updated
    // The values it had before it was deleted (the import's known state noted them): created again.
    `${p}-1,Shirt,Nord,,`,
    `${p}-2,,,,DELETE`, // deleted
    `${p}-1,Shirt,Nord,,NEW`, // failed: it exists again
    `${p}-2,Cap,Field,,UPDATE`, // failed: it is gone
    `${p}-1,Shirt,Nord,${p}-1-M,`, // the variant created, its product unchanged
  ].join('\n');
}

async function workbook(file: string, sheets: Array<{ name: string; rows: unknown[][] }>): Promise<void> {
  const book = new ExcelJS.Workbook();
  for (const { name, rows } of sheets) book.addWorksheet(name).addRows(rows);
  await book.xlsx.writeFile(file);
}

describe('--plan carries what it would write to the rows after it', () => {
  const outcomesBySize = new Map<string, string[]>();

  // The import starts a new batch at a ref its pending batch holds: the rows fit one batch of 100
  // drafts (split at each repeat), or go one draft per batch.
  it.each([
    ['100', 'RA'],
    ['1', 'RB'],
  ])(
    'a product drafted again, batches of %s: unchanged, updated, and each command as the import judges it',
    async (size, prefix) => {
      const profile = join(dir, 'repeated.json');
      writeFileSync(
        profile,
        JSON.stringify({
          entity: 'products',
          variants: true,
          groupWindow: 1,
          columns: { Handle: 'prod_ref', Title: 'prod_title', Brand: 'prod_brand', SKU: 'frmt_ref' },
        }),
      );
      const feed = join(dir, `repeated-${prefix}.csv`);
      writeFileSync(feed, repeatedProducts(prefix));
      const { plan, real } = await planThenImport(empty, [feed, '--profile', profile, '--batch-size', size]);
      outcomesBySize.set(
        size,
        real.lines.map((l) => l.outcome),
      );
      expectSame({ plan, real });
      const byLine = (line: number) => plan.lines.find((l) => l.location === `line ${line}`)!;
      expect(byLine(4).outcome).toBe('unchanged');
      expect([byLine(5).outcome, byLine(5).changed]).toEqual([
        'would-update',
        'prod_title_en: "Cap" -> "Cap v2"',
      ]);
      expect([byLine(6).outcome, byLine(6).changed]).toEqual([
        'would-update',
        'prod_brand: "Atelier" -> "Nord"',
      ]);
      expect(byLine(10).outcome).toBe('would-create');
      expect(new Set(real.lines.map((l) => l.outcome))).toEqual(
        new Set(['created', 'unchanged', 'updated', 'failed', 'deleted']),
      );
    },
  );

  it('the import itself does the same whatever the batch size', () => {
    expect(outcomesBySize.size).toBe(2);
    expect(outcomesBySize.get('100')).toEqual(outcomesBySize.get('1'));
  });

  it('a workbook: the demo tenant exported whole, each sheet twice, planned into an empty tenant, then imported', async () => {
    const exported = join(dir, 'demo.xlsx');
    const out = memoryOutput();
    expect(
      await main(['export', '--out', exported, ...sandboxFlags(demo.sb, { rateLimit: 'off' })], out),
    ).toBe(0);
    // A copy of each entity's sheet after the others (placed by its header): every record a second time,
    // with every kind of field the demo has (languages, images, files, dates, lists, links).
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(exported);
    for (const name of ['categories', 'products', 'variants', 'custom Store Locations']) {
      const copy = book.addWorksheet(`${name} again`);
      book.getWorksheet(name)!.eachRow((row) => copy.addRow((row.values as unknown[]).slice(1)));
    }
    const twice = join(dir, 'demo-twice.xlsx');
    await book.xlsx.writeFile(twice);
    await copyDam(demo.sb, empty.sb);
    // The empty tenant has only its default attribute set: the demo's set ids are left out.
    const profile = join(dir, 'no-attribute-set.json');
    writeFileSync(profile, JSON.stringify({ entity: 'products', columns: { typ_id: null } }));
    const { plan, real } = await planThenImport(empty, [twice, '--profile', profile]);
    expectSame({ plan, real });
    // Variants of products, products in categories, that the sheets before them would create; the
    // copies find what the first sheets would have written, as it is.
    const again = plan.lines.filter((l) => l.sheet?.endsWith(' again'));
    expect(again.length).toBeGreaterThan(50);
    expect(new Set(again.map((l) => l.outcome))).toEqual(new Set(['unchanged']));
    // The attribute sets and layouts (both tenants have a default set and layouts) are planned first.
    const structure = ['attribute-sets', 'layouts'];
    expect(plan.lines.filter((l) => structure.includes(l.sheet ?? '')).length).toBeGreaterThan(3);
    const first = plan.lines.filter(
      (l) => !l.sheet?.endsWith(' again') && !structure.includes(l.sheet ?? ''),
    );
    expect(new Set(first.map((l) => l.outcome))).toEqual(new Set(['would-create']));
    expect(new Set(first.map((l) => l.sheet))).toEqual(
      new Set(['categories', 'products', 'variants', 'custom Store Locations', 'custom Suppliers']),
    );
  }, 120_000);

  it('a workbook: sheets stored children first, a second sheet of products that repeats the first', async () => {
    const book = join(dir, 'carried.xlsx');
    await workbook(book, [
      {
        name: 'variants',
        rows: [
          ['frmt_ref', 'prod_ref', 'frmt_size', 'frmt_image'],
          // The image the products sheet registers from its URL, by its DAM name.
          ['WV-1-S', 'WP-1', 'S', 'wp-shirt.jpg'],
          ['WV-3-S', 'WP-3', 'S', ''],
          ['WV-9-S', 'WP-NONE', 'S', ''],
        ],
      },
      {
        name: 'products',
        rows: [
          ['prod_ref', 'prod_title', 'cat_refs', 'prod_images'],
          ['WP-1', 'Workbook shirt', 'WC-CHILD', `${empty.sb.assetsUrl}/wp-shirt.jpg`],
          ['WP-2', 'Workbook cap', 'WC-ROOT', ''],
          ['WP-4', 'Workbook scarf', 'WC-NONE', ''],
        ],
      },
      // Placed by its header: a second sheet of products, run after the first.
      {
        name: 'More',
        rows: [
          ['prod_ref', 'prod_title', 'cat_refs'],
          ['WP-1', 'Workbook shirt', 'WC-CHILD'],
          ['WP-2', 'Workbook cap, blue', 'WC-CHILD'],
          ['WP-3', 'Workbook belt', 'WC-ROOT'],
        ],
      },
      {
        name: 'categories',
        rows: [
          ['cat_ref', 'cat_title', 'cat_parent_ref'],
          ['WC-CHILD', 'Child', 'WC-ROOT'],
          ['WC-ROOT', 'Root', ''],
        ],
      },
    ]);
    const { plan, real } = await planThenImport(empty, [book]);
    expectSame({ plan, real });
    expect(plan.lines.map((l) => [l.sheet, l.ref, l.outcome, l.changed])).toEqual([
      ['categories', 'WC-CHILD', 'would-create', ''],
      ['categories', 'WC-ROOT', 'would-create', ''],
      ['products', 'WP-1', 'would-create', ''],
      ['products', 'WP-2', 'would-create', ''],
      ['products', 'WP-4', 'failed', ''],
      ['More', 'WP-1', 'unchanged', ''],
      [
        'More',
        'WP-2',
        'would-update',
        'prod_title_en: "Workbook cap" -> "Workbook cap, blue"; cat_ids: ["(new WC-ROOT)"] -> ["(new WC-CHILD)"]',
      ],
      ['More', 'WP-3', 'would-create', ''],
      ['variants', 'WV-1-S', 'would-create', ''],
      ['variants', 'WV-3-S', 'would-create', ''],
      ['variants', 'WV-9-S', 'failed', ''],
    ]);
  }, 60_000);

  it('past its memory budget, a plan still knows what it would create, and says which values it no longer holds', async () => {
    const connection = await connectTo(empty.sb);
    const model = await connection.tenant.model();
    // Room for about one record's values: the first product's leave when the second is planned.
    const planned = new PlannedRecords(model.baseLanguage, 200);
    const plan = async (name: string, text: string, profile: Parameters<typeof importFile>[0]['profile']) => {
      const report = join(dir, `budget-${name}.jsonl`);
      await importFile(
        {
          source: writeFeedFile(`budget-${name}.csv`, text),
          profile,
          model,
          catalog: connection.catalog,
          dam: () => connection.dam,
          plan: true,
          reportFile: report,
        },
        planned,
      );
      return readFileSync(report, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as ReportLine);
    };
    try {
      const products = await plan('products', 'Handle,Title\nBG-1,Shirt\nBG-2,Cap\nBG-1,Shirt\n', {
        entity: 'products',
        variants: true,
        groupWindow: 1,
        columns: { Handle: 'prod_ref', Title: 'prod_title' },
      });
      expect(products.map((l) => l.outcome)).toEqual(['would-create', 'would-create', 'would-update']);
      expect(products[2]!.message).toMatch(
        /^line 2 would already have written this record, but the plan no longer holds its values/,
      );
      // The next run of the same plan (a workbook's next sheet) still finds the product it would create.
      const variants = await plan('variants', 'frmt_ref,prod_ref\nBG-1-S,BG-1\nBG-9-S,BG-9\n', {
        entity: 'variants',
      });
      expect(variants.map((l) => l.outcome)).toEqual(['would-create', 'failed']);
    } finally {
      planned.close();
      await connection.close();
    }
  });
});

function writeFeedFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}
