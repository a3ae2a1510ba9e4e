// Bytes to text: BOM detection, UTF-8 validation with a windows-1252 fallback, UTF-16, and any
// single-byte encoding iconv-lite knows. A BOM never reaches the text.
import iconv from 'iconv-lite';
import { CatalogIoError } from '../errors.js';

export interface DecodedText {
  encoding: string;
  notes: string[];
  text: AsyncIterable<string>;
}

/** Bytes that windows-1252 leaves undefined: a file holding them is text in no encoding we support. */
const UNDEFINED_IN_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

export function bomEncoding(head: Buffer): 'utf-8' | 'utf-16le' | 'utf-16be' | undefined {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** True when the bytes look like a binary file rather than text (NUL bytes, many control bytes). */
export function looksBinary(head: Buffer): boolean {
  if (bomEncoding(head)?.startsWith('utf-16')) return false;
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return true;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) control++;
  }
  return control > head.length / 100;
}

function isValidUtf8(head: Buffer, complete: boolean): boolean {
  try {
    // `stream: true` when the head is cut: a sequence split at its end is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

/** Chooses the encoding: the option, else the BOM, else UTF-8 when valid, else windows-1252. */
export function detectEncoding(
  head: Buffer,
  complete: boolean,
  requested: string | undefined,
  sourceName: string,
): { encoding: string; notes: string[] } {
  const bom = bomEncoding(head);
  if (requested) {
    const encoding = normalizeEncoding(requested);
    return { encoding: bom && encoding.startsWith('utf') ? bom : encoding, notes: [] };
  }
  if (bom) return { encoding: bom, notes: [`encoding ${bom} detected (byte-order mark)`] };
  if (isValidUtf8(head, complete)) return { encoding: 'utf-8', notes: [] };
  for (const byte of head) {
    if (UNDEFINED_IN_1252.has(byte)) {
      throw new CatalogIoError(
        'ENCODING_UNSUPPORTED',
        `Unknown text encoding: ${sourceName} is neither UTF-8 nor windows-1252 (byte 0x${byte.toString(16)}); name the encoding with --encoding`,
      );
    }
  }
  return {
    encoding: 'windows-1252',
    notes: ['encoding windows-1252 detected (the bytes are not valid UTF-8)'],
  };
}

export function normalizeEncoding(name: string): string {
  const lower = name.trim().toLowerCase();
  if (lower === 'utf8') return 'utf-8';
  if (lower === 'utf16le' || lower === 'ucs2' || lower === 'utf-16') return 'utf-16le';
  if (lower === 'utf16be') return 'utf-16be';
  if (!iconv.encodingExists(lower)) {
    throw new CatalogIoError('ENCODING_UNSUPPORTED', `Unknown encoding: "${name}"`, {
      expected: 'utf-8, utf-16le, utf-16be, windows-1252, iso-8859-1 or another iconv-lite encoding',
    });
  }
  return lower;
}

/** Decodes a byte stream; invalid UTF-8 is an error naming the byte offset, never silent U+FFFD. */
export async function* decode(
  chunks: AsyncIterable<Buffer>,
  encoding: string,
  sourceName: string,
): AsyncGenerator<string> {
  if (encoding === 'utf-8' || encoding === 'utf-16le' || encoding === 'utf-16be') {
    const decoder = new TextDecoder(encoding, { fatal: encoding === 'utf-8' });
    // Where we are, so that invalid bytes can be named by line.
    let line = 1;
    let carried: Buffer = Buffer.alloc(0);
    for await (const chunk of chunks) {
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        throw invalidUtf8(sourceName, line, Buffer.concat([carried, chunk]));
      }
      carried = chunk.subarray(Math.max(0, chunk.length - 3));
      line += countLines(text);
      if (text) yield text;
    }
    let rest: string;
    try {
      rest = decoder.decode();
    } catch {
      throw invalidUtf8(sourceName, line, carried);
    }
    if (rest) yield rest;
    return;
  }
  const decoder = iconv.getDecoder(encoding);
  for await (const chunk of chunks) {
    const text = decoder.write(chunk);
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

function countLines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** The line of the first invalid sequence: decode leniently and look for the replacement character. */
function invalidUtf8(sourceName: string, lineAtChunk: number, chunk: Buffer): CatalogIoError {
  const lenient = new TextDecoder('utf-8').decode(chunk);
  const bad = lenient.indexOf('\ufffd');
  const line = lineAtChunk + (bad > 0 ? countLines(lenient.slice(0, bad)) : 0);
  return new CatalogIoError(
    'ENCODING_UNSUPPORTED',
    `Invalid UTF-8 in ${sourceName}: the bytes are not UTF-8 here; name the file's encoding with --encoding (e.g. windows-1252)`,
    { location: `line ${line}` },
  );
}
