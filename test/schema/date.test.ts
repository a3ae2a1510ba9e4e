// The one-pass date test used by the fast write-schema check must say exactly what ajv-formats says of a
// ten-character text: the fast check may only accept what Ajv accepts.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFullDate } from '../../src/schema/dates.js';

const ajvDate = (fullFormats.date as { validate: (text: string) => boolean }).validate;

describe('isFullDate', () => {
  it('agrees with ajv-formats on the edges of the calendar', () => {
    const edges = [
      '2024-02-29',
      '2025-02-29',
      '2000-02-29',
      '1900-02-29',
      '2025-04-31',
      '2025-12-31',
      '2025-13-01',
      '2025-00-10',
      '2025-01-00',
      '2025-1-031',
      '2025/01/31',
      '20250-1-31',
      '２025-01-31',
      '0000-01-01',
    ];
    for (const text of edges) expect(isFullDate(text), text).toBe(ajvDate(text));
  });

  it('agrees with ajv-formats on any ten characters drawn from digits and separators', () => {
    const char = fc.constantFrom(...'0123456789-/x '.split(''));
    fc.assert(
      fc.property(fc.array(char, { minLength: 10, maxLength: 10 }), (chars) => {
        const text = chars.join('');
        expect(isFullDate(text)).toBe(ajvDate(text));
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        (d) => {
          const text = d.toISOString().slice(0, 10);
          expect(isFullDate(text)).toBe(true);
          expect(ajvDate(text)).toBe(true);
        },
      ),
    );
  });
});
