// A JSON or NDJSON number a double would change (an EAN or id written as a bare number past 2^53, a
// decimal with more digits than a double keeps, an exponent past its range) is given as its exact text,
// never as another number; the numbers a double holds stay numbers, and text stays text.
import { describe, expect, it } from 'vitest';
import { numberOrText, quoteLongNumbers } from '../../src/readers/json/numbers.js';
import { plain, readAll, tempFile } from './helpers.js';

const record =
  '{"ref":12345678901234567890,"id":9007199254740993,"safe":9007199254740991,"even":9007199254740994,' +
  '"price":19.99,"tiny":0.3000000000000000444,"huge":1e400,"neg":-12345678901234567890,' +
  '"text":"98765432109876543210","nested":{"gtin":40063813339310001},"list":[1,18446744073709551615],' +
  '"objects":[{"n":123456789012345678901}]}';

const expected = {
  ref: '12345678901234567890',
  id: '9007199254740993',
  safe: 9007199254740991,
  // Past 2^53 but held exactly: a double gives these digits back.
  even: 9007199254740994,
  price: 19.99,
  tiny: '0.3000000000000000444',
  huge: '1e400',
  neg: '-12345678901234567890',
  text: '98765432109876543210',
  'nested.gtin': '40063813339310001',
  list: [1, '18446744073709551615'],
  // An array of objects is its JSON text: the number's digits are kept there too, as a string.
  objects: '[{"n":"123456789012345678901"}]',
};

describe('numbers a double would change', () => {
  it('JSON: kept as their exact text; the numbers a double holds stay numbers', async () => {
    const { rows } = await readAll(tempFile('long-numbers.json', `[\n${record},\n{"ref":7,"id":0}\n]\n`));
    expect(rows.map((row) => row.error)).toEqual([undefined, undefined]);
    expect(plain(rows[0])).toEqual(expected);
    expect(plain(rows[1])).toEqual({ ref: 7, id: 0 });
  });

  it('JSON written on one line, the record cut between chunks: the same', async () => {
    const filler = Array.from({ length: 3000 }, (_, i) => `{"ref":${i},"note":"n${i}"}`).join(',');
    const { rows } = await readAll(tempFile('long-numbers-one-line.json', `[${filler},${record}]`));
    expect(rows).toHaveLength(3001);
    expect(plain(rows[3000])).toEqual(expected);
    expect(plain(rows[2999])).toEqual({ ref: 2999, note: 'n2999' });
  });

  it('NDJSON: the same, in a chunk parsed whole and in a line parsed alone', async () => {
    const lines = [
      '{"ref":1,"note":"a digit run in a string only: 123456789012345678901234"}',
      record,
      '{"ref":2,"esc":"\\"12345678901234567890","n":12345678901234567890}',
      '{"ref":3,"n":5}',
    ];
    const { rows } = await readAll(tempFile('long-numbers.ndjson', `${lines.join('\n')}\n`));
    expect(rows.map((row) => row.error)).toEqual([undefined, undefined, undefined, undefined]);
    expect(plain(rows[0])).toEqual({
      ref: 1,
      note: 'a digit run in a string only: 123456789012345678901234',
    });
    expect(plain(rows[1])).toEqual(expected);
    expect(plain(rows[2])).toEqual({ ref: 2, esc: '"12345678901234567890', n: '12345678901234567890' });
    expect(plain(rows[3])).toEqual({ ref: 3, n: 5 });
  });

  it('NDJSON: a broken line with a long number is still a syntax error at its own column', async () => {
    const text = '{"ref":1}\n{"n":12345678901234567890,"x":tru}\n{"n":012345678901234567890}\n{"ref":2}\n';
    const { rows } = await readAll(tempFile('long-numbers-broken.ndjson', text));
    expect(rows.map((row) => row.error?.code)).toEqual([undefined, 'JSON_SYNTAX', 'JSON_SYNTAX', undefined]);
    expect(rows[1]?.error?.message).toContain('line 2, column');
    // A leading zero is not JSON: quoting the number must not make the line valid.
    expect(rows[2]?.error?.message).toContain('line 3, column');
  });

  it('numberOrText and quoteLongNumbers: what is at risk', () => {
    expect(numberOrText('12')).toBe(12);
    expect(numberOrText('0')).toBe(0);
    expect(numberOrText('9007199254740992')).toBe(9007199254740992);
    expect(numberOrText('9007199254740993')).toBe('9007199254740993');
    expect(numberOrText('1152921504606846976')).toBe('1152921504606846976'); // 2^60: printed 1152921504606847000
    expect(numberOrText('100000000000000000000')).toBe(1e20);
    expect(numberOrText('1.000000000000000000')).toBe(1);
    expect(numberOrText('0.30000000000000004')).toBe(0.30000000000000004);
    expect(numberOrText('1e-400')).toBe('1e-400');
    expect(numberOrText('4.9e-324')).toBe('4.9e-324');
    expect(numberOrText('0e500')).toBe(0);
    expect(quoteLongNumbers('{"a":1,"b":"12345678901234567890"}')).toBeUndefined();
    expect(quoteLongNumbers('{"a":[12345678901234567890, 2]}')).toBe('{"a":["12345678901234567890", 2]}');
  });
});
