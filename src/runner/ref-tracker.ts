// Duplicate refs within one file, over the whole file, in bounded memory. Each ref is kept as a 56-bit
// hash (two 32-bit FNV-1a variants, each mixed at the end, the low byte of the second holding the
// location's template) with the line that first had it: 12 bytes a ref, side by side in one typed array,
// an open-addressing table at most 5/8 full, with a byte of hash B a slot in front of it (a lookup reads
// the table only where that byte matches). A new ref first goes to a small table of recent refs that
// stays in the processor's cache (recent-refs.ts), and moves into the large one with a few thousand
// others, nearly in its order: a file in no order does not pay a trip to memory per row.
// A file sorted by ref (most exports and ERP feeds) cannot repeat one while each ref is greater than the
// one before: until a ref breaks that order, refs are only appended to a log, which costs far less than a
// probe into a large table per row; the first ref out of order moves the log into the table at once.
// When the table holds `limit` refs (default 2^21, about 2.1 million: at most 44 MB), they go to disk
// (RefRuns in ref-runs.ts: sorted run files and a Bloom filter) and the table starts again. A ref the
// table does not know is looked up on disk: exact, and told on the row itself. Two refs with the same
// hash (odds about 1 in 35,000 at two million refs) would be reported as duplicates; the message names
// the first location, so a person can check.
// This file holds the hashing, the location templates, the ordered log and the table in memory.
import { RECENT_HOLD, RecentRefs } from './recent-refs.js';
import { RefRuns, TEMPLATE_MASK, WIDTH } from './ref-runs.js';

/** Refs kept in memory before they are written to disk (the table then holds about 3.4 million slots: 40 MB). */
export const DEFAULT_REF_LIMIT = 2 ** 21;

/**
 * The ordered log goes to disk at 2^20 refs (12 MB): nothing looks it up while the order holds, so
 * holding more would only cost memory (a sorted file never pays a lookup on disk).
 */
const LOG_LIMIT = 2 ** 20;
const INITIAL_SLOTS = 1 << 14;
// A slot of the table, like a record in the log or on disk, is three numbers side by side (WIDTH): hash
// A, hash B with the template id (1 and up; 0: an empty slot) in its low byte, and the line.
/** The table grows past this share of slots in use (linear probing stays short below it). */
const FILL_EIGHTHS = 5;
/** Template ids that fit the low byte; later templates (sheets past the 254th) share the last id. */
const MAX_TEMPLATE = 255;

export class RefTracker {
  private slots = INITIAL_SLOTS;
  /** slots / 2^32: a hash's home slot (see home()). */
  private scale = INITIAL_SLOTS / 2 ** 32;
  private table = new Int32Array(INITIAL_SLOTS * WIDTH);
  /**
   * A byte a slot in front of the table: 0 for an empty slot, else a byte of the ref's hash B. A lookup
   * walks these bytes (a twelfth of the table, likelier in the cache) and reads the table only where one
   * matches.
   */
  private marks = new Uint8Array(INITIAL_SLOTS);
  /** Refs added lately, not yet in the table (see recent-refs.ts); `size` does not count them. */
  private readonly recent = new RecentRefs();
  private size = 0;
  /** No ref so far was out of order: refs go to `log`, not the table. */
  private ordered = true;
  private previousRef: string | undefined;
  private previousEntity: string | undefined;
  /** Records (hash A, hash B, line) in the order the refs came, while `ordered`. */
  private log = new Int32Array(INITIAL_SLOTS * WIDTH);
  private logged = 0;
  /** Refs `reserve` made room for: the table is sized for them when the log moves into it. */
  private reserved = 0;
  /** Location texts with the line number taken out (`line {n}`, `sheet Products row {n}`). */
  private readonly templates: string[] = [];
  private readonly templateIds = new Map<string, number>();
  private lastId = 0;
  /** The last template when it ends in the number (`line `): the fast check in `templateOf`. */
  private lastPrefix: string | undefined;
  /** The id of `line {n}`, once a row placed by line alone came. */
  private lineTemplate: number | undefined;
  private readonly hasher = new RefHasher();
  /** The last ref's hashes (hashRef). */
  private refA = 0;
  private refB = 0;
  /** The refs that went to disk (nothing until the first spill). */
  private readonly disk = new RefRuns();
  private readonly limit: number;
  /** Refs the ordered log holds before it is parked on disk. */
  private readonly logLimit: number;

