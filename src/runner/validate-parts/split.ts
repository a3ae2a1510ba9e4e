// A CSV file cut into parts that end on record boundaries, read as bytes: each part is a buffer of its
// own (moved to a worker thread without a copy) with the physical line it starts on. Boundaries follow
// the CSV reader's rules (papaparse's): a quote opens a cell only at its start; inside quotes `""` is a
// quote, and a quote closes them only before the delimiter or a line break (after spaces, if any).
// Line breaks are LF or CRLF; a lone CR (which the reader also reads as a break) or a record longer
// than the reader's record limit ends the splitting: the rest of the file is read as one stream.
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const SPACE = 0x20;

/** Where one record ends: the index past its line break and the physical lines it spans. */
interface RecordEnd {
  end: number;
  lines: number;
}

/**
 * The end of the record that starts at `start` (a record boundary), or undefined when the bytes run out
 * before it ends (or before what follows a quote tells whether it closes).
 */
function recordEnd(buf: Buffer, start: number, delimiter: number): RecordEnd | undefined {
  let p = start;
  let lines = 1;
  for (;;) {
    const newline = buf.indexOf(LF, p);
    if (newline < 0) return undefined;
    const quote = buf.indexOf(QUOTE, p);
    if (quote < 0 || quote > newline) return { end: newline + 1, lines };
    // A quote before the line break: it opens a quoted cell only at the cell's start.
    if (quote !== start && buf[quote - 1] !== delimiter) {
      p = quote + 1;
      continue;
    }
    let j = quote + 1;
    for (;;) {
      const close = buf.indexOf(QUOTE, j);
      if (close < 0 || close + 1 >= buf.length) return undefined;
      if (buf[close + 1] === QUOTE) {
        j = close + 2;
        continue;
      }
      let k = close + 1;
      while (k < buf.length && buf[k] === SPACE) k++;
      if (k + 1 >= buf.length) return undefined;
      const after = buf[k];
      if (after === delimiter || after === LF || (after === CR && buf[k + 1] === LF)) {
        lines += countLf(buf, quote, close);
        p = k;
        break;
      }
      // A quote inside the quotes that does not close them: text.
      j = close + 1;
    }
  }
}

function countLf(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let at = buf.indexOf(LF, from); at >= 0 && at < to; at = buf.indexOf(LF, at + 1)) n++;
  return n;
}

/** A CR not followed by LF in `buf[from, to)`: the reader reads it as a line break, which parts do not follow. */
function hasLoneCr(buf: Buffer, from: number, to: number): boolean {
  for (let at = buf.indexOf(CR, from); at >= 0 && at < to; at = buf.indexOf(CR, at + 1))
    if (buf[at + 1] !== LF) return true;
  return false;
}

/** Whole records of `buf` from `start`: the end of the last one and the lines they span. */
function wholeRecords(buf: Buffer, start: number, delimiter: number): RecordEnd {
  let at = start;
  let lines = 0;
  for (;;) {
    const quote = buf.indexOf(QUOTE, at);
    // Records without a quote end at their line break: found without looking at their cells.
    const plainEnd = quote < 0 ? buf.lastIndexOf(LF) : quote === 0 ? -1 : buf.lastIndexOf(LF, quote - 1);
    if (plainEnd >= at) {
      lines += countLf(buf, at, plainEnd + 1);
      at = plainEnd + 1;
    }
    if (quote < 0) break;
    const record = recordEnd(buf, at, delimiter);
    if (!record) break;
    at = record.end;
    lines += record.lines;
  }
  return { end: at, lines };
}

/** The file's data: where its first record after the header starts, and on which line. */
export interface DataStart {
  offset: number;
  line: number;
}

/**
 * The record after the header, which starts on physical line `headerLine`; undefined when the head of
 * the file does not tell (a lone CR, a header past the first MiB).
 */
export async function dataStart(
  path: string,
  headerLine: number,
  delimiter: string,
): Promise<DataStart | undefined> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(1 << 20);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const buf = head.subarray(0, bytesRead);
    let at = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
    let line = 1;
    const code = delimiter.charCodeAt(0);
    while (line <= headerLine) {
      const record = recordEnd(buf, at, code);
      if (!record) return undefined;
      if (hasLoneCr(buf, at, record.end)) return undefined;
      const startLine = line;
      at = record.end;
      line += record.lines;
      if (startLine === headerLine) return { offset: at, line };
    }
    return undefined;
  } finally {
    await file.close();
  }
}

/**
 * Buffers shared with the part threads, given once: a part read into one moves as its index (no copy,
 * and no new memory for the garbage collector to account for at every part).
 */
