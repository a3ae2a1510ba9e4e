// Duplicate refs within one file, in bounded memory: each ref is kept as a 56-bit hash (two 32-bit
// FNV-1a variants, the low byte of the second holding the location's template) in an open-addressing
// table (one typed array, 12 bytes a slot, at most half full) with the line that first had it: at most
// 24 bytes per ref, for up to `limit` refs (default 1,000,000, so at most 24 MB). Past the limit,
// checking stops and the summary says so. Two refs with the same hash (odds about 1 in 140,000 at a
// million refs) would be reported as duplicates; the message names the first location, so a person can
// check.

export const DEFAULT_REF_LIMIT = 1_000_000;

const INITIAL_SLOTS = 1 << 14;
/**
 * A slot is three numbers side by side: hash A, hash B with the template id (1 and up; 0: an empty slot)
 * in its low byte, and the line.
 */
const WIDTH = 3;
/** Template ids that fit the low byte; later templates (sheets past the 254th) share the last id. */
const MAX_TEMPLATE = 255;
const TEMPLATE_MASK = 0xff;

export class RefTracker {
  private slots = INITIAL_SLOTS;
  private table = new Int32Array(INITIAL_SLOTS * WIDTH);
  private size = 0;
  private full = false;
  /** Location texts with the line number taken out (`line {n}`, `sheet Products row {n}`). */
  private readonly templates: string[] = [];
  private readonly templateIds = new Map<string, number>();
  private lastId = 0;
  /** The last template when it ends in the number (`line `): the fast check in `templateOf`. */
  private lastPrefix: string | undefined;
  /** The hash state after the last entity name (every row of a file usually has the same entity). */
  private lastEntity = '';
  private entityA = 0;
  private entityB = 0;

  constructor(private readonly limit = DEFAULT_REF_LIMIT) {}

  /**
   * The location that had this ref first, or undefined the first time (or once the limit is reached).
   * `line` is the row's line (or row, or item) number inside `location`.
   */
  check(entity: string, ref: string, location: string, line: number): string | undefined {
    // The hash of `${entity}\u0000${ref}`, fed one string after the other (no joined string per row).
    if (entity !== this.lastEntity || this.size === 0) this.hashEntity(entity);
    let a = this.entityA;
    let b = this.entityB;
    for (let i = 0; i < ref.length; i += 1) {
      const c = ref.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    const template = this.templateOf(location, line);
    b = (b & ~TEMPLATE_MASK) | Math.min(template, MAX_TEMPLATE);
    const table = this.table;
    const mask = this.slots - 1;
    let i = (a >>> 0) & mask;
    while (table[i * WIDTH + 1] !== 0) {
      const at = i * WIDTH;
      // Same hash: the template byte may differ (another sheet), so compare without it.
      if (table[at] === a && (table[at + 1]! & ~TEMPLATE_MASK) === (b & ~TEMPLATE_MASK))
        return this.describe(table[at + 2]!, table[at + 1]! & TEMPLATE_MASK);
      i = (i + 1) & mask;
    }
    if (this.size >= this.limit) {
      this.full = true;
      return undefined;
    }
    const at = i * WIDTH;
    table[at] = a;
    table[at + 1] = b;
    table[at + 2] = line;
    this.size += 1;
    if (this.size * 2 > this.slots) this.grow();
    return undefined;
  }

  /** Whether `check` has seen this ref (or one of the same 56-bit hash); adds nothing. */
  has(entity: string, ref: string): boolean {
    if (entity !== this.lastEntity || this.size === 0) this.hashEntity(entity);
    let a = this.entityA;
    let b = this.entityB;
    for (let i = 0; i < ref.length; i += 1) {
      const c = ref.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    const table = this.table;
    const mask = this.slots - 1;
    for (let i = (a >>> 0) & mask; table[i * WIDTH + 1] !== 0; i = (i + 1) & mask) {
      const at = i * WIDTH;
      if (table[at] === a && (table[at + 1]! & ~TEMPLATE_MASK) === (b & ~TEMPLATE_MASK)) return true;
    }
    return false;
  }

  /**
   * Makes room for about `refs` refs in all (at most the limit) in one step, instead of doubling the
   * table again and again: for a large file whose size tells how many rows are coming.
   */
  reserve(refs: number): void {
    const wanted = Math.min(Math.ceil(refs), this.limit);
    while (wanted * 2 > this.slots) this.slots *= 2;
    if (this.slots * WIDTH !== this.table.length) this.rehash();
  }

  /** Whether some refs went unchecked because the limit was reached. */
  get overflowed(): boolean {
    return this.full;
  }

  private hashEntity(entity: string): void {
    let a = 0x811c9dc5;
    let b = 0x2f3a9c71;
    for (let i = 0; i <= entity.length; i += 1) {
      const c = i < entity.length ? entity.charCodeAt(i) : 0;
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    this.lastEntity = entity;
    this.entityA = a;
    this.entityB = b;
  }

  /** The id of the location's template (`line {n}`), 1 and up. */
  private templateOf(location: string, line: number): number {
    // Most rows share the previous row's template (`line {n}`): recognised without building it or the
    // line's digits (the location ends in the line: same prefix and same length is the same template).
    if (
      this.lastPrefix !== undefined &&
      location.length === this.lastPrefix.length + digitCount(line) &&
      location.startsWith(this.lastPrefix)
    )
      return this.lastId;
    const digits = String(line);
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
    return id;
  }

  private describe(line: number, id: number): string {
    // Past the 255th template (sheet) the exact one is not kept.
    if (id === MAX_TEMPLATE && this.templates.length > MAX_TEMPLATE) return `row ${line} of a later sheet`;
    return (this.templates[id - 1] ?? 'line {n}').replace('{n}', String(line));
  }

  private grow(): void {
    this.slots *= 2;
    this.rehash();
  }

  /** Moves every ref into a new table of `slots` slots. */
  private rehash(): void {
    const old = this.table;
    const table = new Int32Array(this.slots * WIDTH);
    const mask = this.slots - 1;
    for (let j = 0; j < old.length; j += WIDTH) {
      if (old[j + 1] === 0) continue;
      let i = (old[j]! >>> 0) & mask;
      while (table[i * WIDTH + 1] !== 0) i = (i + 1) & mask;
      const at = i * WIDTH;
      table[at] = old[j]!;
      table[at + 1] = old[j + 1]!;
      table[at + 2] = old[j + 2]!;
    }
    this.table = table;
  }
}

/** How many digits `line` is written with (a line number: a whole number from 0). */
function digitCount(line: number): number {
  if (line < 1e4) return line < 10 ? 1 : line < 100 ? 2 : line < 1000 ? 3 : 4;
  if (line < 1e8) return line < 1e5 ? 5 : line < 1e6 ? 6 : line < 1e7 ? 7 : 8;
  return String(line).length;
}
