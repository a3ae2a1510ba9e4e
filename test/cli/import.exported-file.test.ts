// An export to a folder writes one file per entity (`variants.csv`, `custom-Store Locations.csv`) and
// the structure tables (`attribute-sets.csv`, `layouts.csv`). Each file re-imports on its own, with
// neither --entity nor --profile, as what it is: an entity's file by its name, a structure table by
// its name, each the way a workbook's sheet does: every row `unchanged`, nothing written. Saved under
// another name, a file is placed by its header (a note says so); a supplier's feed (headers that are
// not field names) is read as products, as ever.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { runMain, sandboxFlags, useCliFolder } from '../helpers/cli-main.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const demo = useSandbox({ seed: 'demo' });
const _dir = useCliFolder('exported-file');

const connection = () => sandboxFlags(demo.sb);

const cli = runMain;

interface Summary {
  rows: number;
  outcomes: Record<string, number>;
}

function reportLines(file: string): Array<Record<string, string>> {
  return Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

/** The report's `entity` column, row by row. */
function reportEntities(file: string): string[] {
  return reportLines(file).map((row) => row.entity!);
}

/** The outcomes a summary counts, those with rows. */
const counted = (summary: Summary) => Object.keys(summary.outcomes).filter((o) => summary.outcomes[o]! > 0);

async function writes(): Promise<number> {
  const byMethod = (
    (await call(demo.sb.origin, '/_sandbox/stats')).body as { byMethod: Record<string, number> }
  ).byMethod;
  return (byMethod.POST ?? 0) + (byMethod.PATCH ?? 0) + (byMethod.DELETE ?? 0) + (byMethod.PUT ?? 0);
}

/**
 * `validate FILE`, `import FILE --plan` and `import FILE`, each with a CSV report: every row valid,
 * then unchanged twice, exit 0 each time; the reports' entity column. `--json` for the import's
 * summary; stderr of the three, for the notes.
 */
async function roundTrip(file: string): Promise<{ entities: string[]; stderr: string; rows: number }> {
  const name = file.replace(/[^a-z0-9.-]/gi, '_');
  const checked = await cli(['validate', file, '--report', `${name}.validate.csv`, ...connection()]);
  expect(checked.code, `validate ${file}: ${checked.stderr}`).toBe(0);
  const validated = reportLines(`${name}.validate.csv`);
  expect(new Set(validated.map((l) => l.outcome)), file).toEqual(new Set(['valid']));
  let stderr = checked.stderr;
  const entities = new Set(validated.map((l) => l.entity));
  let rows = validated.length;
  for (const step of [['--plan'], []]) {
    const report = `${name}.import${step.join('')}.csv`;
    const run = await cli(['import', file, ...step, '--report', report, '--json', ...connection()]);
    expect(run.code, `import ${step} ${file}: ${run.stderr}`).toBe(0);
    const summary = JSON.parse(run.stdout[0]!) as Summary;
    expect(summary.rows, file).toBe(rows);
    expect(counted(summary), file).toEqual(['unchanged']);
    for (const l of reportLines(report)) entities.add(l.entity!);
    stderr += `\n${run.stderr}`;
    rows = summary.rows;
  }
  return { entities: [...entities], stderr, rows };
}

describe('a file of an export to a folder', () => {
  it('re-imports as the entity its name says, unchanged', async () => {
    const exported = await cli([
      'export',
      'variants',
      'categories',
      'custom:Store Locations',
      '--out',
      'out/',
      '--format',
      'csv',
      ...connection(),
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const before = await writes();
    for (const [file, entity] of [
      ['variants.csv', 'variants'],
      ['categories.csv', 'categories'],
      ['custom-Store Locations.csv', 'custom:Store Locations'],
    ] as const) {
      const report = `${file}.report.csv`;
      const run = await cli(['import', join('out', file), '--report', report, '--json', ...connection()]);
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout[0]!) as Summary;
      expect(summary.rows).toBeGreaterThan(0);
      expect(new Set(reportEntities(report))).toEqual(new Set([entity]));
      expect(counted(summary)).toEqual(['unchanged']);
    }
    expect(await writes()).toBe(before);
  }, 120_000);

  it('the whole catalog to a CSV folder: each file on its own, structure tables first, changes nothing', async () => {
    const exported = await cli(['export', '--out', 'all/', '--format', 'csv', ...connection()]);
    expect(exported.code, exported.stderr).toBe(0);
    const before = await writes();
    // The order docs/import.md gives: the structure (products name their sets), then parents first.
    for (const [file, entity] of [
      ['attribute-sets.csv', 'attribute-sets'],
      ['layouts.csv', 'layouts'],
      ['categories.csv', 'categories'],
      ['products.csv', 'products'],
      ['variants.csv', 'variants'],
      ['custom-Store Locations.csv', 'custom:Store Locations'],
      ['custom-Suppliers.csv', 'custom:Suppliers'],
    ] as const) {
      const { entities, rows } = await roundTrip(join('all', file));
      expect(entities, file).toEqual([entity]);
      expect(rows, file).toBeGreaterThan(0);
    }
    expect(await writes()).toBe(before);

    // The folder itself is not a feed: the error says how its files go in.
    const folder = await cli(['import', 'all', '--plan', ...connection()]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain(
      "all is a folder; give one file. An export's folder goes in a file at a time: attribute-sets, layouts, categories, products, variants",
    );
  }, 180_000);

  it('saved under another name, an export is placed by its header and still changes nothing', async () => {
    for (const [entity, out] of [
      ['variants', 'ws/v.csv'],
      ['variants', 'ws/v.ndjson'],
      ['categories', 'ws/cats-2024.csv'],
      ['custom:Store Locations', 'ws/stores.csv'],
      ['custom:Suppliers', 'ws/sup.jsonl'],
      ['attribute-sets', 'ws/sets.csv'],
      ['layouts', 'ws/forms.ndjson'],
    ] as const) {
      const exported = await cli(['export', entity, '--out', out, ...connection()]);
      expect(exported.code, exported.stderr).toBe(0);
    }
    const before = await writes();
    for (const [file, entity, note] of [
      ['ws/v.csv', 'variants', 'note: read as variants by its header'],
      ['ws/v.ndjson', 'variants', 'note: read as variants by its header'],
      ['ws/cats-2024.csv', 'categories', 'note: read as categories by its header'],
      ['ws/stores.csv', 'custom:Store Locations', 'note: read as custom:Store Locations by its header'],
      ['ws/sup.jsonl', 'custom:Suppliers', 'note: read as custom:Suppliers by its header'],
      ['ws/sets.csv', 'attribute-sets', "note: read as the export's attribute-sets table"],
      ['ws/forms.ndjson', 'layouts', "note: read as the export's layouts table"],
    ] as const) {
      const { entities, stderr } = await roundTrip(file);
      expect(entities, file).toEqual([entity]);
      // Said by validate, the plan and the import alike.
      expect(stderr.split(note).length - 1, `${file}: ${stderr}`).toBe(3);
    }
    expect(await writes()).toBe(before);
    // The variants header, with --entity, is what --entity says.
    const told = await cli(['validate', 'ws/v.csv', '--entity', 'products', ...connection()]);
    expect(told.code).toBe(1);
    expect(told.stderr).not.toContain('read as');
  }, 180_000);

  it("a supplier's feed is read as products, as before; a header two entities fit alike too", async () => {
    // Headers that are not field names: products, with or without a profile, as ever.
    copyFileSync(join(import.meta.dirname, '../../samples/products.csv'), 'supplier.csv');
    const bare = await cli(['validate', 'supplier.csv', '--report', 'supplier.report.csv', ...connection()]);
    expect(bare.code).toBe(1);
    expect(new Set(reportEntities('supplier.report.csv'))).toEqual(new Set(['products']));
    expect(bare.stderr).not.toContain('read as');
    const profiled = await cli([
      'import',
      'supplier.csv',
      '--plan',
      '--profile',
      join(import.meta.dirname, '../../samples/profiles/products.json'),
      '--report',
      'supplier.plan.csv',
      ...connection(),
    ]);
    expect(new Set(reportEntities('supplier.plan.csv'))).toEqual(new Set(['products']));
    expect(profiled.stderr).not.toContain('read as');

    // Both custom entities have ce_ref and ce_name: the file is not written to one it may not be of.
    writeFileSync('either.csv', 'ce_ref,ce_name\nQA-EITHER-1,Either\n');
    const either = await cli(['import', 'either.csv', '--report', 'either.report.csv', ...connection()]);
    expect(either.code).toBe(1);
    expect(either.stderr).toContain(
      'note: its header fits custom:Store Locations and custom:Suppliers alike (2 columns each): read as products; name the entity with --entity',
    );
    expect(new Set(reportEntities('either.report.csv'))).toEqual(new Set(['products']));
  }, 120_000);
});
