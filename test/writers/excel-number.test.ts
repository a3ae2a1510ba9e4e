// Numbers at Excel's 15 significant digits: what the XLSX export writes, and what the import's change
// detection reads as the same decimal.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atExcelPrecision, sameAtExcelPrecision, xlsxNumber } from '../../src/writers/excel-number.js';

describe('xlsxNumber', () => {
  it('keeps a number of at most 15 significant digits as it is', () => {
    for (const n of [0, -0, 12.5, 19.99, -3, 123456789012345, 0.000123456789012345, 1e300, 5e-324])
      expect(xlsxNumber(n)).toBe(n);
  });

  it('rounds a decimal of more to the 15 digits Excel shows and saves', () => {
    expect(xlsxNumber(19.990000000000002)).toBe(19.99);
    expect(xlsxNumber(0.1 + 0.2)).toBe(0.3);
    expect(xlsxNumber(1.2345678901234567)).toBe(1.23456789012346);
  });

  it('writes a whole number of more as its digits, a text Excel keeps', () => {
    expect(xlsxNumber(1234567890123456)).toBe('1234567890123456');
    expect(xlsxNumber(-9007199254740991)).toBe('-9007199254740991');
  });

  it('property: what it writes is the same number at Excel precision, and Excel would keep it', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const written = xlsxNumber(n);
        const back = typeof written === 'number' ? written : Number(written);
        expect(sameAtExcelPrecision(n, back)).toBe(true);
        if (typeof written === 'number') expect(atExcelPrecision(written)).toBe(written);
        else expect(back).toBe(n);
      }),
    );
  });

  it('property: two different numbers of at most 15 digits are never the same', () => {
    const fifteen = fc.double({ noNaN: true, noDefaultInfinity: true }).map(atExcelPrecision);
    fc.assert(
      fc.property(fifteen, fifteen, (a, b) => {
        expect(sameAtExcelPrecision(a, b)).toBe(a === b);
      }),
    );
  });
});
