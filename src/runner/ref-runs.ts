// The refs a RefTracker wrote to disk (see ref-tracker.ts): when its table holds `limit` refs, they are
// sorted by hash A and written to a run file, added to a fixed-size Bloom filter (16 MB), and the table
// starts again. A ref is looked up on disk only when the filter says it may be there (a few in a hundred at
// tens of millions of refs): a binary search over the first hash of each block, then a block read from the
// file. Run files are removed at once where the system allows it, and closed by close() or, for a tracker
// dropped without it, when collected.
// A log of refs in order (ref-tracker.ts) is parked as it is: written to a file with no sorting and no
// filter, since no ref is looked up while the order holds (most sorted feeds never break it). Only when
// the order breaks are parked records sorted into runs and added to the filter.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A record on disk (and in a tracker's log) is three numbers side by side: hash A, hash B, line. */
export const WIDTH = 3;
/** The low byte of hash B: the location's template id (1 and up; 0: an empty table slot). */
export const TEMPLATE_MASK = 0xff;
const RECORD_BYTES = WIDTH * 4;
/** Records of a run per block read from disk; the first hash of each block stays in memory. */
const BLOCK = 128;
/** Bloom filter over the refs on disk: 2^27 bits (16 MB), 4 probes. */
const BLOOM_BITS_LOG2 = 27;
const BLOOM_PROBES = 4;

/** Run files of trackers dropped without close() (an import that ended early): closed when collected. */
const openRuns = new FinalizationRegistry<number[]>((fds) => {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
  }
});

/** Refs written to disk: sorted by hash A, read a block at a time. */
interface Run {
  fd: number;
  records: number;
  /** Hash A (unsigned) of the first record of each block. */
  firsts: Uint32Array;
}

export class RefRuns {
  /** The line of the record `find` found last. */
  foundLine = 0;
  /** The template id (the low byte of hash B) of the record `find` found last. */
  foundTemplate = 0;
  /** On disk: made at the first write. */
  private readonly runs: Run[] = [];
  /** Records parked as they came (a log in order): sorted into runs by settle() before any lookup. */
  private readonly parked: Array<{ fd: number; records: number }> = [];
  /** The runs' file descriptors, shared with `openRuns` (which must not hold the tracker, or these runs, itself). */
  private readonly fds: number[] = [];
  private bloom: Int32Array | undefined;
  /** Folders of run files the system would not remove while open (removed by close()). */
  private readonly folders: string[] = [];
  private readonly block = new Int32Array(BLOCK * WIDTH);
  private readonly blockBytes = new Uint8Array(this.block.buffer);

  /** How many runs of refs went to disk. */
  get count(): number {
    return this.runs.length + this.parked.length;
  }

  /** `n` records written as they are: a sequential write, no sort, no filter (see settle()). */
  park(held: Int32Array, n: number): void {
    const fd = this.tempFile();
    writeAll(fd, new Uint8Array(held.buffer, held.byteOffset, n * RECORD_BYTES));
    this.parked.push({ fd, records: n });
  }

  /** Sorts the parked records into runs and the filter: before the first lookup. */
  settle(): void {
    for (const { fd, records } of this.parked.splice(0)) {
      const held = new Int32Array(records * WIDTH);
      const bytes = new Uint8Array(held.buffer);
      for (let read = 0; read < bytes.length; ) {
        const got = readSync(fd, bytes, read, bytes.length - read, read);
        if (got === 0) throw new Error('A parked run of refs ended early');
        read += got;
      }
      closeSync(fd);
      this.fds.splice(this.fds.indexOf(fd), 1);
      this.write(held, records);
    }
  }

