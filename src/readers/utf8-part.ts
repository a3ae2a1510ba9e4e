// UTF-8 text of a part of a file, for validate's threads: kept apart from encoding.ts so a thread that
// only reads UTF-8 parts does not load the other encodings (iconv-lite).
import { isUtf8 } from 'node:buffer';

/**
 * What the UTF-8 decoder met: invalid bytes become U+FFFD in the text and are counted here, so that the
 * readers, which know rows and columns, make each row holding one a row error (never silent).
 */
export interface DecodeStatus {
  invalidSequences: number;
}

/**
 * A part of a UTF-8 file that ends on a record boundary, decoded on its own (validate's threads): the
 * same text and the same count of invalid sequences as `decode` gives for those bytes, in pieces of
 * about 64 KiB cut after a line break (a reader holds each piece only while it parses it). Not the file's
 * start: a byte-order mark there is the reader's to drop.
 */
export function* decodeUtf8Part(bytes: Buffer, status: DecodeStatus): Generator<string> {
  let at = 0;
  while (at < bytes.length) {
    let end = at + PART_PIECE >= bytes.length ? bytes.length : bytes.lastIndexOf(0x0a, at + PART_PIECE) + 1;
    if (end <= at) end = Math.max(bytes.indexOf(0x0a, at + PART_PIECE) + 1, 0) || bytes.length;
    const piece = bytes.subarray(at, end);
    const text = piece.toString('utf8');
    if (!isUtf8(piece)) status.invalidSequences += countReplacements(text);
    yield text;
    at = end;
  }
}

const PART_PIECE = 64 * 1024;

/** The U+FFFD characters of text decoded from invalid UTF-8 (at least one: the bytes were invalid). */
export function countReplacements(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\ufffd'); at !== -1; at = text.indexOf('\ufffd', at + 1)) count++;
  return Math.max(count, 1);
}
