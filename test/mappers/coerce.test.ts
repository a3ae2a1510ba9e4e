import { describe, expect, it } from 'vitest';
import { coerce } from '../../src/mappers/coerce.js';

const ok = (value: unknown) => ({ ok: true, value });

describe('coerce numbers', () => {
  it('reads "." and "," decimals and a leading decimal mark', () => {
    expect(coerce('12.5', 'number', {})).toEqual(ok(12.5));
    expect(coerce('12,5', 'number', {})).toEqual(ok(12.5));
    expect(coerce('.5', 'number', {})).toEqual(ok(0.5));
    expect(coerce(' -3 ', 'number', {})).toEqual(ok(-3));
    expect(coerce(7.25, 'number', {})).toEqual(ok(7.25));
  });
  it('refuses thousands separators unless declared', () => {
    expect(coerce('1,234.5', 'number', {}).ok).toBe(false);
    expect(coerce('1,234.5', 'number', { thousands: ',' })).toEqual(ok(1234.5));
    expect(coerce('1.234,5', 'number', { thousands: '.' })).toEqual(ok(1234.5));
    expect(coerce('1 234,5', 'number', { thousands: ' ', decimal: ',' })).toEqual(ok(1234.5));
  });
  it('refuses a lone comma before three digits unless a mark is declared (a thousand, or a decimal?)', () => {
    expect(coerce('1,234', 'number', {})).toEqual({
      ok: false,
      expected: 'a number (is "1,234" a thousand or a decimal? set "decimal" or "thousands")',
    });
    expect(coerce('-12,500', 'number', {}).ok).toBe(false);
    expect(coerce('1,234', 'integer', {}).ok).toBe(false);
    expect(coerce('1,234', 'number', { decimal: ',' })).toEqual(ok(1.234));
    expect(coerce('1,234', 'number', { thousands: ',' })).toEqual(ok(1234));
    // Not ambiguous: a leading 0, or other than three digits after the comma.
    expect(coerce('0,350', 'number', {})).toEqual(ok(0.35));
    expect(coerce('12,50', 'number', {})).toEqual(ok(12.5));
    expect(coerce('1234,567', 'number', {})).toEqual(ok(1234.567));
  });
  it('refuses text and a declared decimal mark of the other kind', () => {
    expect(coerce('12,5O', 'number', {})).toEqual({ ok: false, expected: 'a number' });
    expect(coerce('12.5', 'number', { decimal: ',' }).ok).toBe(false);
    expect(coerce('', 'number', {}).ok).toBe(false);
  });
  it('reads the exponent form programs write for extreme values', () => {
    expect(coerce('5e-324', 'number', {})).toEqual(ok(5e-324));
    expect(coerce('1E21', 'number', {})).toEqual(ok(1e21));
    expect(coerce('1.5e+3', 'integer', {})).toEqual(ok(1500));
    expect(coerce('1e', 'number', {}).ok).toBe(false);
    expect(coerce('1e400', 'number', {}).ok).toBe(false);
  });
  it('reads integers and refuses fractions', () => {
    expect(coerce('42', 'integer', {})).toEqual(ok(42));
    expect(coerce(42, 'integer', {})).toEqual(ok(42));
    expect(coerce('4.2', 'integer', {})).toEqual({ ok: false, expected: 'a whole number' });
    expect(coerce(4.2, 'integer', {}).ok).toBe(false);
  });
  it('refuses a number a double cannot hold exactly, rather than write another one', () => {
    const inexact = (expected: string, becomes: string) => ({
      ok: false,
      expected: `${expected} of at most 15 significant digits (this one cannot be written exactly: ${becomes})`,
    });
    const past = 'past 2^53, it would become';
    expect(coerce('9007199254740993', 'integer', {})).toEqual(
      inexact('a whole number', `${past} 9007199254740992`),
    );
    expect(coerce('12345678901234567890', 'integer', {})).toEqual(
      inexact('a whole number', `${past} 12345678901234567000`),
    );
    expect(coerce('12345678901234567890', 'number', {})).toEqual(
      inexact('a number', `${past} 12345678901234567000`),
    );
    expect(coerce('0,12345678901234567891', 'number', {})).toEqual(
      inexact('a number', 'it would become 0.12345678901234568'),
    );
    // Long texts that are exact, or only long by their zeros.
    expect(coerce('9007199254740992', 'integer', {})).toEqual(ok(9007199254740992));
    expect(coerce('1000000000000000000000', 'number', {})).toEqual(ok(1e21));
    expect(coerce('12.500000000000000000', 'number', {})).toEqual(ok(12.5));
    expect(coerce('0.000000000000000001', 'number', {})).toEqual(ok(1e-18));
  });
});

