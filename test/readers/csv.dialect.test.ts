// CSV dialects: delimiters, line endings, quoting, header position, blank lines, ragged rows, headers.
import { describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { expectCode, plain, readAll, tempFile } from './helpers.js';

describe('CSV delimiters', () => {
  for (const [name, delimiter] of [
    ['comma', ','],
    ['semicolon', ';'],
    ['tab', '\t'],
    ['pipe', '|'],
  ] as const) {
    it(`detects ${name}`, async () => {
      const text = ['sku,name,price', 'A1,"Hat, red",9.5', 'B2,Cap,3'].join('\n').replaceAll(',', delimiter);
      // The quoted cell keeps a comma inside even when the delimiter is not a comma.
      const fixed = text.replace(`Hat${delimiter} red`, 'Hat, red');
      const { source, rows } = await readAll(tempFile(`d-${name}.csv`, fixed));
      expect(source.delimiter).toBe(delimiter);
      expect(plain(rows[0])).toEqual({ sku: 'A1', name: 'Hat, red', price: '9.5' });
      expect(rows).toHaveLength(2);
    });
  }

  it("Excel's `sep=;` first line names the delimiter, and the header is the line after it", async () => {
    const { source, rows } = await readAll(
      tempFile('sep-hint.csv', 'sep=;\r\nsku;name\r\nA;Ça, va\r\nB;x\r\n'),
    );
    expect(source.headers).toEqual(['sku', 'name']);
    expect(rows.map((r) => [r.location.text, r.cells.sku, r.cells.name])).toEqual([
      ['line 3', 'A', 'Ça, va'],
      ['line 4', 'B', 'x'],
    ]);
    expect(source.notes).toContain('line 1 "sep=;" names the delimiter; the header is line 2');
    // A header that merely starts with "sep" is a header.
    const plain = await readAll(tempFile('sep-name.csv', 'sepal;width\n1;2\n'));
    expect(plain.source.headers).toEqual(['sepal', 'width']);
  });

  it('takes the delimiter option over detection', async () => {
    const { source, rows } = await readAll(tempFile('forced.csv', 'a;b,c\n1;2,3\n'), { delimiter: ',' });
    expect(source.delimiter).toBe(',');
    expect(source.headers).toEqual(['a;b', 'c']);
    expect(rows[0]!.cells['a;b']).toBe('1;2');
  });

  it("a one-row export whose row holds `|` multi-values keeps the header's comma", async () => {
    const text = 'prod_ref,name,tags\nP1,Chair,a0|00|aa|01\n';
    const { source, rows } = await readAll(tempFile('one-row-multi.csv', text));
    expect(source.delimiter).toBe(',');
    expect(rows.map(plain)).toEqual([{ prod_ref: 'P1', name: 'Chair', tags: 'a0|00|aa|01' }]);
    expect(rows[0]!.error).toBeUndefined();
    // The same without a final newline: the last line is whole because the file ends there.
    const bare = await readAll(tempFile('one-row-multi-bare.csv', text.trimEnd()));
    expect(bare.source.delimiter).toBe(',');
  });

  it('a pipe file whose cells hold commas is read at the pipe (the header has no comma)', async () => {
    const text = 'sku|name\nA1|Hat, red, wide\nB2|Cap, blue\n';
    const { source, rows } = await readAll(tempFile('pipe-commas.csv', text));
    expect(source.delimiter).toBe('|');
    expect(rows.map(plain)).toEqual([
      { sku: 'A1', name: 'Hat, red, wide' },
      { sku: 'B2', name: 'Cap, blue' },
    ]);
  });

  it("a delimiter counted only outside quotes; the one with the header's field count on every record wins", async () => {
    // `;` appears in every line but inside quotes on the records; `,` splits all of them into 3.
    const text = 'sku,"name;full",price\nA1,"Hat; red",9\nB2,"Cap; blue",3\n';
    const { source, rows } = await readAll(tempFile('quoted-semicolons.csv', text));
    expect(source.delimiter).toBe(',');
    expect(rows.map(plain)[1]).toEqual({ sku: 'B2', 'name;full': 'Cap; blue', price: '3' });
  });

  it('among delimiters that fit equally, `;` wins over TAB and `|`', async () => {
    const text = 'a;b\tc|d\n1;2\t3|4\n';
    const { source } = await readAll(tempFile('tie.csv', text));
    expect(source.delimiter).toBe(';');
  });

  it('rejects a delimiter that cannot be one', async () => {
    await expectCode(openSource(tempFile('bad-delim.csv', 'a\n1\n'), { delimiter: '"' }), 'CONFIG_INVALID');
  });
});

describe('CSV line endings and quoting', () => {
  it('reads CRLF, LF, a mix, and no final newline the same way', async () => {
    const variants = [
      'sku,name\r\nA,x\r\nB,y\r\n',
      'sku,name\nA,x\nB,y\n',
      'sku,name\r\nA,x\nB,y',
      'sku,name\rA,x\rB,y\r',
    ];
    for (const [i, text] of variants.entries()) {
      const { rows } = await readAll(tempFile(`eol-${i}.csv`, text));
      expect(rows.map(plain), JSON.stringify(text)).toEqual([
        { sku: 'A', name: 'x' },
        { sku: 'B', name: 'y' },
      ]);
      expect(rows.map((row) => row.location.line)).toEqual([2, 3]);
    }
  });

  it('keeps quoted cells spanning lines and reports the line each record starts on', async () => {
    const text = 'sku,description\nA,"first\nsecond\r\nthird"\nB,"say ""hi"""\n\n\nC,plain\n';
    const { rows } = await readAll(tempFile('multiline.csv', text));
    expect(rows.map((row) => row.location.text)).toEqual(['line 2', 'line 5', 'line 8']);
    expect(rows[0]!.cells.description).toBe('first\nsecond\nthird');
    expect(rows[1]!.cells.description).toBe('say "hi"');
  });

  it('reports a quote that never closes as one file error with its line', async () => {
    const source = await openSource(tempFile('unclosed.csv', 'sku,name\nA,x\nB,"never closed\nC,z\n'));
    const rows = source.rows[Symbol.asyncIterator]();
    expect((await rows.next()).value?.cells.sku).toBe('A');
    const error = await expectCode(rows.next(), 'CSV_QUOTE_NOT_CLOSED');
    expect(error.location).toBe('line 3');
  });
});

describe('CSV header', () => {
  it('reads the header from headerRow and skips the lines above it', async () => {
    const text = 'Supplier export\ngenerated 2024-01-01\nsku;name\nA;x\n';
    const { source, rows } = await readAll(tempFile('header-row.csv', text), { headerRow: 3 });
    expect(source.headers).toEqual(['sku', 'name']);
    expect(source.delimiter).toBe(';');
    expect(rows[0]!.location.text).toBe('line 4');
  });

  it('skips blank lines before the header and between rows', async () => {
    const { source, rows } = await readAll(tempFile('blank.csv', '\n\nsku,name\n\nA,x\n   \nB,y\n\n'));
    expect(source.headers).toEqual(['sku', 'name']);
    expect(rows.map((row) => [row.location.line, row.index])).toEqual([
      [5, 1],
      [7, 2],
    ]);
  });

  it('drops a trailing empty header from a trailing delimiter', async () => {
    const { source, rows } = await readAll(tempFile('trailing.csv', 'a;b;\n1;2;\n3;4\n'));
    expect(source.headers).toEqual(['a', 'b']);
    expect(rows.map((row) => row.error)).toEqual([undefined, undefined]);
  });

  it('an empty header name is a file error naming the column', async () => {
    const error = await expectCode(openSource(tempFile('empty-h.csv', 'a,,c\n1,2,3\n')), 'CSV_HEADER_EMPTY');
    expect(error.message).toContain('column 2');
    expect(error.location).toBe('line 1');
  });

  it('a duplicate header name is a file error naming it', async () => {
    const error = await expectCode(
      openSource(tempFile('dup-h.csv', 'sku,name,sku\n1,2,3\n')),
      'CSV_HEADER_DUPLICATE',
    );
    expect(error.message).toContain('"sku"');
  });
});

describe('CSV ragged rows', () => {
  it('a row with filled cells beyond the header is a row error with both counts; reading goes on', async () => {
    const { source, rows } = await readAll(
      tempFile('ragged.csv', 'a,b,c\n1,2,3\n1,2\n1,2,3,4\n1,2,3,\n1,2,3,,,\n5,6,7\n'),
    );
    expect(rows).toHaveLength(6);
    expect(rows[0]!.error).toBeUndefined();
    // shorter: the missing cell at the end is empty, the file gets one note
    expect(rows[1]!.error).toBeUndefined();
    expect(plain(rows[1])).toEqual({ a: '1', b: '2', c: '' });
    expect(rows[2]!.error?.code).toBe('CSV_ROW_LENGTH');
    expect(rows[2]!.error?.message).toContain('has 4');
    expect(rows[2]!.error?.message).toContain('has 3');
    // a line ending in the delimiter, or in several empty cells: tolerated
    expect(rows[3]!.error).toBeUndefined();
    expect(rows[4]!.error).toBeUndefined();
    expect(plain(rows[4])).toEqual({ a: '1', b: '2', c: '3' });
    expect(plain(rows[5])).toEqual({ a: '5', b: '6', c: '7' });
    expect(source.notes.filter((note) => note.includes('fewer cells'))).toEqual([
      '1 row has fewer cells than the header (2 of 3; first on line 3): the missing cells at the end were read as empty',
    ]);
  });
});
