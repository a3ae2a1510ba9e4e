// Turns a generated file into what a test asked for: carrying the fail-processing marker, padded to
// a size, or corrupted so no dimensions can be read.
import { crc32 } from 'node:zlib';

/** The DAM's background worker fails an image whose bytes carry this text. */
export const FAIL_PROCESSING_MARKER = 'sandbox:fail-processing';

const PNG_SIGNATURE_LENGTH = 8;

/** Embeds the marker where the format keeps comments (PNG tEXt, JPEG COM), else after the image data. */
export function withFailMarker(bytes: Buffer, ext: string): Buffer {
  const marker = Buffer.from(FAIL_PROCESSING_MARKER, 'latin1');
  if (ext === 'png') {
    // tEXt chunk "Comment\0sandbox:fail-processing", inserted right after IHDR.
    const data = Buffer.concat([Buffer.from('Comment\0', 'latin1'), marker]);
    const type = Buffer.from('tEXt', 'latin1');
    const chunk = Buffer.alloc(12 + data.length);
    chunk.writeUInt32BE(data.length, 0);
    type.copy(chunk, 4);
    data.copy(chunk, 8);
    chunk.writeUInt32BE(crc32(Buffer.concat([type, data])), 8 + data.length);
    const ihdrEnd = PNG_SIGNATURE_LENGTH + 12 + bytes.readUInt32BE(PNG_SIGNATURE_LENGTH);
    return Buffer.concat([bytes.subarray(0, ihdrEnd), chunk, bytes.subarray(ihdrEnd)]);
  }
  if (ext === 'jpg' || ext === 'jpeg') {
    // COM segment right after SOI.
    const segment = Buffer.alloc(4 + marker.length);
    segment.writeUInt16BE(0xfffe, 0);
    segment.writeUInt16BE(marker.length + 2, 2);
    marker.copy(segment, 4);
    return Buffer.concat([bytes.subarray(0, 2), segment, bytes.subarray(2)]);
  }
  return Buffer.concat([bytes, marker]);
}

/** Bytes of the right length that no image reader recognises. */
export function corrupted(length: number): Buffer {
  const text = Buffer.from('this is not image data; ', 'latin1');
  const out = Buffer.alloc(Math.max(length, 64));
  for (let i = 0; i < out.length; i += text.length) text.copy(out, i);
  return out;
}

/** Pads with zero bytes to `size` (trailing data after the image end, which readers ignore). */
export function padded(bytes: Buffer, size: number): Buffer {
  if (size <= bytes.length) return bytes;
  const out = Buffer.alloc(size);
  bytes.copy(out, 0);
  return out;
}