  /** `limit`: refs kept in memory before they go to disk (at most 2^21). */
  constructor(limit = DEFAULT_REF_LIMIT) {
    this.limit = Math.max(1, Math.min(limit, 2 ** 21));
    this.logLimit = Math.min(this.limit, LOG_LIMIT);
  }

  /**
   * The location that had this ref first, or undefined the first time. `line` is the row's line (or row,
   * or item) number inside `location`.
   */
  check(entity: string, ref: string, location: string, line: number): string | undefined {
    return this.checkTemplated(entity, ref, this.templateOf(location, line), line);
  }

  /** `check` for a row whose location is `line N` (a CSV row): no location text is needed. */
  checkLine(entity: string, ref: string, line: number): string | undefined {
    this.lineTemplate ??= this.templateId('line {n}');
    return this.checkTemplated(entity, ref, this.lineTemplate, line);
  }

  private checkTemplated(entity: string, ref: string, template: number, line: number): string | undefined {
    this.hashRef(entity, ref);
    const a = this.refA;
    let b = this.refB;
    b = (b & ~TEMPLATE_MASK) | Math.min(template, MAX_TEMPLATE);
    if (this.ordered) {
      if (this.previousRef === undefined || (ref > this.previousRef && entity === this.previousEntity)) {
        // Greater than every ref before it (and than those on disk, which came earlier): new.
        this.previousRef = ref;
        this.previousEntity = entity;
        this.append(a, b, line);
        return undefined;
      }
      this.leaveOrder();
    }
    return this.checkHashed(a, b, line);
  }

  /**
   * The refs of a part of the file that another thread read (validate in parts), in the part's order:
   * each one's hashes (`hashes`: a and b side by side, as RefHasher makes them) and line (`line N`).
   * `run`, when the part's refs rose one after the other within one entity, gives its first and last:
   * a part that goes on from where the order stands is only logged. Returns each ref's first location
   * (undefined: new), or undefined when no ref was used before.
   */
  checkPart(
    hashes: Int32Array,
    lines: Int32Array,
    run: { entity: string; first: string; last: string } | undefined,
  ): Array<string | undefined> | undefined {
    const n = lines.length;
    if (n === 0) return undefined;
    this.lineTemplate ??= this.templateId('line {n}');
    const template = Math.min(this.lineTemplate, MAX_TEMPLATE);
    if (this.ordered) {
      if (
        run &&
        (this.previousRef === undefined ||
          (run.first > this.previousRef && run.entity === this.previousEntity))
      ) {
        for (let i = 0; i < n; i++)
          this.append(hashes[2 * i]!, (hashes[2 * i + 1]! & ~TEMPLATE_MASK) | template, lines[i]!);
        this.previousRef = run.last;
        this.previousEntity = run.entity;
        return undefined;
      }
      this.leaveOrder();
    }
    let said: Array<string | undefined> | undefined;
    // In the part's order: the table of recent refs keeps the large table's walk in order (recent-refs.ts).
    // Walking the refs sorted by home slot instead piled them onto one end of that small table, where
    // each probe then ran along all the refs before it.
    for (let i = 0; i < n; i++) {
      const first = this.checkHashed(
        hashes[2 * i]!,
        (hashes[2 * i + 1]! & ~TEMPLATE_MASK) | template,
        lines[i]!,
      );
      if (first === undefined) continue;
      said ??= new Array<string | undefined>(n).fill(undefined);
      said[i] = first;
    }
    return said;
  }

