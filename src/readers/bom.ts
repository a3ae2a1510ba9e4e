// The encoding a byte-order mark names: apart from encoding.ts, so format detection loads no decoder.

export function bomEncoding(head: Buffer): 'utf-8' | 'utf-16le' | 'utf-16be' | undefined {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}
