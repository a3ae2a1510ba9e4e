// An export to a folder writes one file per entity (`variants.csv`, `custom-Store Locations.csv`). Each
// file re-imports, with neither --entity nor --profile, as the entity its name says: every row
// `unchanged`, nothing written. A file named otherwise is still read as products.
import { copyFileSync, readFileSync } from 'node:fs';
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

/** The report's `entity` column, row by row. */
function reportEntities(file: string): string[] {
  const parsed = Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  });
  return parsed.data.map((row) => row.entity!);
}

async function writes(): Promise<number> {
  const byMethod = (
    (await call(demo.sb.origin, '/_sandbox/stats')).body as { byMethod: Record<string, number> }
  ).byMethod;
  return (byMethod.POST ?? 0) + (byMethod.PATCH ?? 0) + (byMethod.DELETE ?? 0) + (byMethod.PUT ?? 0);
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
      expect(Object.keys(summary.outcomes).filter((o) => summary.outcomes[o]! > 0)).toEqual(['unchanged']);
    }
    expect(await writes()).toBe(before);

    // Named otherwise, the same file is a products feed (the default), as before.
    copyFileSync(join('out', 'variants.csv'), 'supplier.csv');
    const other = await cli(['validate', 'supplier.csv', '--report', 'supplier.report.csv', ...connection()]);
    expect(new Set(reportEntities('supplier.report.csv'))).toEqual(new Set(['products']));
    expect(other.code).toBe(1);
  }, 120_000);
});
