// Malformed quotes: a quoted cell closed with text after its quote (`"12"" pan`) makes papaparse run the
// cell on over the lines after it. Such a record is a row error that names the lines it took in, so the
// rows there are not read as part of one valid row; the rows after it read as usual.
import { describe, expect, it } from 'vitest';
import { openSourceThreaded } from '../../src/readers/thread/open-on-thread.js';
import { collect, readAll, tempFile } from './helpers.js';

describe('CSV malformed quotes', () => {
  it('a cell that swallows the next lines is a row error naming them; the other rows are whole', async () => {
    const file = tempFile(
      'stray-quote.csv',
      'prod_ref,prod_title,prod_weight\nP-1,Plain pan,1.5\nP-2,"12"" pan,2\nP-3,Wok,3\nP-4,"Large, red",4\nP-5,Lid,5\n',
    );
    const { rows } = await readAll(file);
    expect(rows.map((r) => [r.location.text, r.cells.prod_ref, r.error?.code])).toEqual([
      ['line 2', 'P-1', undefined],
      ['line 3', 'P-2', 'CSV_QUOTE_MALFORMED'],
      ['line 6', 'P-5', undefined],
    ]);
    expect(rows[1]!.error!.message).toContain('runs on to line 5');
    expect(rows[1]!.error!.message).toContain('(line 3, column "prod_title")');
  });

  it('in a later chunk of a large file too, and a malformed quote within one line stays a plain cell', async () => {
    const lines = ['sku,name'];
    for (let i = 0; i < 20_000; i++) lines.push(`S-${i},name ${i}`);
    lines.push('S-BAD,"12"" pan', 'S-IN,inside', 'S-END,"Large, red"', 'S-ONE,"a"b"', 'S-LAST,last');
    const { rows } = await readAll(tempFile('stray-late.csv', `${lines.join('\n')}\n`));
    const bad = rows.find((r) => r.cells.sku === 'S-BAD')!;
    expect(bad.error?.code).toBe('CSV_QUOTE_MALFORMED');
    expect(bad.location.text).toBe('line 20002');
    expect(rows.find((r) => r.cells.sku === 'S-IN')).toBeUndefined();
    // `"a"b"` within its line: papaparse reads `a"b`, and no line is lost.
    const one = rows.find((r) => r.cells.sku === 'S-ONE')!;
    expect(one.error).toBeUndefined();
    expect(rows.at(-1)!.cells.sku).toBe('S-LAST');
    expect(rows.filter((r) => !r.error)).toHaveLength(20_000 + 2);
  });
});

// A quote written `""` inside a quoted cell is the file's own: the row names those cells' texts
// (`escapedQuotes`), so a ref such as `12" PAN` is not taken for a stray quote (runner/check.ts).
describe('CSV quoted cells holding an escaped quote', () => {
  it('are named on their row, read here or on a reading thread; a stray quote in an unquoted cell is not', async () => {
    const text =
      '"sku ""a""",name\n"12"" PAN",Pan\nQ-2",Desk\nP-3,"Desk 12"" wide"\nP-4,"plain, quoted"\n"Pan 14""",x\n';
    for (const readThread of ['off', 'on'] as const) {
      const source = await openSourceThreaded(tempFile(`escaped-${readThread}.csv`, text), {}, readThread);
      const rows = await collect(source);
      expect(source.headers, readThread).toEqual(['sku "a"', 'name']);
      expect(
        rows.map((r) => [r.location.text, r.escapedQuotes]),
        readThread,
      ).toEqual([
        ['line 2', ['12" PAN']],
        ['line 3', undefined],
        ['line 4', ['Desk 12" wide']],
        ['line 5', undefined],
        ['line 6', ['Pan 14"']],
      ]);
      expect(rows[1]!.cells['sku "a"'], readThread).toBe('Q-2"');
    }
  });
});
