// Attribute sets and layouts in a workbook imported whole: sets by name (the default by `default`),
// layouts replaced only when they differ and shown field by field in a plan, a layout naming a field
// the target lacks refused before anything is written (and each such row invalid in validate, as a
// sheet and as a file of its own); `typ_name` resolved per tenant; and an export
// with --asset-urls imported into the tenant it came from writes nothing.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { runMain, sandboxFlags, useCliFolder } from '../helpers/cli-main.js';
import { call, type SandboxFixture, useSandbox } from '../helpers/sandbox.js';

const demo = useSandbox({ seed: 'demo' });
const empty = useSandbox({ seed: 'empty' });
const dir = useCliFolder('structure');

const connection = (fixture: SandboxFixture) => sandboxFlags(fixture.sb);

const cli = runMain;

async function writes(fixture: SandboxFixture): Promise<number> {
  const byMethod = (
    (await call(fixture.sb.origin, '/_sandbox/stats')).body as { byMethod: Record<string, number> }
  ).byMethod;
  return (byMethod.POST ?? 0) + (byMethod.PATCH ?? 0) + (byMethod.DELETE ?? 0) + (byMethod.PUT ?? 0);
}

async function book(file: string, sheets: Record<string, unknown[][]>): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) workbook.addWorksheet(name).addRows(rows);
  await workbook.xlsx.writeFile(file);
  return file;
}

