// XLSX text as ECMA-376 spells it: `_xHHHH_` for what XML cannot hold or changes (a CR), `_x005F_` before
// a literal `_xHHHH_`. The export and the rejects file write so, the reader decodes: every text comes
// back exactly, and a workbook Excel saved (a CR in a cell is `_x000D_` there) reads as Excel shows it.

import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createXlsxSink } from '../../src/writers/export/index.js';
import { decodeXlsxText, encodeXlsxText } from '../../src/writers/xlsx-text.js';
import { readAll, tempPath } from '../readers/helpers.js';

describe('XLSX text escapes', () => {
  it('encodes what XML cannot carry and literal escapes; decoding gives the text back', () => {
    expect(encodeXlsxText('l1\r\nl2')).toBe('l1_x000D_\nl2');
    expect(encodeXlsxText('bell\u0007')).toBe('bell_x0007_');
    expect(encodeXlsxText('code _x0041_ here')).toBe('code _x005F_x0041_ here');
    expect(encodeXlsxText('plain text, tab\tand\nline')).toBe('plain text, tab\tand\nline');
    expect(decodeXlsxText('l1_x000D_\nl2')).toBe('l1\r\nl2');
    expect(decodeXlsxText('code _x005F_x0041_ here')).toBe('code _x0041_ here');
    expect(decodeXlsxText('_x0041__x0042_')).toBe('AB');
  });

  it('property: decode(encode(text)) is the text', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('_x0041_', '_x005F_', '_x000D_', '\r', '\u0007', '_x', '_', 'x0041_'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        expect(decodeXlsxText(encodeXlsxText(text))).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });

  it('an exported workbook reads back exactly: CR, control characters, literal escapes', async () => {
    const file = tempPath('escapes.xlsx');
    const sink = createXlsxSink(file);
    const table = await sink.table('products', [
      { header: 'prod_ref', kind: 'text' },
      { header: 'prod_description', kind: 'text' },
    ]);
    const texts = ['l1\r\nl2', '\rCR first', 'ctl\u0007\u001f', 'literal _x0041_ and _x005F_', 'plain'];
    for (const [i, text] of texts.entries()) await table.writeRow([`E-${i}`, text]);
    await table.close();
    await sink.close();
    const { rows } = await readAll(file);
    expect(rows.map((r) => r.cells.prod_description)).toEqual(texts);
  });

  it('a workbook saved as Excel saves it (shared strings, a CR as _x000D_) reads as Excel shows it', async () => {
    const workbook = new ExcelJS.Workbook();
    // exceljs writes the text as given: here, the escapes Excel itself would have written.
    workbook.addWorksheet('Data').addRows([
      ['sku', 'note'],
      ['A', 'line 1_x000D_\nline 2'],
      ['B', 'an underscore code _x005F_x0041_'],
    ]);
    const file = tempPath('excel-saved.xlsx');
    await workbook.xlsx.writeFile(file);
    const { rows } = await readAll(file);
    expect(rows.map((r) => r.cells.note)).toEqual(['line 1\r\nline 2', 'an underscore code _x0041_']);
  });
});
