// The worksheet XML reader: what Excel and other writers put in `xl/worksheets/sheetN.xml`, read into
// cells, whatever the chunking of the bytes.
import { describe, expect, it } from 'vitest';
import { isDateFormat } from '../../src/readers/xlsx/parts.js';
import { columnOf, type SheetContext, sheetRowBatches } from '../../src/readers/xlsx/sheet.js';

const context: SheetContext = {
  sharedStrings: ['sku', 'name', 'bold and plain'],
  // Style 1 shows a date, style 2 a decimal number.
  isDateStyle: (style) => style === 1,
  date1904: false,
  maxRowBytes: Number.POSITIVE_INFINITY,
};

function sheet(rows: string, prefix = ''): string {
  const p = prefix ? `${prefix}:` : '';
  const ns = prefix ? `xmlns:${prefix}` : 'xmlns';
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${p}worksheet ${ns}="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><${p}dimension ref="A1:C3"/><${p}sheetData>${rows}</${p}sheetData></${p}worksheet>`;
}

async function read(xml: string | Buffer, chunkBytes = 1 << 16, ctx = context) {
  const bytes = typeof xml === 'string' ? Buffer.from(xml) : xml;
  async function* chunks() {
    for (let at = 0; at < bytes.length; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes);
  }
  const rows = [];
  for await (const batch of sheetRowBatches(chunks(), ctx)) rows.push(...batch);
  return rows.map((row) => ({ number: row.number, values: Array.from(row.values, (v) => v ?? null) }));
}

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

describe('worksheet XML', () => {
  it('reads every cell type: shared, inline and formula texts, numbers, dates, booleans, errors', async () => {
    const xml = sheet(
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>' +
        '<row r="2"><c r="A2" t="inlineStr"><is><t>A &amp; B</t></is></c><c r="B2" s="1"><v>45351.5729166667</v></c>' +
        '<c r="C2" s="2"><v>19.5</v></c><c r="D2" t="b"><v>1</v></c><c r="E2" t="e"><v>#N/A</v></c>' +
        '<c r="F2" t="str"><f>A2&amp;"x"</f><v>A &amp; Bx</v></c><c r="G2"><f>C2*2</f><v>39</v></c>' +
        '<c r="H2" t="b"><f>TRUE()</f><v>0</v></c><c r="I2" t="d"><v>2024-02-29T13:45:00</v></c></row>',
    );
    expect(await read(xml)).toEqual([
      { number: 1, values: ['sku', 'name', 'bold and plain'] },
      {
        number: 2,
        values: [
          'A & B',
          '2024-02-29T13:45:00.000',
          19.5,
          true,
          '#N/A',
          'A & Bx',
          39,
          false,
          '2024-02-29T13:45:00',
        ],
      },
    ]);
  });

  it('leaves holes for skipped columns and reads styled cells without a value as empty', async () => {
    const xml = sheet('<row r="4"><c r="B4" s="2"/><c r="D4"><v>7</v></c><c r="E4" t="s"></c></row>');
    expect(await read(xml)).toEqual([{ number: 4, values: [null, null, null, 7] }]);
  });

  it('joins the runs of a rich inline text and leaves out its phonetic guide', async () => {
    const xml = sheet(
      '<row r="1"><c r="A1" t="inlineStr"><is><r><rPr><b/></rPr><t>東京</t></r><r><t xml:space="preserve"> tower </t></r>' +
        '<rPh sb="0" eb="2"><t>とうきょう</t></rPh></is></c></row>',
    );
    expect(await read(xml)).toEqual([{ number: 1, values: ['東京 tower '] }]);
  });

  it('numbers rows and cells that leave out `r` from the ones before them', async () => {
    const xml = sheet(
      '<row><c t="inlineStr"><is><t>a</t></is></c><c><v>1</v></c></row><row><c r="C2"><v>3</v></c><c><v>4</v></c></row>',
    );
    expect(await read(xml)).toEqual([
      { number: 1, values: ['a', 1] },
      { number: 2, values: [null, null, 3, 4] },
    ]);
  });

  it('reads sheets whose element names carry a namespace prefix', async () => {
    const xml = sheet(
      '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>sku</x:t></x:is></x:c></x:row>',
      'x',
    );
    expect(await read(xml)).toEqual([{ number: 1, values: ['sku'] }]);
  });

  it('keeps characters split between chunks whole (UTF-8 read in one-byte chunks)', async () => {
    const xml = sheet('<row r="1"><c r="A1" t="inlineStr"><is><t>Crème brûlée 🍮 €12</t></is></c></row>');
    expect(await read(xml, 1)).toEqual([{ number: 1, values: ['Crème brûlée 🍮 €12'] }]);
    expect(await read(xml, 3)).toEqual(await read(xml));
  });

  it('counts dates from 1904 when the workbook says so', async () => {
    const xml = sheet('<row r="1"><c r="A1" s="1"><v>0</v></c></row>');
    expect(await read(xml, 1 << 16, { ...context, date1904: true })).toEqual([
      { number: 1, values: ['1904-01-01'] },
    ]);
  });

  it('a damaged sheet fails after the rows read before the damage', async () => {
    const xml = `${sheet('<row r="1"><c r="A1"><v>1</v></c></row>').replace('</sheetData></worksheet>', '')}<row r="2"><c r="A2"><v>2</c></row>`;
    const seen: number[] = [];
    const failure = await (async () => {
      for await (const batch of sheetRowBatches(once(Buffer.from(xml)), context))
        for (const row of batch) seen.push(row.number);
    })().catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(seen).toEqual([1]);
  });
});

describe('cell references and number formats', () => {
  it('reads the column of a reference', () => {
    expect([columnOf('A1'), columnOf('Z9'), columnOf('AA10'), columnOf('BC17'), columnOf('XFD1')]).toEqual([
      1, 26, 27, 55, 16384,
    ]);
    expect(columnOf('17')).toBe(0);
  });

  it('tells date formats from number formats', () => {
    for (const format of ['yyyy-mm-dd', 'm/d/yy', 'DD.MM.YYYY', 'h:mm:ss', '[$-409]mmmm d, yyyy', 'mm-dd-yy'])
      expect(isDateFormat(format), format).toBe(true);
    for (const format of ['0.00', '#,##0 "days"', '[Red]0.0', 'General', '0%', '@', undefined])
      expect(isDateFormat(format), String(format)).toBe(false);
  });
});
