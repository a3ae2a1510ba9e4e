// The canonical date-time is read by character codes in three places: the coercion (a cell), the plain
// lane (a cell judged without drafts) and the write-schema's format test. Each must say what the general
// path says: the coercion what its full parser gives for the same moment written another way, the format
// test what ajv-formats says.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coerce } from '../../src/mappers/coerce.js';
import { isCanonicalDateTime } from '../../src/schema/dates.js';
import { DraftValidator } from '../../src/schema/validator.js';
import { demoModel } from '../mappers/demo-model.js';

const ajvDateTime = (fullFormats['date-time'] as { validate: (text: string) => boolean }).validate;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Date-times near and off the canonical form: every part may be out of range or laid out otherwise. */
const dateTimeish = fc
  .record({
    y: fc.integer({ min: 0, max: 9999 }),
    mo: fc.integer({ min: 0, max: 13 }),
    d: fc.integer({ min: 0, max: 32 }),
    h: fc.integer({ min: 0, max: 25 }),
    mi: fc.integer({ min: 0, max: 61 }),
    s: fc.integer({ min: 0, max: 61 }),
    t: fc.constantFrom('T', 'T', 'T', 't', ' ', 'x'),
    fraction: fc.constantFrom('', '', '.000', '.250', '.5', '.123456', '.', '.12a'),
    zone: fc.constantFrom('Z', 'Z', 'Z', 'z', '+01:00', '-0530', '', 'ZZ'),
  })
  .map(
    ({ y, mo, d, h, mi, s, t, fraction, zone }) =>
      `${pad(y, 4)}-${pad(mo)}-${pad(d)}${t}${pad(h)}:${pad(mi)}:${pad(s)}${fraction}${zone}`,
  );

/** Canonical UTC date-times of real moments, years 0 to 9999, with and without milliseconds. */
const canonical = fc
  .date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .chain((date) => fc.constantFrom(date.toISOString(), date.toISOString().replace(/\.\d{3}Z$/, 'Z')));

describe('the canonical date-time fast path', () => {
  it('reads a cell as the full parser reads the same moment written with a space', () => {
    fc.assert(
      fc.property(dateTimeish, (text) => {
        const fast = coerce(text, 'date-time', {});
        // A space for the T (and a lower-case z) is not canonical: the full parser reads it.
        const general = coerce(text.replace('T', ' ').replace(/Z$/, 'z'), 'date-time', {});
        if (text.charCodeAt(10) === 84 /* T */) expect(fast).toEqual(general);
        if (isCanonicalDateTime(text)) expect(fast).toEqual({ ok: true, value: general.ok && general.value });
      }),
      { numRuns: 5000 },
    );
  });

  it('gives a canonical moment back as written (without a zero fraction), in every year', () => {
    fc.assert(
      fc.property(canonical, (text) => {
        expect(isCanonicalDateTime(text)).toBe(true);
        const value = text.endsWith('.000Z') ? `${text.slice(0, 19)}Z` : text;
        expect(coerce(text, 'date-time', {})).toEqual({ ok: true, value });
        expect(coerce(text.replace('T', ' '), 'date-time', {})).toEqual({ ok: true, value });
      }),
      { numRuns: 3000 },
    );
    // Years 0-99 are not read as 1900-1999 by the full parser either.
    expect(coerce('0050-01-01 00:00:00Z', 'date-time', {})).toEqual({
      ok: true,
      value: '0050-01-01T00:00:00Z',
    });
  });

  it('only accepts what ajv-formats accepts, and the format test says what ajv-formats says', () => {
    const validator = new DraftValidator(demoModel());
    const test = validator.fieldCheck('products', 'prod_date', undefined)!;
    expect(test).toBeTypeOf('function');
    fc.assert(
      fc.property(fc.oneof(dateTimeish, canonical), (text) => {
        if (isCanonicalDateTime(text)) expect(ajvDateTime(text)).toBe(true);
        expect(test(text)).toBe(ajvDateTime(text));
      }),
      { numRuns: 5000 },
    );
    // A leap second is ajv-formats' to judge.
    expect(isCanonicalDateTime('2016-12-31T23:59:60Z')).toBeUndefined();
    expect(test('2016-12-31T23:59:60Z')).toBe(ajvDateTime('2016-12-31T23:59:60Z'));
  });
});