  /** `n` records (hash A, hash B, line) sorted by hash A into a run file, and into the disk's filter. */
  write(held: Int32Array, n: number): void {
    // Sort keys: hash A (unsigned, < 2^32) times 2^21 plus the record's index (< 2^21): exact in a double.
    const keys = new Float64Array(n);
    for (let k = 0; k < n; k += 1) keys[k] = (held[k * WIDTH]! >>> 0) * 2 ** 21 + k;
    keys.sort();
    const records = new Int32Array(n * WIDTH);
    const firsts = new Uint32Array(Math.ceil(n / BLOCK));
    this.bloom ??= new Int32Array(2 ** (BLOOM_BITS_LOG2 - 5));
    for (let k = 0; k < n; k += 1) {
      const from = (keys[k]! % 2 ** 21) * WIDTH;
      const to = k * WIDTH;
      records[to] = held[from]!;
      records[to + 1] = held[from + 1]!;
      records[to + 2] = held[from + 2]!;
      if (k % BLOCK === 0) firsts[k / BLOCK] = held[from]! >>> 0;
      this.addToBloom(held[from]!, held[from + 1]!);
    }
    const fd = this.tempFile();
    writeAll(fd, new Uint8Array(records.buffer, records.byteOffset, records.byteLength));
    this.runs.push({ fd, records: n, firsts });
  }

  /** A new file for records, open for reading and writing, its descriptor kept in `fds`. */
  private tempFile(): number {
    const folder = mkdtempSync(join(tmpdir(), 'catalog-io-refs-'));
    const path = join(folder, 'run');
    const fd = openSync(path, 'w+');
    // The file is removed at once where the system allows it (it lives on while open): nothing is left
    // behind, even on a crash or when the caller never calls close().
    try {
      unlinkSync(path);
      rmSync(folder, { recursive: true, force: true });
    } catch {
      this.folders.push(folder);
    }
    if (this.fds.length === 0) openRuns.register(this, this.fds, this);
    this.fds.push(fd);
    return fd;
  }

  /**
   * Whether a ref with these hashes is on disk (the template byte of `b` aside); if so, its first record's
   * line and template id are in `foundLine` and `foundTemplate`.
   */
  find(a: number, b: number): boolean {
    if (this.parked.length > 0) this.settle();
    return this.bloom !== undefined && this.maybeOnDisk(a, b) && this.findOnDisk(a, b);
  }

  /** Closes and removes what went to disk. */
  close(): void {
    openRuns.unregister(this);
    for (const run of this.runs) closeSync(run.fd);
    for (const run of this.parked) closeSync(run.fd);
    this.runs.length = 0;
    this.parked.length = 0;
    this.fds.length = 0;
    for (const folder of this.folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  }

  private addToBloom(a: number, b: number): void {
    const bloom = this.bloom!;
    const mask = 2 ** BLOOM_BITS_LOG2 - 1;
    const step = (b & ~TEMPLATE_MASK) | 1;
    for (let p = 0; p < BLOOM_PROBES; p += 1) {
      const bit = ((a + Math.imul(p, step)) >>> 0) & mask;
      bloom[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  private maybeOnDisk(a: number, b: number): boolean {
    const bloom = this.bloom!;
    const mask = 2 ** BLOOM_BITS_LOG2 - 1;
    const step = (b & ~TEMPLATE_MASK) | 1;
    for (let p = 0; p < BLOOM_PROBES; p += 1) {
      const bit = ((a + Math.imul(p, step)) >>> 0) & mask;
      if ((bloom[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  /** The first record of a ref in the runs on disk into `foundLine`/`foundTemplate`; false if none. */
  private findOnDisk(a: number, b: number): boolean {
    const key = a >>> 0;
    const hashB = b & ~TEMPLATE_MASK;
    const block = this.block;
    const bytes = this.blockBytes;
    for (const run of this.runs) {
      const { firsts } = run;
      // The first block whose first hash is >= key; the ref may also sit at the end of the one before.
      let lo = 0;
      let hi = firsts.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (firsts[mid]! < key) lo = mid + 1;
        else hi = mid;
      }
      for (let k = Math.max(0, lo - 1); k < firsts.length && (k < lo || firsts[k] === key); k += 1) {
        const count = Math.min(BLOCK, run.records - k * BLOCK);
        readSync(run.fd, bytes, 0, count * RECORD_BYTES, k * BLOCK * RECORD_BYTES);
        for (let r = 0; r < count; r += 1) {
          const at = r * WIDTH;
          if (block[at] === a && (block[at + 1]! & ~TEMPLATE_MASK) === hashB) {
            this.foundLine = block[at + 2]!;
            this.foundTemplate = block[at + 1]! & TEMPLATE_MASK;
            return true;
          }
        }
      }
    }
    return false;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let written = 0; written < bytes.length; )
    written += writeSync(fd, bytes, written, bytes.length - written, written);
}