function reportLines(file: string): Array<Record<string, string>> {
  return Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

const layout = (title: string, fields: string[]) => ({
  sections: [{ title, rows: fields.map((f) => ({ fields: [f] })) }],
});

describe('structure sheets', () => {
  it('refuses a layout naming a field the target does not have, and writes nothing', async () => {
    const file = await book(join(dir, 'unknown-field.xlsx'), {
      'attribute-sets': [
        ['name', 'default', 'ProductLayout'],
        ['Outdoor', false, JSON.stringify(layout('Main', ['prod_title', 'prod_colour_code']))],
      ],
      layouts: [
        ['layout', 'document'],
        ['categories', JSON.stringify(layout('Category', ['cat_title']))],
      ],
      products: [
        ['prod_ref', 'prod_title'],
        ['OUT-1', 'Tent'],
      ],
    });
    const before = await writes(empty);
    const result = await cli(['import', file, ...connection(empty)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('[LAYOUT_UNKNOWN_FIELD]');
    expect(result.stderr).toContain("'prod_colour_code'");
    expect(result.stderr).toContain('sheet attribute-sets row 2');
    expect(await writes(empty)).toBe(before);
  });

  it('validate checks every row of the structure tables, in a workbook and in files of their own', async () => {
    const sets = [
      ['name', 'default', 'identifier', 'ProductLayout', 'VariantLayout'],
      ['Garden', 'false', '', JSON.stringify(layout('Main', ['prod_title', 'prod_colour_code'])), ''],
      ['Broken', 'false', '', '{"sections": [', ''],
      ['Kitchen', 'false', '', JSON.stringify(layout('Main', ['prod_title'])), ''],
    ];
    const layouts = [
      ['layout', 'document'],
      ['categories', JSON.stringify(layout('Category', ['cat_title']))],
      ['custom:Nowhere', JSON.stringify(layout('X', ['ce_ref']))],
    ];
    const verdicts = (file: string) =>
      Object.fromEntries(
        reportLines(file)
          .filter((l) => l.entity === 'attribute-sets' || l.entity === 'layouts')
          .map((l) => [l.location, [l.entity, l.ref, l.outcome, l.message]]),
      );
    const expected = (row: string) => ({
      [`${row} 2`]: ['attribute-sets', 'Garden', 'invalid', expect.stringContaining("'prod_colour_code'")],
      [`${row} 3`]: [
        'attribute-sets',
        '',
        'invalid',
        expect.stringContaining('ProductLayout must hold a layout as JSON'),
      ],
      [`${row} 4`]: ['attribute-sets', 'Kitchen', 'valid', ''],
    });
    const file = await book(join(dir, 'check.xlsx'), {
      'attribute-sets': sets,
      layouts,
      products: [
        ['prod_ref', 'prod_title'],
        ['CHK-1', 'Pan'],
      ],
    });
    const report = join(dir, 'check.report.csv');
    const checked = await cli(['validate', file, '--report', report, ...connection(empty)]);
    expect(checked.code, checked.stderr).toBe(1);
    expect(checked.stderr).toContain(
      'sheets: attribute-sets (attribute-sets, 3 rows), layouts (layouts, 2 rows)',
    );
    expect(verdicts(report)).toMatchObject({
      ...expected('sheet attribute-sets row'),
      'sheet layouts row 2': ['layouts', 'categories', 'valid', ''],
      'sheet layouts row 3': [
        'layouts',
        '',
        'invalid',
        expect.stringContaining('"custom:Nowhere" names no entity'),
      ],
    });

    // The same tables as the files of an export to a folder: read as what their names say.
    const folder = join(dir, 'tables');
    mkdirSync(folder);
    writeFileSync(join(folder, 'attribute-sets.csv'), Papa.unparse(sets));
    writeFileSync(join(folder, 'layouts.csv'), Papa.unparse(layouts));
    const alone = join(dir, 'sets.report.csv');
    const file1 = await cli([
      'validate',
      join(folder, 'attribute-sets.csv'),
      '--report',
      alone,
      ...connection(empty),
    ]);
    expect(file1.code, file1.stderr).toBe(1);
    expect(verdicts(alone)).toEqual(expected('line'));
    const file2 = await cli([
      'validate',
      join(folder, 'layouts.csv'),
      '--report',
      alone,
      ...connection(empty),
    ]);
    expect(file2.code, file2.stderr).toBe(1);
    expect(verdicts(alone)).toEqual({
      'line 2': ['layouts', 'categories', 'valid', ''],
      'line 3': [
        'layouts',
        '',
        'invalid',
        expect.stringContaining('layout "custom:Nowhere" names no entity'),
      ],
    });

    // The import refuses the unknown field before anything is written, as for the workbook's sheet.
    const before = await writes(empty);
    const refused = await cli(['import', join(folder, 'attribute-sets.csv'), '--plan', ...connection(empty)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('[LAYOUT_UNKNOWN_FIELD]');
    expect(refused.stderr).toContain("line 2: ProductLayout names 'prod_colour_code'");
    // Fixed: the set is created by the file alone, and the same file again writes nothing.
    writeFileSync(join(folder, 'attribute-sets.csv'), Papa.unparse([sets[0]!, sets[3]!]));
    const setsReport = join(dir, 'sets.import.csv');
    const planned = await cli([
      'import',
      join(folder, 'attribute-sets.csv'),
      '--plan',
      '--report',
      setsReport,
      ...connection(empty),
    ]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(reportLines(setsReport)).toMatchObject([
      { entity: 'attribute-sets', ref: 'Kitchen', outcome: 'would-create' },
    ]);
    expect(await writes(empty)).toBe(before);
    const created = await cli([
      'import',
      join(folder, 'attribute-sets.csv'),
      '--report',
      setsReport,
      ...connection(empty),
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(reportLines(setsReport)).toMatchObject([{ ref: 'Kitchen', outcome: 'created', status: '201' }]);
    const after = await writes(empty);
    const again = await cli([
      'import',
      join(folder, 'attribute-sets.csv'),
      '--report',
      setsReport,
      ...connection(empty),
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(reportLines(setsReport)).toMatchObject([{ ref: 'Kitchen', outcome: 'unchanged' }]);
    expect(await writes(empty)).toBe(after);
  });

  it('creates sets by name, replaces a layout only when it differs, and shows the difference in a plan', async () => {
    const current = (await call(empty.sb.catalogUrl, '/Categories/layout', { key: empty.sb.apiKey }))
      .body as {
      sections: Array<{ title: string; rows: unknown[] }>;
    };
    const changed = {
      ...current,
      sections: [{ ...current.sections[0]!, title: 'Renamed' }, ...current.sections.slice(1)],
    };
    const file = await book(join(dir, 'sets.xlsx'), {
      'attribute-sets': [
        ['name', 'default', 'identifier', 'ProductLayout', 'VariantLayout'],
        ['Outdoor', false, 77, JSON.stringify(layout('Main', ['prod_title', 'prod_brand'])), ''],
      ],
      layouts: [
        ['layout', 'document'],
        ['categories', JSON.stringify(changed)],
      ],
      products: [
        ['prod_ref', 'prod_title', 'typ_name'],
        ['OUT-2', 'Stove', 'Outdoor'],
        ['OUT-3', 'Lamp', ''],
        ['OUT-4', 'Rope', 'Nowhere'],
      ],
    });
    const report = join(dir, 'plan.csv');
    const before = await writes(empty);
    const plan = await cli(['import', file, '--plan', '--report', report, ...connection(empty)]);
    expect(plan.code, plan.stderr).toBe(1);
    expect(await writes(empty)).toBe(before);
    const planned = Object.fromEntries(reportLines(report).map((l) => [l.ref, l]));
    expect(planned.Outdoor).toMatchObject({ sheet: 'attribute-sets', outcome: 'would-create' });
    expect(planned.categories).toMatchObject({ sheet: 'layouts', outcome: 'would-update' });
    expect(planned.categories!.changed).toContain(
      `layout.sections[0].title: "${current.sections[0]!.title}" -> "Renamed"`,
    );
    // The product naming the set the plan would create is planned as the import would write it.
    expect(planned['OUT-2']).toMatchObject({ outcome: 'would-create' });
    expect(planned['OUT-4']).toMatchObject({ outcome: 'failed' });
    expect(planned['OUT-4']!.message).toContain("attribute set 'Nowhere' is not in the tenant (typ_name)");

    const run = await cli(['import', file, '--report', report, ...connection(empty)]);
    expect(run.code, run.stderr).toBe(1);
    const lines = Object.fromEntries(reportLines(report).map((l) => [l.ref, l]));
    expect(lines.Outdoor).toMatchObject({ outcome: 'created', status: '201' });
    expect(lines.categories).toMatchObject({ outcome: 'updated', status: '204' });
    const sets = (await call(empty.sb.catalogUrl, '/v2/AttributeSets', { key: empty.sb.apiKey })).body as {
      value: Array<{ identifier: number; name: string }>;
    };
    const outdoor = sets.value.find((s) => s.name === 'Outdoor')!;
    // The file's identifier (another tenant's) is not this tenant's: the set is matched by its name.
    expect(outdoor.identifier).not.toBe(77);
    const stove = (
      await call(empty.sb.catalogUrl, "/Products?$filter=prod_ref eq 'OUT-2'", { key: empty.sb.apiKey })
    ).body as { value: Array<{ typ_id: number | null }> };
    expect(stove.value[0]!.typ_id).toBe(outdoor.identifier);
    expect(lines['OUT-3']).toMatchObject({ outcome: 'created' });

    // Again: the set and the layout are as the file says, nothing is written for them.
    const again = await writes(empty);
    const second = await cli(['import', file, '--report', report, ...connection(empty)]);
    expect(second.code).toBe(1);
    expect(await writes(empty)).toBe(again);
    const unchanged = Object.fromEntries(reportLines(report).map((l) => [l.ref, l.outcome]));
    expect(unchanged).toMatchObject({ Outdoor: 'unchanged', categories: 'unchanged', 'OUT-2': 'unchanged' });
  });

  it('an export with --asset-urls, imported into the tenant it came from, writes nothing', async () => {
    const file = join(dir, 'demo-urls.xlsx');
    const exported = await cli(['export', '--out', file, '--asset-urls', ...connection(demo)]);
    expect(exported.code, exported.stderr).toBe(0);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    const header = workbook.getWorksheet('products')!.getRow(1).values as unknown[];
    const images = workbook.getWorksheet('products')!.getRow(2).getCell(header.indexOf('prod_images')).text;
    expect(images).toMatch(new RegExp(`^${demo.sb.assetsUrl}/`));

    const before = await writes(demo);
    const result = await cli(['import', file, '--json', ...connection(demo)]);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout[0]!) as { rows: number; outcomes: Record<string, number> };
    expect(summary.outcomes.unchanged).toBe(summary.rows);
    expect(await writes(demo)).toBe(before);
  });

  // The service allows two sets of one name: the export's ids tell them apart, a name alone is refused.
  it('two attribute sets of one name: an untouched export writes nothing, a name alone fails its row', async () => {
    const created = await call(demo.sb.catalogUrl, '/v2/AttributeSets', {
      method: 'POST',
      key: demo.sb.apiKey,
      body: { name: 'Apparel' },
    });
    expect(created.status, created.text).toBe(201);
    const second = (created.body as { identifier: number }).identifier;
    const moved = await call(demo.sb.catalogUrl, '/Products(4)', {
      method: 'PATCH',
      key: demo.sb.apiKey,
      body: { typ_id: second },
    });
    expect(moved.status, moved.text).toBe(204);

    const file = join(dir, 'twin-sets.xlsx');
    expect((await cli(['export', '--out', file, ...connection(demo)])).code).toBe(0);
    const before = await writes(demo);
    const again = await cli(['import', file, '--json', ...connection(demo)]);
    expect(again.code, again.stderr).toBe(0);
    const summary = JSON.parse(again.stdout[0]!) as { rows: number; outcomes: Record<string, number> };
    expect(summary.outcomes.unchanged).toBe(summary.rows);
    expect(await writes(demo)).toBe(before);

    const byName = await book(join(dir, 'twin-by-name.xlsx'), {
      'attribute-sets': [
        ['name', 'default', 'ProductLayout'],
        ['Apparel', false, JSON.stringify(layout('X', ['prod_title']))],
      ],
      products: [
        ['prod_ref', 'typ_name'],
        ['LINEN-SHIRT', 'Apparel'],
      ],
    });
    const report = join(dir, 'twin-by-name.report.csv');
    const refused = await cli(['import', byName, '--report', report, ...connection(demo)]);
    expect(refused.code).toBe(1);
    const lines = reportLines(report);
    expect(lines.find((l) => l.entity === 'attribute-sets')).toMatchObject({ outcome: 'failed' });
    expect(lines.find((l) => l.entity === 'attribute-sets')!.message).toContain(`ids 2, ${second}`);
    expect(lines.find((l) => l.entity === 'products')).toMatchObject({ outcome: 'failed' });
    expect(lines.find((l) => l.entity === 'products')!.message).toContain('shared by 2 sets');
    expect(await writes(demo)).toBe(before);
  });
});
