// The plain lane's list reading (split and trim by character codes) against the rule it stands for:
// `split(separator)`, each piece trimmed, blank pieces dropped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTrimmed, type PlainColumn, plainCell } from '../../src/mappers/plain.js';

const list = (separator: string): PlainColumn => ({
  field: 'prod_tags',
  culture: undefined,
  ref: false,
  link: undefined,
  multiple: true,
  separator,
  type: 'string',
});

function byTheRule(text: string, separator: string): string[] | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return trimmed
    .split(separator)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '');
}

describe('plain lists', () => {
  it('takes off exactly what String.prototype.trim takes off, for every UTF-16 code unit', () => {
    const differ: number[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      const char = String.fromCharCode(code);
      if (isTrimmed(code) !== (`a${char}`.trim() === 'a')) differ.push(code);
    }
    expect(differ).toEqual([]);
  });

  it('reads a|b|c cells as split, trim and drop blanks would, for one- and two-character separators', () => {
    const piece = fc.stringMatching(/^[ \t\u00a0\u3000a-z|;,]{0,6}$/);
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.constantFrom('|', ';', '||', ', '), (pieces, sep) => {
        const text = pieces.join(sep);
        expect(plainCell(text, list(sep), false)).toEqual(byTheRule(text, sep));
      }),
      { seed: 20261125, numRuns: 2000 },
    );
  });

  it('keeps the cases people write', () => {
    expect(plainCell(' red | green |  | blue ', list('|'), false)).toEqual(['red', 'green', 'blue']);
    expect(plainCell('|single|', list('|'), false)).toEqual(['single']);
    expect(plainCell('a||b', list('||'), false)).toEqual(['a', 'b']);
    expect(plainCell(' | ', list('|'), false)).toEqual([]);
  });
});
