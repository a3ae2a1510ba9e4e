// UTF-8 decoding chunk by chunk: characters and BOMs cut between chunks, invalid bytes anywhere.
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/readers/encoding.js';
import { expectCode } from './helpers.js';

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function decodeAll(bytes: Buffer, size: number): Promise<string> {
  let text = '';
  for await (const part of decode(pieces(bytes, size), 'utf-8', 'test.csv')) text += part;
  return text;
}

const TEXT = 'sku,name\nA,Caf\u00e9\nB,\u65e5\u672c\u8a9e\nC,\ud83d\ude00 smile\n';

describe('UTF-8 decoding', () => {
  it('gives the same text at every chunk size, the BOM dropped', async () => {
    const bytes = Buffer.from(`\ufeff${TEXT}`);
    for (const size of [1, 2, 3, 4, 5, 7, 64]) expect(await decodeAll(bytes, size)).toBe(TEXT);
  });

  it('keeps a BOM-like character that is not at the start', async () => {
    const bytes = Buffer.from(`a\ufeffb`);
    for (const size of [1, 2, 64]) expect(await decodeAll(bytes, size)).toBe('a\ufeffb');
  });

  it('a file of only part of a BOM is invalid', async () => {
    await expectCode(decodeAll(Buffer.from([0xef, 0xbb]), 1), 'ENCODING_UNSUPPORTED');
  });

  it('invalid bytes are an error naming their line, wherever the chunks are cut', async () => {
    const bytes = Buffer.concat([Buffer.from('a\nb\nc,'), Buffer.from([0xe9]), Buffer.from(' d\ne\n')]);
    for (const size of [1, 3, 64]) {
      const error = await expectCode(decodeAll(bytes, size), 'ENCODING_UNSUPPORTED');
      expect(error.location).toContain('line 3');
    }
  });

  it('a character cut short by the end of the file is invalid', async () => {
    const bytes = Buffer.concat([Buffer.from('a\nb'), Buffer.from([0xe6, 0x97])]);
    for (const size of [1, 2, 64]) await expectCode(decodeAll(bytes, size), 'ENCODING_UNSUPPORTED');
  });

  it('encoded surrogates and overlong forms are invalid', async () => {
    await expectCode(decodeAll(Buffer.from([0x61, 0xed, 0xa0, 0x80]), 64), 'ENCODING_UNSUPPORTED');
    await expectCode(decodeAll(Buffer.from([0x61, 0xc0, 0xaf]), 64), 'ENCODING_UNSUPPORTED');
  });
});
