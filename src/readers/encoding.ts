// Bytes to text: BOM detection, UTF-8 validation with a windows-1252 fallback, UTF-16, and any
// single-byte encoding iconv-lite knows. A BOM never reaches the text.
import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { CatalogIoError } from '../errors.js';
import { bomEncoding } from './bom.js';
import { countReplacements, type DecodeStatus } from './utf8-part.js';

/** Bytes that windows-1252 leaves undefined: a file holding them is text in no encoding we support. */
const UNDEFINED_IN_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

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
  // UTF-8 with a few broken bytes is still UTF-8 (its rows with bad bytes are row errors): read as
  // windows-1252, every one of its other accented letters would become two wrong ones.
  const { valid, invalid } = countUtf8Sequences(head, complete);
  if (valid > invalid) {
    return {
      encoding: 'utf-8',
      notes: [
        `encoding utf-8 detected with ${invalid} invalid byte sequence(s) in the first ${Math.round(head.length / 1024)} KB: their rows are errors (name another encoding with --encoding)`,
      ],
    };
  }
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

/**
 * Multi-byte UTF-8 sequences that are valid, and bytes that fit no sequence: text in windows-1252 has
 * almost no valid ones (an accented letter is one byte followed by ASCII), UTF-8 text almost no invalid ones.
 */
function countUtf8Sequences(head: Buffer, complete: boolean): { valid: number; invalid: number } {
  let valid = 0;
  let invalid = 0;
  const end = complete ? head.length : completeEnd(head);
  for (let i = 0; i < end; i++) {
    const byte = head[i]!;
    if (byte < 0x80) continue;
    const size =
      byte >= 0xc2 && byte <= 0xdf
        ? 2
        : byte >= 0xe0 && byte <= 0xef
          ? 3
          : byte >= 0xf0 && byte <= 0xf4
            ? 4
            : 0;
    if (size > 0 && i + size <= end && isUtf8(head.subarray(i, i + size))) {
      valid++;
      i += size - 1;
    } else invalid++;
  }
  return { valid, invalid };
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

export type { DecodeStatus } from './utf8-part.js';

/** Decodes a byte stream; invalid UTF-8 is counted in `status` (see DecodeStatus). */
export async function* decode(
  chunks: AsyncIterable<Buffer>,
  encoding: string,
  status: DecodeStatus = { invalidSequences: 0 },
): AsyncGenerator<string> {
  if (encoding === 'utf-8') {
    yield* decodeUtf8(chunks, status);
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
 * a fatal TextDecoder (see the benchmark section of docs/readers.md). A chunk that is not valid is
 * decoded with U+FFFD for each invalid sequence, counted in `status`.
 * A sequence cut by the chunk's end waits for the next chunk; a leading BOM is dropped.
 */
async function* decodeUtf8(chunks: AsyncIterable<Buffer>, status: DecodeStatus): AsyncGenerator<string> {
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
    if (end < bytes.length) carried = Buffer.from(bytes.subarray(end));
    const text = body.toString('utf8');
    if (!isUtf8(body)) status.invalidSequences += countReplacements(text);
    if (text) yield text;
  }
  if (carried && carried.length > 0) {
    // A sequence cut short by the end of the file (or a lone partial BOM).
    const text = carried.toString('utf8');
    if (!isUtf8(carried)) status.invalidSequences += countReplacements(text);
    yield text;
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
