// The one-pass readers of the usual number and date cells must agree with the general rules on every
// input: each property compares the two on generated text (a rule the general path reads the same way
// makes it take that path).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coerce, plainNumber } from '../../src/mappers/coerce.js';
import type { ConversionRule } from '../../src/mappers/profile-types.js';

/** An empty thousands mark is no mark: it sends a cell down the general path, with the same meaning. */
const GENERAL = { thousands: '' } as unknown as ConversionRule;

/** Text made of the characters numbers and their look-alikes are made of. */
const numberish = fc
  .array(fc.constantFrom('0', '1', '2', '5', '9', ',', '.', '-', '+', 'e', ' ', 'O'), { maxLength: 9 })
  .map((chars) => chars.join(''));

const dateish = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.constantFrom('-', '/', '.'),
  )
  .map(
    ([y, m, d, sep]) =>
      `${String(y).padStart(4, '0')}${sep}${String(m).padStart(2, '0')}${sep}${String(d).padStart(2, '0')}`,
  );

describe('fast paths of the coercion', () => {
  it('a number cell reads the same as under the general rules', () => {
    fc.assert(
      fc.property(numberish, fc.boolean(), (text, integer) => {
        const type = integer ? 'integer' : 'number';
        expect(coerce(text, type, {})).toEqual(coerce(text, type, GENERAL));
      }),
      { numRuns: 5000 },
    );
  });

  it('a long decimal reads to the same double as Number() of its dot form, to the last bit', () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
    fc.assert(
      fc.property(
        fc.constantFrom('', '-', '+'),
        digits(1, 12),
        fc.constantFrom('.', ','),
        digits(1, 24),
        (sign, whole, mark, fraction) => {
          const text = `${sign}${whole}${mark}${fraction}`;
          const read = plainNumber(text);
          // `1,234` (three decimals after a comma, three digits or fewer before): refused as ambiguous.
          if (mark === ',' && fraction.length === 3 && whole.length <= 3 && !whole.startsWith('0'))
            expect(read).toBeUndefined();
          else expect(Object.is(read, Number(`${sign}${whole}.${fraction}`))).toBe(true);
        },
      ),
      { seed: 20261125, numRuns: 20_000 },
    );
    expect(Object.is(plainNumber('-0'), -0)).toBe(true);
    expect(plainNumber('12345678901234567890')).toBe(Number('12345678901234567890'));
    expect(plainNumber('0,1')).toBe(0.1);
  });

  it('keeps the reasons of the general rules for the refused ones', () => {
    expect(coerce('1,234', 'number', {})).toEqual({
      ok: false,
      expected: 'a number (is "1,234" a thousand or a decimal? set "decimal" or "thousands")',
    });
    expect(coerce('12,5', 'number', {})).toEqual({ ok: true, value: 12.5 });
    expect(coerce('0,125', 'number', {})).toEqual({ ok: true, value: 0.125 });
    expect(coerce('6.5', 'integer', {})).toEqual({ ok: false, expected: 'a whole number' });
  });

  it('a date cell reads the same as under a layout that means the same', () => {
    fc.assert(
      fc.property(dateish, (text) => {
        const fast = coerce(text, 'date', {});
        const layout = coerce(text, 'date', { dateFormat: 'YYYY-MM-DD' });
        expect(fast.ok).toBe(layout.ok);
        if (fast.ok && layout.ok) expect(fast.value).toBe(layout.value);
      }),
      { numRuns: 5000 },
    );
    expect(coerce('2024-02-29', 'date', {})).toEqual({ ok: true, value: '2024-02-29' });
    expect(coerce('2025-02-29', 'date', {}).ok).toBe(false);
  });
});
