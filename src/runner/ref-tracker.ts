// Duplicate refs within one file, in bounded memory: each ref is kept as a 64-bit hash (two 32-bit
// FNV-1a variants) in an open-addressing table of typed arrays, with a compact code for the location
// that first had it: about 16 bytes per ref at most, for up to `limit` refs (default 1,000,000, so
// at most 32 MB). Past the limit, checking stops and the summary says so. Two refs with the same 64-bit
// hash (odds about 1 in 30 million at a million refs) would be reported as duplicates; the message
// names the first location, so a person can check.

export const DEFAULT_REF_LIMIT = 1_000_000;

const INITIAL_SLOTS = 1 << 14;

export class RefTracker {
  private slots = INITIAL_SLOTS;
  private hashA = new Uint32Array(INITIAL_SLOTS);
  private hashB = new Uint32Array(INITIAL_SLOTS);
  /** line * 4096 + template id; 0 = empty slot. */
  private where = new Float64Array(INITIAL_SLOTS);
  private size = 0;
  private full = false;
  /** Location texts with the line number taken out (`line {n}`, `sheet Products row {n}`). */
  private readonly templates: string[] = [];
  private readonly templateIds = new Map<string, number>();
  private lastId = 0;
  /** The last template when it ends in the number (`line `): the fast check above. */
  private lastPrefix: string | undefined;

  constructor(private readonly limit = DEFAULT_REF_LIMIT) {}

  /**
   * The location that had this ref first, or undefined the first time (or once the limit is reached).
   * `line` is the row's line (or row, or item) number inside `location`.
   */
  check(entity: string, ref: string, location: string, line: number): string | undefined {
    // The hash of `${entity}\u0000${ref}`, fed one string after the other (no joined string per row).
    let a = 0x811c9dc5;
    let b = 0x2f3a9c71;
    for (let i = 0; i <= entity.length; i += 1) {
      const c = i < entity.length ? entity.charCodeAt(i) : 0;
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    for (let i = 0; i < ref.length; i += 1) {
      const c = ref.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    a >>>= 0;
    b >>>= 0;
    const mask = this.slots - 1;
    let i = a & mask;
    while (this.where[i] !== 0) {
      if (this.hashA[i] === a && this.hashB[i] === b) return this.describe(this.where[i]!);
      i = (i + 1) & mask;
    }
    if (this.size >= this.limit) {
      this.full = true;
      return undefined;
    }
    this.hashA[i] = a;
    this.hashB[i] = b;
    this.where[i] = this.encode(location, line);
    this.size += 1;
    if (this.size * 2 > this.slots) this.grow();
    return undefined;
  }

  /** Whether some refs went unchecked because the limit was reached. */
  get overflowed(): boolean {
    return this.full;
  }

  private encode(location: string, line: number): number {
    // Most rows share the previous row's template (`line {n}`): recognised without building it.
    const digits = String(line);
    if (
      this.lastPrefix !== undefined &&
      location.length === this.lastPrefix.length + digits.length &&
      location.startsWith(this.lastPrefix) &&
      location.endsWith(digits)
    )
      return line * 4096 + (this.lastId % 4096);
    const at = location.lastIndexOf(digits);
    const template = at < 0 ? location : `${location.slice(0, at)}{n}${location.slice(at + digits.length)}`;
    let id = this.templateIds.get(template);
    if (id === undefined) {
      id = this.templates.length + 1;
      this.templates.push(template);
      this.templateIds.set(template, id);
    }
    this.lastId = id;
    this.lastPrefix = template.endsWith('{n}') ? template.slice(0, -3) : undefined;
    return line * 4096 + (id % 4096);
  }

  private describe(code: number): string {
    const id = code % 4096;
    const line = (code - id) / 4096;
    return (this.templates[id - 1] ?? 'line {n}').replace('{n}', String(line));
  }

  private grow(): void {
    const { hashA, hashB, where } = this;
    this.slots *= 2;
    this.hashA = new Uint32Array(this.slots);
    this.hashB = new Uint32Array(this.slots);
    this.where = new Float64Array(this.slots);
    const mask = this.slots - 1;
    for (let j = 0; j < where.length; j += 1) {
      if (where[j] === 0) continue;
      let i = hashA[j]! & mask;
      while (this.where[i] !== 0) i = (i + 1) & mask;
      this.hashA[i] = hashA[j]!;
      this.hashB[i] = hashB[j]!;
      this.where[i] = where[j]!;
    }
  }
}
