// The CSV export guards formula-like text with a leading quote; reading a CSV back takes the guard off
// (unless raw), so an exported file re-imports unchanged and validate judges the original text.
import { describe, expect, it } from 'vitest';
import type { SourceRow } from '../../src/readers/types.js';
import { RowChecker } from '../../src/runner/check.js';
import { demoModel } from '../mappers/demo-model.js';

function row(cells: Record<string, string>): SourceRow {
  return {
    index: 1,
    location: { text: 'line 2', source: 'feed.csv', line: 2 },
    cells: Object.assign(Object.create(null), cells),
  };
}

const cells = { prod_ref: 'P-1', prod_title: "'=1+2", prod_brand: "''@home", prod_description: "it's" };

describe('RowChecker: the CSV formula guard', () => {
  it('takes the one guard quote off text cells when asked (CSV sources)', () => {
    const checker = new RowChecker({
      model: demoModel(),
      profile: { entity: 'products' },
      unguardFormulas: true,
    });
    const source = row(cells);
    const { mapped, errors } = checker.check(source);
    expect(errors).toEqual([]);
    expect(mapped.drafts[0]!.fields).toMatchObject({
      prod_title: '=1+2',
      prod_brand: "'@home",
      prod_description: "it's",
    });
    // the row as read is left alone (the rejects file writes the input's own cells)
    expect(source.cells.prod_title).toBe("'=1+2");
  });

  it('keeps cells exactly as written otherwise (other formats, or --raw)', () => {
    const checker = new RowChecker({ model: demoModel(), profile: { entity: 'products' } });
    const { mapped } = checker.check(row(cells));
    expect(mapped.drafts[0]!.fields).toMatchObject({ prod_title: "'=1+2", prod_brand: "''@home" });
  });
});
