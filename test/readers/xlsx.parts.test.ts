// The workbook parts the XLSX reader reads before a sheet: relationships, workbook, shared strings, styles.
import { describe, expect, it } from 'vitest';
import {
  partOfType,
  readDateStyles,
  readRelationships,
  readSharedStrings,
  readWorkbook,
} from '../../src/readers/xlsx/parts.js';

async function* bytes(xml: string): AsyncGenerator<Buffer> {
  yield Buffer.from(xml);
}

const NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

describe('workbook parts', () => {
  it('resolves relationship targets, relative or absolute, and finds parts by type', async () => {
    const rels = await readRelationships(
      bytes(
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
          <Relationship Id="rId1" Type="${NS}/worksheet" Target="worksheets/sheet2.xml"/>
          <Relationship Id="rId2" Type="${NS}/worksheet" Target="/xl/worksheets/sheet1.xml"/>
          <Relationship Id="rId3" Type="${NS}/sharedStrings" Target="../xl/sharedStrings.xml"/>
          <Relationship Id="rId4" Type="${NS}/hyperlink" Target="https://example.invalid" TargetMode="External"/>
        </Relationships>`,
      ),
      'xl/_rels/workbook.xml.rels',
    );
    expect(rels.get('rId1')?.path).toBe('xl/worksheets/sheet2.xml');
    expect(rels.get('rId2')?.path).toBe('xl/worksheets/sheet1.xml');
    expect(partOfType(rels, 'sharedStrings')).toBe('xl/sharedStrings.xml');
    expect(rels.has('rId4')).toBe(false);
  });

  it('lists the sheets in workbook order, whatever their files are called, and reads the date system', async () => {
    const rels = new Map([
      ['rId7', { type: `${NS}/worksheet`, path: 'xl/worksheets/sheet9.xml' }],
      ['rId3', { type: `${NS}/worksheet`, path: 'xl/worksheets/sheet1.xml' }],
      ['rId5', { type: `${NS}/styles`, path: 'xl/styles.xml' }],
    ]);
    const workbook = await readWorkbook(
      bytes(
        `<workbook xmlns:rel="${NS}"><workbookPr date1904="1"/><sheets>
          <sheet name="Summary" sheetId="1" rel:id="rId7"/><sheet name="Data" sheetId="2" rel:id="rId3"/>
        </sheets></workbook>`,
      ),
      rels,
    );
    expect(workbook).toEqual({
      sheets: [
        { name: 'Summary', path: 'xl/worksheets/sheet9.xml' },
        { name: 'Data', path: 'xl/worksheets/sheet1.xml' },
      ],
      date1904: true,
      styles: 'xl/styles.xml',
    });
  });

  it('reads shared strings: plain, rich (runs joined), phonetic guides left out, empty kept in place', async () => {
    const strings = await readSharedStrings(
      bytes(
        `<sst><si><t>sku</t></si><si><r><rPr><b/></rPr><t>bold </t></r><r><t>and plain</t></r></si>
          <si><t>東京</t><rPh sb="0" eb="2"><t>とうきょう</t></rPh></si><si><t/></si><si><t>A &amp; B</t></si></sst>`,
      ),
    );
    expect(strings).toEqual(['sku', 'bold and plain', '東京', '', 'A & B']);
  });

  it("tells which cell styles show dates: custom formats and Excel's built-in date formats", async () => {
    const isDate = await readDateStyles(
      bytes(
        `<styleSheet><numFmts><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/><numFmt numFmtId="165" formatCode="0.000"/></numFmts>
          <cellStyleXfs><xf numFmtId="14"/></cellStyleXfs>
          <cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="14"/><xf numFmtId="2"/><xf numFmtId="47"/></cellXfs></styleSheet>`,
      ),
    );
    // cellStyleXfs are not cell styles: style 0 is the first of cellXfs. Style 6 does not exist.
    expect([0, 1, 2, 3, 4, 5, 6].map(isDate)).toEqual([false, true, false, true, false, true, false]);
  });

  it('a malformed part is an error', async () => {
    await expect(readSharedStrings(bytes('<sst><si><t>open</si></sst>'))).rejects.toThrow();
  });
});
