// An on-disk hash table whose memory use does not grow with its size: the import state's storage
// (known-state.ts). Open addressing with linear probing over fixed 64-byte slots, read and written with
// positioned reads and writes through a small cache of 4 KiB pages. Keys are 128-bit hashes
// (the caller's; the first 16 bytes of the buffer given), values at most 46 bytes.
//
// File: a 4 KiB header page (a magic line, then JSON: the table's size and the caller's metadata),
// then 2^bits slots. A slot: 16 bytes of key, 1 byte of status (empty, live, deleted), 1 byte of
// value length, the value. A slot's home is the key's top `bits` bits, so slots are in key order
// modulo the probing: doubling the table, read in slot order, writes the new one nearly in order.
// Lookups do not synchronise with other processes: one run owns a table file (its own temporary
// copy, named by host and process: workName), and the caller publishes it by renaming it over the
// previous one.

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { takeOldest } from '../bounded-map.js';
import { writeFully } from '../files.js';

const PAGE = 4096;
const SLOT = 64;
const SLOTS_PER_PAGE = PAGE / SLOT;
const KEY = 16;
const STATUS = 16;
const LENGTH = 17;
const VALUE = 18;
export const MAX_VALUE = SLOT - VALUE;
const EMPTY = 0;
const LIVE = 1;
const DELETED = 2;
const MAGIC = 'catalog-io state table 1\n';
/** Pages kept in memory: 4 MiB, whatever the table's size. */
const CACHE_PAGES = 1024;
/** Pages per read or write when the whole table is walked (rehash, retain): 4 MiB. */
const CHUNK_PAGES = 1024;
/** Past this share of used slots (live or deleted) the table doubles or is rebuilt. */
const MAX_LOAD = 0.7;
const MIN_BITS = 10;
/** 2^28 slots of 64 bytes: 16 GiB, the most a table may take on disk. */
const MAX_BITS = 28;

export class TableFullError extends Error {}

interface Page {
  buf: Buffer;
  dirty: boolean;
}

/** What a table file says of itself, read without loading the table. */
export interface TableHeader<M> {
  bits: number;
  live: number;
  deleted: number;
  meta: M;
}

export class SlotTable {
  private cache = new Map<number, Page>();
  /**
   * A bit per page never written, in a table made empty here: such a page is all empty slots, so a
   * lookup there reads nothing (a run that starts without a state looks up every row in vain).
   */
  private blank: Uint8Array | undefined;

  private constructor(
    private fd: number,
    /** The file this table lives in; a rehash replaces it under the same name. */
    readonly file: string,
    private bits: number,
    private live: number,
    private deleted: number,
  ) {}

  /** A new empty table with room for `expected` keys before it grows (a sparse file: zeros are empty slots). */
  static create(file: string, expected = 0): SlotTable {
    let bits = MIN_BITS;
    while (bits < MAX_BITS && 2 ** bits * MAX_LOAD < expected) bits += 1;
    return SlotTable.ofBits(file, bits);
  }

  private static ofBits(file: string, bits: number): SlotTable {
    const fd = openSync(file, 'w+');
    ftruncateSync(fd, PAGE + 2 ** bits * SLOT);
    const table = new SlotTable(fd, file, bits, 0, 0);
    table.blank = new Uint8Array(Math.ceil(2 ** bits / SLOTS_PER_PAGE / 8)).fill(0xff);
    table.writeHeader(null);
    return table;
  }

  /** A copy of the table in `from`, to change at will in `to` (the original stays as it is). */
  static copy(from: string, to: string): SlotTable {
    const header = readTableHeader(from);
    if (!header) throw new Error(`${from} is not a state table`);
    copyFileSync(from, to);
    return new SlotTable(openSync(to, 'r+'), to, header.bits, header.live, header.deleted);
  }

  get size(): number {
    return this.live;
  }

  /**
   * Room for `more` new keys without growing. Keys set in key order need it: into a table that is
   * too small, they all land in its first slots, and each probes past all the others.
   */
  reserve(more: number): void {
    if (this.live + this.deleted + more > 2 ** this.bits * MAX_LOAD) this.rehash(this.live + more, MAX_LOAD);
  }

  /** The key's value: a view into the cache, valid until the table is next used. */
  get(key: Buffer): Buffer | undefined {
    const at = this.find(key);
    if (!at.found) return undefined;
    const page = this.page(at.slot);
    const o = offsetOf(at.slot);
    return page.buf.subarray(o + VALUE, o + VALUE + page.buf[o + LENGTH]!);
  }