  /** The memory's and the disk's answer for a ref out of order, added when new. */
  private checkHashed(a: number, b: number, line: number): string | undefined {
    const recent = this.recent;
    const at = recent.probe(a, b);
    if (at >= 0)
      return this.describe(recent.table[at * WIDTH + 2]!, recent.table[at * WIDTH + 1]! & TEMPLATE_MASK);
    const first = this.found(a, b);
    if (first !== undefined) return first;
    recent.add(~at, a, b, line);
    if (recent.count >= RECENT_HOLD || this.size + recent.count >= this.limit) this.moveRecent();
    return undefined;
  }

  /** The first location of these hashes in the table or on disk, or undefined. */
  private found(a: number, b: number): string | undefined {
    const slot = this.probe(a, b);
    if (slot >= 0)
      return this.describe(this.table[slot * WIDTH + 2]!, this.table[slot * WIDTH + 1]! & TEMPLATE_MASK);
    if (this.disk.find(a, b)) return this.describe(this.disk.foundLine, this.disk.foundTemplate);
    return undefined;
  }

  /** The recent refs into the table, nearly in its order; then to disk, or a larger table, when due. */
  private moveRecent(): void {
    const recent = this.recent;
    if ((this.size + recent.count) * 8 > this.slots * FILL_EIGHTHS) {
      // At least doubled (never past the room for `limit`): grown only by the refs of one move, the whole
      // table was rehashed at every move when no `reserve` said how many refs come (standard input, an
      // import): 2M refs in no order took 17 s instead of 2.
      const wanted = slotsFor(Math.min(this.size + recent.count, this.limit));
      this.slots = Math.min(Math.max(this.slots * 2, wanted), slotsFor(this.limit));
      if (this.slots * WIDTH !== this.table.length) this.rehash();
    }
    const held = recent.table;
    for (let at = 0; at < held.length; at += WIDTH) {
      if (held[at + 1] === 0) continue;
      this.place(held[at]!, held[at + 1]!, held[at + 2]!);
    }
    this.size += recent.count;
    recent.clear();
    if (this.size >= this.limit) this.spill();
    else if (this.size * 8 > this.slots * FILL_EIGHTHS) this.grow();
  }

  /** A ref known to be new into the table's first empty slot from its home. */
  private place(a: number, b: number, line: number): void {
    const marks = this.marks;
    const slots = this.slots;
    let i = this.home(a);
    while (marks[i] !== 0) i = i + 1 === slots ? 0 : i + 1;
    marks[i] = markOf(b);
    const at = i * WIDTH;
    this.table[at] = a;
    this.table[at + 1] = b;
    this.table[at + 2] = line;
  }

  /** Whether `check` has seen this ref (or one of the same 56-bit hash), in memory or on disk; adds nothing. */
  has(entity: string, ref: string): boolean {
    if (this.ordered) this.leaveOrder();
    this.hashRef(entity, ref);
    const a = this.refA;
    const b = this.refB;
    return this.recent.probe(a, b) >= 0 || this.found(a, b) !== undefined;
  }

  /** The location `check` was first given for this ref (or one of the same 56-bit hash); adds nothing. */
  firstLocation(entity: string, ref: string): string | undefined {
    if (this.ordered) this.leaveOrder();
    this.hashRef(entity, ref);
    const a = this.refA;
    const b = this.refB;
    const recent = this.recent;
    const at = recent.probe(a, b);
    if (at >= 0)
      return this.describe(recent.table[at * WIDTH + 2]!, recent.table[at * WIDTH + 1]! & TEMPLATE_MASK);
    return this.found(a, b);
  }