export class SlotPool {
  readonly slots: SharedArrayBuffer[];
  private readonly free: number[];

  constructor(
    count: number,
    readonly size: number,
  ) {
    this.slots = Array.from({ length: count }, () => new SharedArrayBuffer(size));
    this.free = this.slots.map((_, i) => count - 1 - i);
  }

  /** A free buffer of at least `size` bytes (-1 and a buffer of its own when none fits). */
  take(size: number): { buf: Buffer; slot: number } {
    const slot = size <= this.size ? this.free.pop() : undefined;
    if (slot === undefined) return { buf: Buffer.allocUnsafeSlow(size), slot: -1 };
    return { buf: Buffer.from(this.slots[slot]!, 0, size), slot };
  }

  release(slot: number): void {
    if (slot >= 0) this.free.push(slot);
  }
}

/**
 * A part of the file: `length` bytes at the start of `bytes`, from `firstLine`. `bytes` is the pool's
 * buffer number `slot`, or (slot -1) a buffer of its own.
 */
export interface Part {
  bytes: ArrayBufferLike;
  slot: number;
  length: number;
  /** Where the part starts in the file. */
  offset: number;
  firstLine: number;
  /** The file's last part (its last record may have no line break, or an unclosed quote). */
  last: boolean;
}

/** Where the parts end: the rest of the file, from `offset` on `line`, is read as one stream. */
export interface Rest {
  rest: true;
  offset: number;
  line: number;
}

export class FileParts {
  /** The file, opened at the first part and read synchronously (see `next`). */
  private fd: number | undefined;
  private carry: Buffer = Buffer.alloc(0);
  /** File offset of `carry`'s first byte. */
  private offset: number;
  private line: number;
  private readAt: number;
  private ended = false;
  private readonly delimiter: number;

  constructor(
    private readonly path: string,
    start: DataStart,
    delimiter: string,
    private readonly partBytes: number,
    private readonly maxRecordBytes: number,
    private readonly pool: SlotPool,
  ) {
    this.offset = start.offset;
    this.readAt = start.offset;
    this.line = start.line;
    this.delimiter = delimiter.charCodeAt(0);
  }

  /** Bytes of the file read so far. */
  get bytesRead(): number {
    return this.readAt;
  }

  /** The next part, the rest of the file to read as a stream, or undefined at the end. */
  async next(): Promise<Part | Rest | undefined> {
    if (this.ended && this.carry.length === 0) return undefined;
    this.fd ??= openSync(this.path, 'r');
    const fd = this.fd;
    let size = this.partBytes;
    for (;;) {
      const { buf, slot } = this.pool.take(Math.max(size, this.carry.length + Math.min(size, 64 * 1024)));
      this.carry.copy(buf, 0);
      let filled = this.carry.length;
      while (!this.ended && filled < buf.length) {
        // Read here, not on the I/O thread pool: a file in the page cache is copied in microseconds,
        // and a wait for the pool's thread costs this thread a wake-up on a machine whose cores are busy.
        const bytesRead = readSync(fd, buf, filled, buf.length - filled, this.readAt);
        if (bytesRead === 0) this.ended = true;
        filled += bytesRead;
        this.readAt += bytesRead;
      }
      const data = buf.subarray(0, filled);
      if (this.ended) {
        this.carry = Buffer.alloc(0);
        if (filled === 0 || hasLoneCr(data, 0, filled)) {
          this.pool.release(slot);
          return filled === 0 ? undefined : this.rest();
        }
        return {
          bytes: buf.buffer,
          slot,
          length: filled,
          offset: this.offset,
          firstLine: this.line,
          last: true,
        };
      }
      const whole = wholeRecords(data, 0, this.delimiter);
      if (whole.end === 0) {
        // One record larger than the part: read on with more room, up to the reader's record limit.
        this.carry = Buffer.from(data);
        this.pool.release(slot);
        if (filled > this.maxRecordBytes) return this.rest();
        size = filled * 2;
        continue;
      }
      if (hasLoneCr(data, 0, whole.end)) {
        this.pool.release(slot);
        return this.rest();
      }
      const part: Part = {
        bytes: buf.buffer,
        slot,
        length: whole.end,
        offset: this.offset,
        firstLine: this.line,
        last: false,
      };
      this.carry = Buffer.from(data.subarray(whole.end));
      this.offset += whole.end;
      this.line += whole.lines;
      return part;
    }
  }

  private rest(): Rest {
    this.ended = true;
    this.carry = Buffer.alloc(0);
    return { rest: true, offset: this.offset, line: this.line };
  }

  async close(): Promise<void> {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
