// UTF-8 decoding chunk by chunk: characters and BOMs cut between chunks, invalid bytes anywhere.
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/readers/encoding.js';

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function decodeAll(bytes: Buffer, size: number): Promise<string> {
  let text = '';
  for await (const part of decode(pieces(bytes, size), 'utf-8')) text += part;
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
    const { text, invalid } = await decodeCounting(Buffer.from([0xef, 0xbb]), 1);
    expect(text).toBe('\ufffd');
    expect(invalid).toBe(1);
  });

  it('invalid bytes become U+FFFD and are counted, wherever the chunks are cut; the rest is intact', async () => {
    const bytes = Buffer.concat([Buffer.from('a\nb\nc,'), Buffer.from([0xe9]), Buffer.from(' d\n\u00e9\n')]);
    for (const size of [1, 3, 64]) {
      const { text, invalid } = await decodeCounting(bytes, size);
      expect(text).toBe('a\nb\nc,\ufffd d\n\u00e9\n');
      expect(invalid).toBe(1);
    }
  });

  it('a character cut short by the end of the file is invalid', async () => {
    const bytes = Buffer.concat([Buffer.from('a\nb'), Buffer.from([0xe6, 0x97])]);
    for (const size of [1, 2, 64]) expect((await decodeCounting(bytes, size)).invalid).toBeGreaterThan(0);
  });

  it('encoded surrogates and overlong forms are invalid', async () => {
    expect((await decodeCounting(Buffer.from([0x61, 0xed, 0xa0, 0x80]), 64)).invalid).toBeGreaterThan(0);
    expect((await decodeCounting(Buffer.from([0x61, 0xc0, 0xaf]), 64)).invalid).toBeGreaterThan(0);
  });

  it('valid text counts nothing', async () => {
    expect((await decodeCounting(Buffer.from(TEXT), 3)).invalid).toBe(0);
  });
});

async function decodeCounting(bytes: Buffer, size: number): Promise<{ text: string; invalid: number }> {
  const status = { invalidSequences: 0 };
  let text = '';
  for await (const part of decode(pieces(bytes, size), 'utf-8', status)) text += part;
  return { text, invalid: status.invalidSequences };
}