  /**
   * The table slot holding these hashes, or, when none does, `~slot` of the empty slot where they would
   * go (a negative number). The template byte may differ (another sheet): it is compared without it.
   */
  private probe(a: number, b: number): number {
    const table = this.table;
    const marks = this.marks;
    const slots = this.slots;
    const mark = markOf(b);
    let i = this.home(a);
    for (let seen = marks[i]!; seen !== 0; i = i + 1 === slots ? 0 : i + 1, seen = marks[i]!) {
      if (seen !== mark) continue;
      const at = i * WIDTH;
      if (table[at] === a && (table[at + 1]! & ~TEMPLATE_MASK) === (b & ~TEMPLATE_MASK)) return i;
    }
    return ~i;
  }

  /** The two hashes of the entity and ref into `refA` and `refB` (fields: this runs for every row). */
  private hashRef(entity: string, ref: string): void {
    this.hasher.hash(entity, ref);
    this.refA = this.hasher.a;
    this.refB = this.hasher.b;
  }

  /**
   * Makes room for about `refs` refs in all (at most the limit) in one step, instead of doubling the
   * table again and again: for a large file whose size tells how many rows are coming.
   */
  reserve(refs: number): void {
    // An estimate from the first rows' bytes is rough: an eighth more, so the table need not double
    // (and hold both tables at once) near the end of the file.
    const wanted = Math.min(Math.ceil(refs * 1.125), this.limit);
    if (this.ordered) {
      this.reserved = Math.max(this.reserved, wanted);
      const logged = Math.min(wanted, this.logLimit);
      if (logged * WIDTH > this.log.length) this.growLog(logged * WIDTH);
      return;
    }
    // Exactly the room wanted (not the next power of two): 2M refs take 38 MB, not 48.
    if (wanted * 8 > this.slots * FILL_EIGHTHS) this.slots = slotsFor(wanted);
    if (this.slots * WIDTH !== this.table.length) this.rehash();
  }

  /** No ref so far came out of order: refs are logged, not looked up. */
  get inOrder(): boolean {
    return this.ordered;
  }

  /** How many runs of refs went to disk (0 for a file of up to `limit` refs). */
  get spilled(): number {
    return this.disk.count;
  }

  /** Closes and removes what went to disk. The tracker is not used afterwards. */
  close(): void {
    this.disk.close();
  }

  /** The log's records on the end, and off to disk when it holds `limit` refs. */
  private append(a: number, b: number, line: number): void {
    if (this.logged * WIDTH === this.log.length) this.growLog(this.log.length * 2);
    const at = this.logged * WIDTH;
    this.log[at] = a;
    this.log[at + 1] = b;
    this.log[at + 2] = line;
    this.logged += 1;
    if (this.logged >= this.logLimit) {
      // No ref is looked up while the order holds: parked as it is, sorted only if the order breaks.
      this.disk.park(this.log, this.logged);
      this.logged = 0;
    }
  }

  private growLog(length: number): void {
    const log = new Int32Array(Math.min(length, this.logLimit * WIDTH));
    log.set(this.log.subarray(0, this.logged * WIDTH));
    this.log = log;
  }

  /** A ref out of order: from now on every ref is looked for, so the log moves into the table. */
  private leaveOrder(): void {
    this.ordered = false;
    this.reserve(Math.max(this.reserved, this.logged));
    const log = this.log;
    for (let k = 0; k < this.logged * WIDTH; k += WIDTH) this.place(log[k]!, log[k + 1]!, log[k + 2]!);
    this.size = this.logged;
    this.log = new Int32Array(0);
    this.logged = 0;
  }

  /** The table's refs, sorted by hash A, to a run file; the table starts again empty. */
  private spill(): void {
    const table = this.table;
    const held = new Int32Array(this.size * WIDTH);
    let n = 0;
    for (let slot = 0; slot < this.slots; slot += 1) {
      if (table[slot * WIDTH + 1] === 0) continue;
      held[n * WIDTH] = table[slot * WIDTH]!;
      held[n * WIDTH + 1] = table[slot * WIDTH + 1]!;
      held[n * WIDTH + 2] = table[slot * WIDTH + 2]!;
      n += 1;
    }
    this.disk.write(held, n);
    this.table.fill(0);
    this.marks.fill(0);
    this.size = 0;
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
    const id = this.templateId(template);
    this.lastId = id;
    this.lastPrefix = template.endsWith('{n}') ? template.slice(0, -3) : undefined;
    return id;
  }