describe('coerce booleans', () => {
  it.each([
    ['1', true],
    ['0', false],
    ['yes', true],
    ['No', false],
    ['true', true],
    ['TRUE', true],
    ['false', false],
  ])('%s -> %s', (text, value) => {
    expect(coerce(text, 'boolean', {})).toEqual(ok(value));
  });
  it('refuses anything else', () => {
    expect(coerce('maybe', 'boolean', {}).ok).toBe(false);
  });
});

describe('coerce dates', () => {
  it('keeps ISO dates and turns date-times to UTC with Z', () => {
    expect(coerce('2024-03-01', 'date', {})).toEqual(ok('2024-03-01'));
    expect(coerce('2024-03-01T10:00:00+02:00', 'date-time', {})).toEqual(ok('2024-03-01T08:00:00Z'));
    expect(coerce('2024-03-01 10:00', 'date-time', {})).toEqual(ok('2024-03-01T10:00:00Z'));
    expect(coerce('2024-03-01', 'date-time', {})).toEqual(ok('2024-03-01T00:00:00Z'));
  });
  it('reads local times in an IANA time zone, across daylight saving time', () => {
    expect(coerce('2024-01-15 10:00', 'date-time', { timezone: 'Europe/Paris' })).toEqual(
      ok('2024-01-15T09:00:00Z'),
    );
    expect(coerce('2024-07-15 10:00', 'date-time', { timezone: 'Europe/Paris' })).toEqual(
      ok('2024-07-15T08:00:00Z'),
    );
    expect(coerce('2024-07-15T10:00', 'date-time', { timezone: 'America/New_York' })).toEqual(
      ok('2024-07-15T14:00:00Z'),
    );
  });
  it('reads a declared layout', () => {
    expect(coerce('31/12/2024', 'date', { dateFormat: 'DD/MM/YYYY' })).toEqual(ok('2024-12-31'));
    expect(
      coerce('31/12/2024 23:30', 'date-time', { dateFormat: 'DD/MM/YYYY HH:mm', timezone: 'Europe/Paris' }),
    ).toEqual(ok('2024-12-31T22:30:00Z'));
  });
  it("a workbook's date cell (wall-clock, no zone) is read in its column's timezone, also under a layout", () => {
    const rule = { dateFormat: 'DD.MM.YYYY HH:mm', timezone: 'Europe/Berlin' };
    expect(coerce('2025-06-01T10:00:00.000', 'date-time', rule)).toEqual(ok('2025-06-01T08:00:00Z'));
    expect(coerce('2025-06-01T10:00:00.000', 'date-time', { timezone: 'Europe/Berlin' })).toEqual(
      ok('2025-06-01T08:00:00Z'),
    );
    expect(coerce('2025-06-01T10:00:00.000', 'date-time', {})).toEqual(ok('2025-06-01T10:00:00Z'));
    expect(coerce('2025-06-01T00:00:00.000', 'date', { dateFormat: 'DD.MM.YYYY' })).toEqual(ok('2025-06-01'));
    // Its text layout still reads as declared.
    expect(coerce('01.07.2025 08:00', 'date-time', rule)).toEqual(ok('2025-07-01T06:00:00Z'));
  });
  it('refuses impossible dates and other layouts', () => {
    expect(coerce('2024-02-30', 'date', {}).ok).toBe(false);
    expect(coerce('12/31/2024', 'date', {}).ok).toBe(false);
    expect(coerce('31/12/2024', 'date', { dateFormat: 'YYYY-MM-DD' }).ok).toBe(false);
  });
  it('refuses an offset past 23:59 (RFC 3339) rather than shift the time by days', () => {
    for (const text of [
      '2024-03-01T10:00:00+99:99',
      '2024-03-01T10:00:00+24:00',
      '2024-03-01T10:00:00-12:60',
    ])
      expect(coerce(text, 'date-time', {}).ok, text).toBe(false);
    expect(coerce('2024-03-01T10:00:00+23:59', 'date-time', {})).toEqual(ok('2024-02-29T10:01:00Z'));
  });
});
