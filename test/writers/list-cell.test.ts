// One rule for a list in a cell: the export's join escapes what the import's split would otherwise cut.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinItems, splitItems } from '../../src/writers/list-cell.js';

describe('list cells', () => {
  it('an item holding the separator or backslashes comes back whole', () => {
    expect(joinItems(['x|y', 'z'], '|')).toBe('x\\|y|z');
    expect(splitItems('x\\|y|z', '|')).toEqual(['x|y', 'z']);
    expect(joinItems(['back\\', 'n'], '|')).toBe('back\\\\|n');
    expect(splitItems('back\\\\|n', '|')).toEqual(['back\\', 'n']);
  });

  it("a supplier's backslash that escapes nothing is plain text", () => {
    expect(splitItems('C:\\images\\a.jpg|b.jpg', '|')).toEqual(['C:\\images\\a.jpg', 'b.jpg']);
    expect(joinItems(['C:\\images\\a.jpg'], '|')).toBe('C:\\images\\a.jpg');
    expect(splitItems('a;b', '|')).toEqual(['a;b']);
  });

  it('property: split(join(items)) is the items, for a one-character separator', () => {
    const item = fc
      .array(fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('|', '\\', ';', ',', '\\|', '\\\\')), {
        maxLength: 5,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.array(item, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('|', ';', ','),
        (items, sep) => {
          expect(splitItems(joinItems(items, sep), sep)).toEqual(items);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
