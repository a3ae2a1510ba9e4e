// A store view's row (Magento store_view_code) is skipped with its reason in the validate and import
// reports, which name the record it overrides; the default rows are valid.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateFile } from '../../src/runner/validate.js';
import { useSandbox } from '../helpers/sandbox.js';
import { demoModel } from '../mappers/demo-model.js';
import { tempFile } from '../readers/helpers.js';
import { importWith } from './import.support.js';

const model = demoModel();
const fixture = useSandbox();
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
    expect(skipped[0]).toMatchObject({ entity: 'products', ref: 'C03' });
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

  it('a store view row names the SKU it overrides in validate and import reports, its values unread', async () => {
    // One row per variant, the SKU the variant's ref and the product's (Magento's profile init draft).
    const source = tempFile(
      'stores-variants.csv',
      'sku,store_view_code,name,price\nC03-1,,Configurable 03,10\nC03-1,fixturestore,Option 1 (store),not a price\nC03-2,,Configurable 03,12\n',
    );
    const profile = {
      entity: 'products',
      variants: true,
      scopeColumn: 'store_view_code',
      columns: { sku: 'prod_ref', name: 'prod_title', price: 'frmt_price', store_view_code: null },
      fields: { frmt_ref: { from: ['sku'] } },
    };
    const validated = join(dir, 'variants-validate.csv');
    const result = await validateFile({ source, model, profile, reportFile: validated });
    expect(result.outcomes).toEqual({ valid: 2, invalid: 0, skipped: 1 });
    const imported = join(dir, 'variants-import.csv');
    const summary = await importWith(fixture.sb, source, { profile, reportFile: imported });
    expect(summary.outcomes).toMatchObject({ created: 2, skipped: 1 });
    for (const report of [validated, imported]) {
      const lines = Papa.parse<Record<string, string>>(await readFile(report, 'utf8'), {
        header: true,
        skipEmptyLines: true,
      }).data;
      expect(
        lines.map((l) => [l.location, l.entity, l.ref, l.outcome]),
        report,
      ).toEqual([
        ['line 2', 'variants', 'C03-1', report === validated ? 'valid' : 'created'],
        ['line 3', 'variants', 'C03-1', 'skipped'],
        ['line 4', 'variants', 'C03-2', report === validated ? 'valid' : 'created'],
      ]);
    }
  });
});
