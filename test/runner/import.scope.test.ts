// A store view's row (Magento store_view_code) is not written: the import reports it skipped with the
// reason, and the default row's values stay (the override does not rename the product).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { byRef, importWith, readCsv, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let dir: string;

beforeAll(() => {
  dir = tempDir('import-scope');
});

describe('import: a store view column', () => {
  it('writes the default rows, skips the store view row with the reason', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'stores.csv',
      [
        'sku,store_view_code,name',
        'C03,,Configurable 03',
        'C03,fixturestore,Configurable 03-Option 1',
        'S01,,Simple 01',
      ].join('\n'),
    );
    const report = join(dir, 'stores.report.csv');
    const summary = await importWith(sb, feed, {
      reportFile: report,
      profile: {
        entity: 'products',
        scopeColumn: 'store_view_code',
        columns: { sku: 'prod_ref', name: 'prod_title', store_view_code: null },
      },
    });
    expect(summary.outcomes).toMatchObject({ created: 2, skipped: 1, failed: 0, invalid: 0 });
    const lines = await readCsv(report);
    expect(lines.map((l) => [l.location, l.outcome])).toEqual([
      ['line 2', 'created'],
      ['line 3', 'skipped'],
      ['line 4', 'created'],
    ]);
    expect(lines[1]!.message).toMatch(/store view "fixturestore"/);
    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('C03')?.prod_title).toBe('Configurable 03');
  });
});
