// The one CSV writer (reports, rejects, export): any text reads back with papaparse, and with the formula
// guard on, no cell starts with a trigger and unneutralise gives back the text.
import fc from 'fast-check';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { CsvFormat } from '../../src/writers/csv.js';
import { FORMULA_TRIGGER, unneutralise } from '../../src/writers/formula.js';

const unit = fc.constantFrom('a', ' ', ',', ';', '"', '\n', '\r', 'é', '=', '+', '-', '@', "'", '\t');

describe('CsvFormat', () => {
  it('reads back with papaparse, whatever the text and delimiter (raw)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(',', ';', '\t'),
        (values, delimiter) => {
          // A record of one empty field is an empty line, which no CSV reader returns as a row.
          fc.pre(!(values.length === 1 && values[0] === ''));
          const text = new CsvFormat({ delimiter, guard: false }).line(values);
          const parsed = Papa.parse<string[]>(text.slice(0, -2), { delimiter });
          expect(parsed.data[0]).toEqual(values);
        },
      ),
    );
  });

  it('guarded: no cell starts with a trigger, and unneutralise restores each text', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit }), { minLength: 2, maxLength: 6 }), (values) => {
        const text = new CsvFormat().line(values);
        const cells = Papa.parse<string[]>(text.slice(0, -2), { delimiter: ',' }).data[0]!;
        for (const cell of cells) expect(FORMULA_TRIGGER.test(cell) && !cell.startsWith("'")).toBe(false);
        expect(cells.map(unneutralise)).toEqual(values);
      }),
    );
  });

  it('numbers and booleans as they print (never guarded), null and undefined empty, headers guarded too', () => {
    const csv = new CsvFormat({ delimiter: ';' });
    expect(csv.line([-5, 1.5, true, null, undefined, '-5', '=A1'])).toBe("-5;1.5;true;;;'-5;'=A1\r\n");
    expect(csv.header(['=odd', 'Price;EUR'])).toBe(`'=odd;"Price;EUR"\r\n`);
    // Unguarded (a raw import's rejects file): as they are.
    expect(new CsvFormat({ delimiter: ';', guard: false }).header(['=odd'])).toBe('=odd\r\n');
  });
});
