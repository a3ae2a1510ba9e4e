// The CSV export's spreadsheet-injection guard and its inverse: every text survives
// export (guarded) -> CSV file -> parse -> unneutralise exactly, and no guarded cell starts with a trigger.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { createCsvSink, unneutralise } from '../../src/writers/export/index.js';

const dir = mkdtempSync(join(tmpdir(), 'catalog-io-export-safety-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let run = 0;
async function throughCsv(values: string[]): Promise<string[]> {
  run += 1;
  const file = join(dir, `cells-${run}.csv`);
  const sink = createCsvSink({ file });
  const table = await sink.table('products', [{ header: 'text', kind: 'text' }]);
  for (const value of values) await table.writeRow([value]);
  await table.close();
  await sink.close();
  const rows = Papa.parse<string[]>(readFileSync(file, 'utf8'), { skipEmptyLines: false }).data;
  return rows.slice(1, values.length + 1).map((row) => row[0]!);
}

describe('CSV injection guard', () => {
  it('neutralises triggers, quoted triggers too, and unneutralise restores each text', async () => {
    const values = ['=1+2', '+33', '-5', '@sum', '\tx', "'=x", "''=x", "'plain", 'plain', "'"];
    const cells = await throughCsv(values);
    expect(cells.slice(0, 7)).toEqual(["'=1+2", "'+33", "'-5", "'@sum", "'\tx", "''=x", "'''=x"]);
    expect(cells.slice(7)).toEqual(["'plain", 'plain', "'"]);
    expect(cells.map(unneutralise)).toEqual(values);
  });

  it('property: unneutralise(guarded cell) is the original text, and no guarded cell starts with a trigger', async () => {
    const piece = fc.constantFrom('=', '+', '-', '@', '\t', "'", 'a', ' ', '\n', '"', ',');
    const textArb = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join('')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          textArb.filter((t) => t !== ''),
          { minLength: 1, maxLength: 20 },
        ),
        async (values) => {
          const cells = await throughCsv(values);
          expect(cells.map(unneutralise)).toEqual(values);
          for (const cell of cells) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
        },
      ),
      { numRuns: 60 },
    );
  });
});
