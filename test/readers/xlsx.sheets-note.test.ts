// A workbook of several sheets read without --sheet: the first is read, and a note names the others, so
// they are never skipped silently.
import { describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';

async function notesOf(sheets?: string[]): Promise<string[]> {
  const source = await openSource('samples/catalog.xlsx', sheets ? { sheet: sheets } : {});
  try {
    for await (const _ of source.rows);
    return source.notes;
  } finally {
    await source.close();
  }
}

describe('sheets not read', () => {
  it('are named in a note when no sheet was asked for', async () => {
    const notes = await notesOf();
    expect(notes.filter((n) => n.startsWith('only sheet'))).toEqual([
      expect.stringMatching(
        /^only sheet "\w+" was read; the workbook also has "\w+".*: name one with --sheet$/,
      ),
    ]);
  });

  it('say nothing when --sheet chose', async () => {
    const notes = await notesOf(['Products']);
    expect(notes.some((n) => n.startsWith('only sheet'))).toBe(false);
  });
});
