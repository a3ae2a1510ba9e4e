// Text without quotes is split by our own loop rather than papaparse's parser (records.ts,
// plainRecords): it must give exactly the records, and stop exactly where, papaparse does.
import fc from 'fast-check';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { plainRecords, quotedRecords } from '../../src/readers/csv/records.js';

function papaparse(input: string, delimiter: string, ignoreLastRow: boolean) {
  const parser = new Papa.Parser({ delimiter, newline: '\n', quoteChar: '"' });
  const result = parser.parse(input, 0, ignoreLastRow);
  return {
    records: result.data as string[][],
    consumed: result.meta.cursor as number,
    errors: result.errors,
  };
}

describe('plainRecords', () => {
  const delimiters = [',', ';', '\t', '|', '::'];

  it('gives papaparse records and end on any quote-free text', () => {
    // Few distinct characters, so delimiters, breaks, empty cells and empty lines come often.
    const text = fc
      .array(fc.constantFrom('a', 'b', ' ', ',', ';', '\t', '|', ':', '\n', '\u00e9', '\u{1F600}'), {
        maxLength: 80,
      })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(text, fc.constantFrom(...delimiters), fc.boolean(), (input, delimiter, ignoreLastRow) => {
        const { records, consumed } = papaparse(input, delimiter, ignoreLastRow);
        expect(plainRecords(input, delimiter, ignoreLastRow)).toEqual({ records, consumed });
      }),
      { numRuns: 3000 },
    );
  });

  it('from a line start, after records read apart: the same records as the text from there', () => {
    // The reader reads a record split between two chunks apart, then the rest of the chunk in place.
    const text = fc
      .array(fc.constantFrom('a', 'b', ',', ';', '\n', '\u00e9'), { maxLength: 60 })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(text, fc.nat(), fc.constantFrom(',', ';', '::'), (input, pick, delimiter) => {
        const starts = [0, ...[...input.matchAll(/\n/g)].map((m) => m.index + 1)];
        const start = starts[pick % starts.length]!;
        const rest = plainRecords(input.slice(start), delimiter, true);
        expect(plainRecords(input, delimiter, true, start, [['before']])).toEqual({
          records: [['before'], ...rest.records],
          consumed: start + rest.consumed,
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the last line for the next chunk, or reads it at the end', () => {
    expect(plainRecords('a,b\nc,d\ne', ',', true)).toEqual({
      records: [
        ['a', 'b'],
        ['c', 'd'],
      ],
      consumed: 8,
    });
    expect(plainRecords('a,b\ne', ',', false)).toEqual({ records: [['a', 'b'], ['e']], consumed: 5 });
    // A final break leaves one empty record, as papaparse's.
    expect(plainRecords('a\n', ',', false).records).toEqual([['a'], ['']]);
    expect(plainRecords('', ',', false)).toEqual({ records: [], consumed: 0 });
  });

  it('does not search the rest of the text again for every line without a delimiter', () => {
    // One column of 200,000 lines and a delimiter only at the very end: linear, not quadratic.
    const input = `${'x\n'.repeat(200_000)}a,b\n`;
    const { records, consumed } = plainRecords(input, ',', true);
    expect(records.length).toBe(200_001);
    expect(records[200_000]).toEqual(['a', 'b']);
    expect(consumed).toBe(input.length);
  });
});

/** The line breaks a record's cells hold. */
const breaksIn = (cells: string[]) => cells.reduce((n, cell) => n + cell.split('\n').length - 1, 0);

describe('quotedRecords', () => {
  const delimiters = [',', ';', '\t', '::'];

  it('gives papaparse records and end, without its errors, whenever it reads the text itself', () => {
    const text = fc
      .array(fc.constantFrom('a', ' ', '"', '"', ',', ';', '\t', ':', '\n', '\u00e9'), { maxLength: 60 })
      .map((chars) => chars.join(''));
    let read = 0;
    fc.assert(
      fc.property(text, fc.constantFrom(...delimiters), fc.boolean(), (input, delimiter, ignoreLastRow) => {
        const own = quotedRecords(input, delimiter, ignoreLastRow);
        if (!own) return;
        read++;
        const { records, consumed, errors } = papaparse(input, delimiter, ignoreLastRow);
        expect(errors).toEqual([]);
        expect({ records: own.records, consumed: own.consumed }).toEqual({ records, consumed });
        // Each record's line breaks, counted as it was read: the breaks its cells hold.
        expect(own.breaks).toEqual(records.map(breaksIn));
      }),
      { numRuns: 5000 },
    );
    // Most of these random texts have a malformed quote; enough are read here to mean something.
    expect(read).toBeGreaterThan(500);
  });

  it('reads every well-quoted file itself, as papaparse does', () => {
    const cell = fc
      .array(fc.constantFrom('a', 'b', ' ', '"', ',', ';', '\n', '\u00e9'), { maxLength: 8 })
      .map((chars) => chars.join(''));
    const file = fc.tuple(
      fc.array(fc.array(fc.tuple(cell, fc.boolean()), { minLength: 1, maxLength: 4 }), { maxLength: 6 }),
      fc.constantFrom(',', ';'),
      fc.integer({ min: 0, max: 200 }),
    );
    fc.assert(
      fc.property(file, ([rows, delimiter, cut]) => {
        // A cell that needs quotes is quoted; others only when the generator says so.
        const text = rows
          .map((row) =>
            row
              .map(([value, quote]) =>
                quote || /["\n,;]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value,
              )
              .join(delimiter),
          )
          .join('\n');
        // Cut anywhere, as a chunk ends: the unfinished record is left for the next one.
        const chunk = text.slice(0, cut);
        for (const [input, ignoreLastRow] of [
          [text, false],
          [`${text}\n`, true],
          [chunk, true],
        ] as const) {
          const own = quotedRecords(input, delimiter, ignoreLastRow);
          const { records, consumed } = papaparse(input, delimiter, ignoreLastRow);
          expect({ records: own?.records, consumed: own?.consumed }).toEqual({ records, consumed });
          expect(own?.breaks).toEqual(records.map(breaksIn));
          // Only the records given: an unfinished one left for the next chunk is not named.
          for (const at of own?.escapedQuotes?.keys() ?? []) expect(at).toBeLessThan(records.length);
        }
        // The whole text: each record names its cells that held a quote, all quoted here (`""`).
        const escaped = rows.flatMap((row, i) => {
          const texts = row.map(([value]) => value).filter((value) => value.includes('"'));
          return texts.length > 0 ? [[i, texts] as const] : [];
        });
        expect([...(quotedRecords(text, delimiter, false)?.escapedQuotes ?? [])]).toEqual(escaped);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves a closing quote followed by spaces or text, and an open quote at the end, to papaparse', () => {
    expect(quotedRecords('"a" ,b\n', ',', true)).toBeUndefined();
    expect(quotedRecords('"a"x,b\n', ',', true)).toBeUndefined();
    expect(quotedRecords('a,"b\nc', ',', false)).toBeUndefined();
    // Open at the end of a chunk: the record waits for the next one.
    expect(quotedRecords('x\na,"b\nc', ',', true)).toEqual({ records: [['x']], consumed: 2, breaks: [0] });
    // A quote inside a cell that does not start with one is text.
    expect(quotedRecords('a"b,c\n', ',', true)).toEqual({
      records: [['a"b', 'c']],
      consumed: 6,
      breaks: [0],
    });
  });
});
