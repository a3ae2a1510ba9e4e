// A workbook imported whole with one `catalog-io import book.xlsx`: the demo tenant exported to XLSX
// comes back into an empty tenant as the same records, and a second import writes nothing; a sheet no
// entity can be found for is named in a warning; sheets stored out of order run parents first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { runMain, sandboxFlags, useCliFolder } from '../helpers/cli-main.js';
import { call, useSandbox, useTargetSandbox } from '../helpers/sandbox.js';

const demo = useSandbox({ seed: 'demo' });
const empty = useTargetSandbox(demo);
const dir = useCliFolder('workbook');

const connection = (fixture: typeof demo) => sandboxFlags(fixture.sb);

const cli = runMain;

async function writes(fixture: typeof demo): Promise<number> {
  const byMethod = (
    (await call(fixture.sb.origin, '/_sandbox/stats')).body as { byMethod: Record<string, number> }
  ).byMethod;
  return (byMethod.POST ?? 0) + (byMethod.PATCH ?? 0) + (byMethod.DELETE ?? 0) + (byMethod.PUT ?? 0);
}

const ENTITIES = ['categories', 'products', 'variants'];

/**
 * The records of a tenant as its NDJSON export gives them, by reference, without what the tenant
 * assigns itself (ids and timestamps): what must be equal after a round trip.
 */
async function records(
  fixture: typeof demo,
  folder: string,
): Promise<Record<string, Record<string, unknown>>> {
  const exported = await cli([
    'export',
    ...ENTITIES,
    '--out',
    folder,
    '--format',
    'ndjson',
    ...connection(fixture),
  ]);
  expect(exported.code, exported.stderr).toBe(0);
  const out: Record<string, Record<string, unknown>> = {};
  for (const entity of ENTITIES) {
    for (const line of readFileSync(join(folder, `${entity}.ndjson`), 'utf8').split('\n')) {
      if (!line) continue;
      const record = JSON.parse(line) as Record<string, unknown>;
      const ref = record.prod_ref ?? record.frmt_ref ?? record.cat_ref;
      const kept = Object.fromEntries(
        Object.entries(record).filter(([k]) => !/_ids?$|_(created|updated|modified)(_at|_on)?$/.test(k)),
      );
      out[`${entity}/${ref}`] = kept;
    }
  }
  return out;
}

async function workbook(file: string, sheets: Array<{ name: string; rows: unknown[][] }>): Promise<void> {
  const book = new ExcelJS.Workbook();
  for (const { name, rows } of sheets) book.addWorksheet(name).addRows(rows);
  await book.xlsx.writeFile(file);
}