  set(key: Buffer, value: Buffer): void {
    if (value.length > MAX_VALUE) throw new RangeError(`a value holds at most ${MAX_VALUE} bytes`);
    let at = this.find(key);
    if (!at.found && this.live + this.deleted + 1 > 2 ** this.bits * MAX_LOAD) {
      this.rehash();
      at = this.find(key);
    }
    const page = this.page(at.slot);
    const o = offsetOf(at.slot);
    if (!at.found) {
      if (page.buf[o + STATUS] === DELETED) this.deleted -= 1;
      this.live += 1;
      key.copy(page.buf, o, 0, KEY);
      page.buf[o + STATUS] = LIVE;
    }
    page.buf[o + LENGTH] = value.length;
    value.copy(page.buf, o + VALUE);
    page.buf.fill(0, o + VALUE + value.length, o + SLOT);
    page.dirty = true;
  }

  delete(key: Buffer): void {
    const at = this.find(key);
    if (!at.found) return;
    const page = this.page(at.slot);
    // Marked, not emptied: the keys probed past this slot must still be found.
    page.buf[offsetOf(at.slot) + STATUS] = DELETED;
    page.dirty = true;
    this.live -= 1;
    this.deleted += 1;
  }

  /** Deletes every entry whose value `keep` refuses, walking the table in large reads. */
  retain(keep: (value: Buffer) => boolean): void {
    this.walk((chunk, o) => {
      if (keep(chunk.subarray(o + VALUE, o + VALUE + chunk[o + LENGTH]!))) return false;
      chunk[o + STATUS] = DELETED;
      this.live -= 1;
      this.deleted += 1;
      return true;
    });
  }

  /** Writes the cached pages and the header, and makes both durable. */
  commit(meta: unknown): void {
    this.flushPages();
    this.writeHeader(meta);
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
    this.cache.clear();
  }

  /** Closes the table and removes its file. */
  remove(): void {
    this.close();
    rmSync(this.file, { force: true });
  }

  /** The key's slot if present, else where it would go (the first deleted slot on its way, or the empty one). */
  private find(key: Buffer): { slot: number; found: boolean } {
    const mask = 2 ** this.bits - 1;
    let free = -1;
    let slot = key.readUInt32BE(0) >>> (32 - this.bits);
    for (let n = 0; n <= mask; n++, slot = (slot + 1) & mask) {
      if (this.isBlank(slot)) return { slot: free >= 0 ? free : slot, found: false };
      const buf = this.page(slot).buf;
      const o = offsetOf(slot);
      const status = buf[o + STATUS];
      if (status === EMPTY) return { slot: free >= 0 ? free : slot, found: false };
      if (status === DELETED) {
        if (free < 0) free = slot;
      } else if (buf.compare(key, 0, KEY, o, o + KEY) === 0) return { slot, found: true };
    }
    // Never reached below MAX_LOAD: there is always an empty slot.
    return { slot: free, found: false };
  }

  /**
   * The page holding `slot`, from the cache or the file; the page read longest ago makes room (lookups
   * by hash are random, so keeping the most recently used pages would hit no more often).
   */
  private page(slot: number): Page {
    const n = Math.floor(slot / SLOTS_PER_PAGE);
    const cached = this.cache.get(n);
    if (cached) return cached;
    let page: Page;
    if (this.cache.size >= CACHE_PAGES) {
      // The oldest page's buffer is reused: a lookup that misses allocates nothing.
      const [oldest, evicted] = takeOldest(this.cache)!;
      if (evicted.dirty) writeFully(this.fd, evicted.buf.subarray(0, PAGE), PAGE + oldest * PAGE);
      page = evicted;
      page.dirty = false;
    } else page = { buf: Buffer.alloc(PAGE), dirty: false };
    if (this.isBlank(slot)) {
      page.buf.fill(0);
      this.blank![n >>> 3]! &= ~(1 << (n & 7));
    } else readSync(this.fd, page.buf, 0, PAGE, PAGE + n * PAGE);
    this.cache.set(n, page);
    return page;
  }

  private isBlank(slot: number): boolean {
    if (!this.blank) return false;
    const n = Math.floor(slot / SLOTS_PER_PAGE);
    return (this.blank[n >>> 3]! & (1 << (n & 7))) !== 0;
  }

