// A workbook of several sheets read without --sheet: the first is read, and a note names the others, so
// they are never skipped silently.
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { openSource, sheetsReadWhole, workbookSheets } from '../../src/readers/index.js';
import { tempPath } from './helpers.js';

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

describe('which files are workbooks of sheets', () => {
  it('a macro-enabled .xlsm lists its sheets like an .xlsx, so it is imported whole', async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('categories').addRows([['cat_ref'], ['C-1']]);
    workbook.addWorksheet('products').addRows([['prod_ref'], ['P-1']]);
    const file = tempPath('book.xlsm');
    await workbook.xlsx.writeFile(file);
    expect(await workbookSheets(file)).toEqual(['categories', 'products']);
    expect(await sheetsReadWhole(file)).toEqual(['categories', 'products']);
  });
});
