// A store view's row (Magento store_view_code) is skipped with its reason in the validate report; the
// default rows are valid.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateFile } from '../../src/runner/validate.js';
import { demoModel } from '../mappers/demo-model.js';
import { tempFile } from '../readers/helpers.js';

const model = demoModel();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-scope-'));
});

describe('validate: a store view column', () => {
  it('skips the store view row with the reason, the default rows are valid', async () => {
    const source = tempFile(
      'stores.csv',
      'sku,store_view_code,name\nC03,,Configurable 03\nC03,fixturestore,Configurable 03-Option 1\nS01,,Simple\n',
    );
    const report = join(dir, 'report.csv');
    const result = await validateFile({
      source,
      model,
      profile: {
        entity: 'products',
        scopeColumn: 'store_view_code',
        columns: { sku: 'prod_ref', name: 'prod_title', store_view_code: null },
      },
      reportFile: report,
    });
    expect(result.outcomes).toEqual({ valid: 2, invalid: 0, skipped: 1 });
    const lines = Papa.parse<Record<string, string>>(await readFile(report, 'utf8'), { header: true }).data;
    const skipped = lines.filter((line) => line.outcome === 'skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.location).toBe('line 3');
    expect(skipped[0]!.message).toMatch(/column "store_view_code": a row for store view "fixturestore"/);
    // Without the scope column the same row would rename C03: a duplicate reference, invalid.
    const plain = await validateFile({
      source,
      model,
      profile: {
        entity: 'products',
        columns: { sku: 'prod_ref', name: 'prod_title', store_view_code: null },
      },
    });
    expect(plain.outcomes.invalid).toBe(1);
  });
});
