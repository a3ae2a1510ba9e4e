// Bytes to text: BOM detection, UTF-8 validation with a windows-1252 fallback, UTF-16, and any
// single-byte encoding iconv-lite knows. A BOM never reaches the text.
import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { CatalogIoError } from '../errors.js';

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

/** Decodes a byte stream; invalid UTF-8 is an error naming the line, never silent U+FFFD. */
export async function* decode(
  chunks: AsyncIterable<Buffer>,
  encoding: string,
  sourceName: string,
): AsyncGenerator<string> {
  if (encoding === 'utf-8') {
    yield* decodeUtf8(chunks, sourceName);
    return;
  }
  if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    const decoder = new TextDecoder(encoding);
    for await (const chunk of chunks) {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
    }
    const rest = decoder.decode();
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

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * UTF-8 checked with `isUtf8` and turned into text with `Buffer#toString`: several times faster than
 * a fatal TextDecoder (see the benchmark section of docs/readers.md).
 * A sequence cut by the chunk's end waits for the next chunk; a leading BOM is dropped.
 */
async function* decodeUtf8(chunks: AsyncIterable<Buffer>, sourceName: string): AsyncGenerator<string> {
  // Where we are, so that invalid bytes can be named by line.
  let line = 1;
  let carried: Buffer | undefined;
  let atStart = true;
  for await (const chunk of chunks) {
    let bytes = carried ? Buffer.concat([carried, chunk]) : chunk;
    carried = undefined;
    if (atStart) {
      if (bytes.length < UTF8_BOM.length && bytes.every((byte, i) => byte === UTF8_BOM[i])) {
        carried = bytes; // too short to tell whether this is a BOM
        continue;
      }
      atStart = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    const end = completeEnd(bytes);
    const body = end === bytes.length ? bytes : bytes.subarray(0, end);
    if (!isUtf8(body)) throw invalidUtf8(sourceName, line, body);
    if (end < bytes.length) carried = Buffer.from(bytes.subarray(end));
    const text = body.toString('utf8');
    line += countLines(text);
    if (text) yield text;
  }
  if (carried && carried.length > 0) {
    // A sequence cut short by the end of the file (or a lone partial BOM).
    if (!isUtf8(carried)) throw invalidUtf8(sourceName, line, carried);
    yield carried.toString('utf8');
  }
}

/** Length of `bytes` without a multi-byte sequence that its end cuts short. */
function completeEnd(bytes: Buffer): number {
  const length = bytes.length;
  for (let i = length - 1; i >= 0 && i >= length - 3; i--) {
    const byte = bytes[i]!;
    if (byte < 0x80) return length;
    if (byte >= 0xc0) {
      const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return i + size > length ? i : length;
    }
    // a continuation byte: look further back for the sequence's lead byte
  }
  return length;
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
