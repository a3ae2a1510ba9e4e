// Encodings: UTF-8 with and without BOM, UTF-16 LE/BE with BOM, windows-1252 (named or detected).
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { expectCode, plain, readAll, tempFile } from './helpers.js';

const TEXT = 'sku;name;price\nA1;Café crème;3,50 €\nB2;Übergröße “XL”;12\n';
const EXPECTED = [
  { sku: 'A1', name: 'Café crème', price: '3,50 €' },
  { sku: 'B2', name: 'Übergröße “XL”', price: '12' },
];

describe('CSV encodings', () => {
  it('UTF-8 without BOM', async () => {
    const { source, rows } = await readAll(tempFile('u8.csv', TEXT));
    expect(source.encoding).toBe('utf-8');
    expect(rows.map(plain)).toEqual(EXPECTED);
  });

  it('UTF-8 with BOM: the BOM never reaches the first header', async () => {
    const { source, rows } = await readAll(tempFile('u8bom.csv', `\ufeff${TEXT}`));
    expect(source.headers[0]).toBe('sku');
    expect(rows.map(plain)).toEqual(EXPECTED);
  });

  for (const encoding of ['utf-16le', 'utf-16be'] as const) {
    it(`${encoding} with BOM`, async () => {
      const bytes = iconv.encode(TEXT, encoding, { addBOM: true });
      const { source, rows } = await readAll(tempFile(`${encoding}.csv`, bytes));
      expect(source.encoding).toBe(encoding);
      expect(source.headers[0]).toBe('sku');
      expect(rows.map(plain)).toEqual(EXPECTED);
    });
  }

  it('windows-1252 is detected when the bytes are not UTF-8, and said so in notes', async () => {
    const bytes = iconv.encode(TEXT, 'windows-1252');
    const { source, rows } = await readAll(tempFile('cp1252.csv', bytes));
    expect(source.encoding).toBe('windows-1252');
    expect(source.notes.join(' ')).toContain('windows-1252 detected');
    expect(rows.map(plain)).toEqual(EXPECTED);
  });

  it('a named legacy encoding is used as given', async () => {
    const latin = 'sku,name\nA,Ça va\n';
    const { source, rows } = await readAll(tempFile('latin1.csv', iconv.encode(latin, 'iso-8859-1')), {
      encoding: 'ISO-8859-1',
    });
    expect(source.encoding).toBe('iso-8859-1');
    expect(rows[0]!.cells.name).toBe('Ça va');
  });

  it('UTF-16 without a BOM, named with --encoding, is text (its zero bytes are not binary)', async () => {
    for (const encoding of ['utf-16le', 'utf-16be']) {
      const file = tempFile(`${encoding}-nobom.csv`, iconv.encode(TEXT, encoding, { addBOM: false }));
      const { rows } = await readAll(file, { encoding });
      expect(rows.map(plain), encoding).toEqual(EXPECTED);
    }
    // Not named: still refused as binary, not read as garbage.
    await expectCode(
      openSource(tempFile('nobom-unnamed.csv', iconv.encode(TEXT, 'utf-16le', { addBOM: false }))),
      'CSV_NOT_CSV',
    );
  });

  it('an unknown encoding name is an error', async () => {
    await expectCode(
      openSource(tempFile('any.csv', TEXT), { encoding: 'klingon-8' }),
      'ENCODING_UNSUPPORTED',
    );
  });

  it('bytes that are text in no supported encoding are one error', async () => {
    // 0x81 and 0x9d are undefined in windows-1252 and invalid as UTF-8 here.
    const bytes = Buffer.concat([
      Buffer.from('sku,name\nA,'),
      Buffer.from([0x81, 0x9d, 0x41]),
      Buffer.from('\n'),
    ]);
    await expectCode(openSource(tempFile('nowhere.csv', bytes)), 'ENCODING_UNSUPPORTED');
  });

  it('UTF-8 broken later in the file: the row with the bad byte is an ENCODING_INVALID row error, the rest is read', async () => {
    // Valid for the first 100,000 lines (past the detection sample), then one Latin-1 byte.
    const good = Buffer.from(`sku,name\n${'A,x\n'.repeat(100_000)}`);
    const bytes = Buffer.concat([
      good,
      Buffer.from('B,caf'),
      Buffer.from([0xe9, 0x0a]),
      Buffer.from('C,ok\n'),
    ]);
    const { source, rows } = await readAll(tempFile('broken-u8.csv', bytes));
    expect(source.encoding).toBe('utf-8');
    expect(rows).toHaveLength(100_002);
    const bad = rows.filter((row) => row.error);
    expect(bad.map((row) => row.error!.code)).toEqual(['ENCODING_INVALID']);
    expect(bad[0]!.location.text).toBe('line 100002');
    expect(bad[0]!.error!.message).toContain('line 100002, column "name"');
    expect(rows.at(-1)!.cells).toEqual({ sku: 'C', name: 'ok' });
  });

  it('UTF-8 text with a stray invalid byte near the start stays UTF-8 (not re-read as windows-1252)', async () => {
    const bytes = Buffer.concat([
      Buffer.from('sku,name\nA,Crème brûlée\nB,Größe\nC,'),
      Buffer.from([0xff]),
      Buffer.from('bad\nD,Ça va\n'),
    ]);
    const { source, rows } = await readAll(tempFile('stray-u8.csv', bytes));
    expect(source.encoding).toBe('utf-8');
    expect(source.notes.join(' ')).toContain('invalid byte');
    expect(rows.map((row) => row.cells.name)).toEqual(['Crème brûlée', 'Größe', '\ufffdbad', 'Ça va']);
    expect(rows.map((row) => row.error?.code ?? 'ok')).toEqual(['ok', 'ok', 'ENCODING_INVALID', 'ok']);
    expect(rows[2]!.error!.message).toContain('line 4, column "name"');
    // A declared encoding still wins.
    const again = await readAll(tempFile('stray-u8-named.csv', bytes), { encoding: 'windows-1252' });
    expect(again.rows.every((row) => !row.error)).toBe(true);
  });

  it('UTF-8 declared: an invalid byte in JSON and NDJSON records is a row error naming the column', async () => {
    const bad = Buffer.from([0xe9]);
    const ndjson = Buffer.concat([
      Buffer.from('{"sku":"A","name":"ok"}\n{"sku":"B","name":"caf'),
      bad,
      Buffer.from('"}\n{"sku":"C"}\n'),
    ]);
    const json = Buffer.concat([
      Buffer.from('[{"sku":"A"},{"sku":"B","d":{"name":"caf'),
      bad,
      Buffer.from('"}},{"sku":"C"}]'),
    ]);
    for (const [name, bytes, where] of [
      ['bad.ndjson', ndjson, 'line 2, column "name"'],
      ['bad.json', json, 'item 2, column "d.name"'],
    ] as const) {
      const { rows } = await readAll(tempFile(name, bytes), { encoding: 'utf-8' });
      expect(
        rows.map((row) => row.error?.code ?? 'ok'),
        name,
      ).toEqual(['ok', 'ENCODING_INVALID', 'ok']);
      expect(rows[1]!.error!.message).toContain(where);
    }
  });
});