  private templateId(template: string): number {
    let id = this.templateIds.get(template);
    if (id === undefined) {
      id = this.templates.length + 1;
      this.templates.push(template);
      this.templateIds.set(template, id);
    }
    return id;
  }

  private describe(line: number, id: number): string {
    // Past the 255th template (sheet) the exact one is not kept.
    if (id === MAX_TEMPLATE && this.templates.length > MAX_TEMPLATE) return `row ${line} of a later sheet`;
    return (this.templates[id - 1] ?? 'line {n}').replace('{n}', String(line));
  }

  private grow(): void {
    // Never past the room for `limit` refs: the table goes to disk there.
    this.slots = Math.min(this.slots * 2, slotsFor(this.limit));
    this.rehash();
  }

  /**
   * The slot a hash A starts its probe at: its place in proportion over the table (any number of
   * slots, where a mask needs a power of two).
   */
  private home(a: number): number {
    return ((a >>> 0) * this.scale) | 0;
  }

  /** How many times the table was made anew at a larger size (a feed's refs should cost a few). */
  get rehashes(): number {
    return this.rehashCount;
  }

  private rehashCount = 0;

  /** Moves every ref into a new table of `slots` slots. */
  private rehash(): void {
    this.rehashCount += 1;
    this.scale = this.slots / 2 ** 32;
    const old = this.table;
    const oldMarks = this.marks;
    this.table = new Int32Array(this.slots * WIDTH);
    this.marks = new Uint8Array(this.slots);
    for (let slot = 0; slot < oldMarks.length; slot += 1) {
      if (oldMarks[slot] === 0) continue;
      const j = slot * WIDTH;
      this.place(old[j]!, old[j + 1]!, old[j + 2]!);
    }
  }
}

/**
 * The two 32-bit hashes of `${entity}\u0000${ref}`, fed one string after the other (no joined string per
 * row), into `a` and `b`; the low byte of `b` is left for the location's template. A part thread of
 * validate hashes its refs with it, and the main thread's tracker takes the hashes as they are.
 */
export class RefHasher {
  a = 0;
  b = 0;
  /** The hash state after the last entity name (every row of a file usually has the same entity). */
  private lastEntity: string | undefined;
  private entityA = 0;
  private entityB = 0;

  hash(entity: string, ref: string): void {
    if (entity !== this.lastEntity) this.hashEntity(entity);
    let a = this.entityA;
    let b = this.entityB;
    for (let i = 0; i < ref.length; i += 1) {
      const c = ref.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    // FNV-1a leaves refs that differ in their last characters close together in the low bits, which
    // place a ref in the table: mixed (a one-to-one step) so that `SKU-1`, `SKU-2`, ... spread out.
    this.a = mix(a);
    this.b = mix(b);
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
}

/** Slots for `refs` refs at most FILL_EIGHTHS full (a multiple of 64). */
function slotsFor(refs: number): number {
  return Math.ceil((refs * 8) / FILL_EIGHTHS / 64) * 64;
}

/**
 * A slot's mark: the byte of hash B above its template byte, never 0 (0 marks an empty slot). Hash A
 * placed the ref, so its bits would tell little here.
 */
function markOf(b: number): number {
  return (b >>> 8) & 0xff || 1;
}

/** MurmurHash3's finalizer: every bit of the result depends on every bit of `h`. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** How many digits `line` is written with (a line number: a whole number from 0). */
function digitCount(line: number): number {
  if (line < 1e4) return line < 10 ? 1 : line < 100 ? 2 : line < 1000 ? 3 : 4;
  if (line < 1e8) return line < 1e5 ? 5 : line < 1e6 ? 6 : line < 1e7 ? 7 : 8;
  return String(line).length;
}