  private flushPages(): void {
    for (const [n, page] of this.cache) {
      if (!page.dirty) continue;
      writeFully(this.fd, page.buf.subarray(0, PAGE), PAGE + n * PAGE);
      page.dirty = false;
    }
  }

  /**
   * Calls `visit` for every live slot, in slot order, on chunks read straight from the file (the
   * cache is written out and emptied first); a chunk `visit` changed is written back.
   */
  private walk(visit: (chunk: Buffer, offset: number) => boolean): void {
    this.flushPages();
    this.cache.clear();
    const pages = 2 ** this.bits / SLOTS_PER_PAGE;
    const chunk = Buffer.alloc(Math.min(pages, CHUNK_PAGES) * PAGE);
    for (let first = 0; first < pages; first += CHUNK_PAGES) {
      const bytes = Math.min(CHUNK_PAGES, pages - first) * PAGE;
      readSync(this.fd, chunk, 0, bytes, PAGE + first * PAGE);
      let changed = false;
      for (let o = 0; o < bytes; o += SLOT) {
        if (chunk[o + STATUS] === LIVE && visit(chunk, o)) changed = true;
      }
      if (changed) writeFully(this.fd, chunk.subarray(0, bytes), PAGE + first * PAGE);
    }
  }

  /**
   * Moves the live entries to a new file, the smallest that holds `keys` at `load` (by default: twice
   * as large, unless mostly deleted slots filled this one).
   */
  private rehash(keys = this.live + 1, load = MAX_LOAD / 2): void {
    let bits = this.bits;
    while (keys > 2 ** bits * load) bits += 1;
    if (bits > MAX_BITS) throw new TableFullError(`a state table holds at most ${2 ** MAX_BITS} slots`);
    const next = SlotTable.ofBits(`${this.file}.grow`, bits);
    this.walk((chunk, o) => {
      next.set(chunk.subarray(o, o + KEY), chunk.subarray(o + VALUE, o + VALUE + chunk[o + LENGTH]!));
      return false;
    });
    next.flushPages();
    closeSync(this.fd);
    renameSync(next.file, this.file);
    this.fd = next.fd;
    this.bits = next.bits;
    this.live = next.live;
    this.deleted = 0;
    this.cache = next.cache;
    this.blank = next.blank;
  }

  private writeHeader(meta: unknown): void {
    const text = `${MAGIC}${JSON.stringify({ bits: this.bits, live: this.live, deleted: this.deleted, meta })}\n`;
    const buf = Buffer.alloc(PAGE);
    if (buf.write(text) !== Buffer.byteLength(text))
      throw new Error('the state header does not fit its page');
    writeFully(this.fd, buf, 0);
  }
}

/** The header of a table file, or undefined when the file is missing, not a table, or cut short. */
export function readTableHeader<M>(file: string): TableHeader<M> | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(PAGE);
    readSync(fd, buf, 0, PAGE, 0);
    const text = buf.toString('utf8');
    if (!text.startsWith(MAGIC)) return undefined;
    const header = JSON.parse(text.slice(MAGIC.length, text.indexOf('\n', MAGIC.length))) as TableHeader<M>;
    if (!Number.isInteger(header.bits) || header.bits < MIN_BITS || header.bits > MAX_BITS) return undefined;
    return fstatSync(fd).size === PAGE + 2 ** header.bits * SLOT ? header : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function offsetOf(slot: number): number {
  return (slot % SLOTS_PER_PAGE) * SLOT;
}

/** The file a run works in: named by host and process, so an abandoned one can be told from a live one. */
export function workName(base: string): string {
  return `${base}.state.${fileSafe(hostname())}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Work files of runs on this host that are gone (killed before they saved). */
export function removeAbandoned(dir: string, base: string): void {
  const prefix = `${base}.state.${fileSafe(hostname())}.`;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix) || !/\.tmp(\.grow)?$/.test(name)) continue;
    const pid = Number(name.slice(prefix.length).split('.')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      rmSync(path.join(dir, name), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The rename itself made durable, where the platform allows syncing a folder. */
export function syncFolder(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not supported here (Windows): the rename is still atomic.
  }
}

function fileSafe(name: string): string {
  return encodeURIComponent(name).replace(/[%*'()!~]/g, '_');
}