describe('import book.xlsx imports every sheet', () => {
  it('the demo tenant, exported to XLSX with --asset-urls, lands every row in an empty tenant', async () => {
    const book = join(dir, 'demo.xlsx');
    const exported = await cli(['export', '--out', book, '--asset-urls', ...connection(demo)]);
    expect(exported.code, exported.stderr).toBe(0);

    // The empty tenant's DAM holds nothing: the cells carry the demo DAM's URLs, registered once each.
    const report = join(dir, 'report.csv');
    const first = await cli(['import', book, '--report', report, '--json', ...connection(empty)]);
    expect(
      first.code,
      first.stderr +
        first.stdout.join('\n') +
        readFileSync(report, 'utf8')
          .split('\n')
          .filter((l) => /failed|invalid/.test(l))
          .slice(0, 8)
          .join('\n'),
    ).toBe(0);
    const summary = JSON.parse(first.stdout[0]!) as {
      rows: number;
      outcomes: Record<string, number>;
      assets: Record<string, number>;
      sheets: Array<{ sheet: string; entity: string }>;
      warnings: string[];
    };
    // Structure first (the sets products name), then parents before children, whatever the tab order.
    expect(summary.sheets.map((s) => s.entity).slice(0, 5)).toEqual([
      'attribute-sets',
      'layouts',
      'categories',
      'products',
      'variants',
    ]);
    expect(summary.warnings.join('\n')).not.toContain('not imported');
    expect(summary.outcomes).toMatchObject({ failed: 0, invalid: 0 });
    // Every row lands: created, or (the default set and the layouts both tenants have) updated or unchanged.
    expect(summary.outcomes.created + summary.outcomes.updated + summary.outcomes.unchanged).toBe(
      summary.rows,
    );
    expect(summary.outcomes.created).toBeGreaterThan(80);
    expect(summary.assets.registered).toBeGreaterThan(0);

    // One report for the workbook, every row once, filterable by its sheet.
    const lines = Papa.parse<Record<string, string>>(readFileSync(report, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    expect(lines).toHaveLength(summary.rows);
    for (const line of lines)
      expect(line.location).toBe(`sheet ${line.sheet} row ${line.location.split(' row ')[1]}`);
    expect(new Set(lines.map((l) => l.sheet))).toEqual(new Set(summary.sheets.map((s) => s.sheet)));

    const original = await records(demo, join(dir, 'before'));
    expect(Object.keys(original).length).toBeGreaterThan(50);
    expect(await records(empty, join(dir, 'after'))).toEqual(original);

    const before = await writes(empty);
    const second = await cli(['import', book, '--json', ...connection(empty)]);
    expect(second.code, second.stderr + second.stdout.join('\n')).toBe(0);
    const again = JSON.parse(second.stdout[0]!) as { rows: number; outcomes: Record<string, number> };
    expect(again.outcomes.unchanged).toBe(again.rows);
    expect(await writes(empty)).toBe(before);
  }, 180_000);

  it('names the sheets it cannot place, and runs parents first when they are stored last', async () => {
    const book = join(dir, 'out-of-order.xlsx');
    await workbook(book, [
      {
        name: 'Notes',
        rows: [
          ['written by', 'on'],
          ['buyer', 'monday'],
        ],
      },
      {
        name: 'Variants',
        rows: [
          ['frmt_ref', 'prod_ref', 'frmt_title_en'],
          ['WB-1-S', 'WB-1', 'Small'],
          ['WB-9-S', 'WB-9', 'Of no product'],
        ],
      },
      // Named by nothing: placed by its header.
      {
        name: 'Artikel',
        rows: [
          ['prod_ref', 'prod_title_en'],
          ['WB-1', 'Workbook product'],
        ],
      },
    ]);
    const rejects = join(dir, 'rejects.xlsx');
    const result = await cli(['import', book, '--rejects', rejects, ...connection(empty)]);
    // The worst of the sheets: one variant has no product.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/warning: sheets not imported, no entity found for them: "Notes"/);
    expect(result.stderr).toMatch(
      /sheets: Artikel \(products, 1 rows\), Variants \(variants, 2 rows, exit 1\)/,
    );
    // Each sheet's rejects in a file of its own, in a sheet of the same name: it imports whole again.
    expect(result.stderr).toContain(`rejects: ${join(dir, 'rejects-Variants.xlsx')}`);
    const rejected = new ExcelJS.Workbook();
    await rejected.xlsx.readFile(join(dir, 'rejects-Variants.xlsx'));
    const sheet = rejected.getWorksheet('Variants')!;
    expect(sheet.rowCount).toBe(2);
    expect(sheet.getRow(2).getCell(1).value).toBe('WB-9-S');
    const variant = await call(empty.sb.catalogUrl, "/Variants?$filter=frmt_ref eq 'WB-1-S'", {
      key: empty.sb.apiKey,
    });
    expect(JSON.stringify(variant.body)).toContain('WB-1-S');
  }, 120_000);

  it('refuses --resume for a workbook imported whole, and a profile maps a sheet to its entity', async () => {
    const book = join(dir, 'mapped.xlsx');
    await workbook(book, [
      { name: 'Stuff', rows: [['Nummer'], ['X']] },
      {
        name: 'Artikel',
        rows: [
          ['Nummer', 'Titel'],
          ['WB-2', 'Mapped product'],
        ],
      },
    ]);
    const resumed = await cli(['import', book, '--resume', ...connection(empty)]);
    expect(resumed.code).not.toBe(0);
    expect(resumed.stderr).toMatch(/--resume continues one sheet's run: .* has 2 sheets/);

    // Without the profile, no sheet says its entity: an error, not an empty success.
    const unplaced = await cli(['import', book, ...connection(empty)]);
    expect(unplaced.code).toBe(2);
    expect(unplaced.stderr).toContain('names an entity ("Stuff", "Artikel")');

    const profile = join(dir, 'profile.json');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(
        profile,
        JSON.stringify({
          entity: 'products',
          sheets: { Artikel: 'products' },
          columns: { Nummer: 'prod_ref', Titel: 'prod_title' },
        }),
      ),
    );
    const result = await cli(['import', book, '--profile', profile, ...connection(empty)]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/no entity found for them: "Stuff"/);
    const product = await call(empty.sb.catalogUrl, "/Products?$filter=prod_ref eq 'WB-2'", {
      key: empty.sb.apiKey,
    });
    expect(JSON.stringify(product.body)).toContain('Mapped product');
  }, 120_000);
});
