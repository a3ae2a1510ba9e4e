// Duplicate refs within one file, in bounded memory: each ref is kept as a 52-bit hash (two 32-bit FNV-1a
// variants) with the line that first had it, up to `limit` refs (default 1,000,000, about 50 MB).
// Past the limit, checking stops and the summary says so. A hash collision (odds about 1 in 10,000 at
// a million refs) would report a false duplicate; it names the first line, so a person can check.

export const DEFAULT_REF_LIMIT = 1_000_000;

export class RefTracker {
  private readonly seen = new Map<number, string>();
  private full = false;

  constructor(private readonly limit = DEFAULT_REF_LIMIT) {}

  /** The location that had this ref first, or undefined the first time (or once the limit is reached). */
  check(entity: string, ref: string, location: string): string | undefined {
    const key = hash(`${entity}\u0000${ref}`);
    const first = this.seen.get(key);
    if (first !== undefined) return first;
    if (this.seen.size >= this.limit) {
      this.full = true;
      return undefined;
    }
    this.seen.set(key, location);
    return undefined;
  }

  /** Whether some refs went unchecked because the limit was reached. */
  get overflowed(): boolean {
    return this.full;
  }
}

function hash(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  // 32 bits of one and 20 of the other: an exact integer below 2^53.
  return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff);
}
