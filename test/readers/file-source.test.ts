// The local file source (src/readers/sources/file.ts): a regular file is read with fs.read, the next
// read asked for before the last one's chunks are parsed; a named pipe through a stream. The bytes are
// the file's, in order; the file is closed at its end, or when the source is closed (once no read is in
// flight), and not read after; timers run during a read. Standard input redirected from a file is read as
// a file, from where it stands, its size known, and left open.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync as closeFd,
  openSync as openFd,
  readdirSync,
  readlinkSync,
  readSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { openFile } from '../../src/readers/sources/file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'file-source-'));
});

async function bytesOf(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** Whether this process holds the file open (Linux: its descriptors are links in /proc/self/fd). */
function isOpen(path: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile (the listing's own descriptor)
    }
  });
}

describe('a regular file', () => {
  it('gives its bytes in order, in chunks of at most 64 KB, and counts them', async () => {
    // Not a multiple of the chunk size, with every byte value, so a shifted or repeated chunk shows.
    const content = Buffer.alloc(5 * 64 * 1024 + 12_345);
    for (let i = 0; i < content.length; i++) content[i] = (i * 7 + (i >> 16)) & 0xff;
    const path = join(dir, 'bytes.bin');
    writeFileSync(path, content);
    const source = await openFile(path);
    expect(source.totalBytes).toBe(content.length);
    const sizes: number[] = [];
    const parts: Buffer[] = [];
    for await (const chunk of source.chunks) {
      sizes.push(chunk.length);
      parts.push(Buffer.from(chunk));
    }
    expect(Buffer.concat(parts).equals(content)).toBe(true);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(64 * 1024);
    expect(sizes.length).toBe(6);
    expect(source.bytesRead()).toBe(content.length);
    await source.close();
  });

  it('is closed at its end, and when closed early is not read again', async () => {
    const path = join(dir, 'close.bin');
    writeFileSync(path, Buffer.alloc(300 * 1024, 1));
    const whole = await openFile(path);
    expect(isOpen(path)).toBe(true);
    expect((await bytesOf(whole.chunks)).length).toBe(300 * 1024);
    // Closed at the end of the file, before anyone calls close().
    expect(isOpen(path)).toBe(false);
    await whole.close();

    const early = await openFile(path);
    const iterator = early.chunks[Symbol.asyncIterator]();
    expect((await iterator.next()).value.length).toBe(64 * 1024);
    await early.close();
    expect(isOpen(path)).toBe(false);
    // Another file may now get the same descriptor: the closed source must not read from it.
    const other = join(dir, 'other.bin');
    writeFileSync(other, Buffer.alloc(100 * 1024, 2));
    const fd = openFd(other, 'r');
    try {
      expect((await iterator.next()).done).toBe(true);
    } finally {
      closeFd(fd);
    }
  });

  it('lets a timer run while a large file is read', async () => {
    const path = join(dir, 'large.csv');
    const line = 'SKU-00000000,A product name,A description with some words in it,Brand\n';
    writeFileSync(path, `sku,name,description,brand\n${line.repeat(60_000)}`);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      const source = await openSource(path);
      let rows = 0;
      for await (const _ of source.rows) rows++;
      await source.close();
      expect(rows).toBe(60_000);
    } finally {
      clearInterval(timer);
    }
    // About 4 MB: the reader turned to the event loop along the way, not only at the end.
    expect(ticks).toBeGreaterThan(1);
  });
});

describe('a named pipe', () => {
  it('is read through a stream, as another process writes it', async () => {
    const path = join(dir, 'feed.csv');
    execFileSync('mkfifo', [path]);
    // Opening a pipe waits for its other end: the writer is another process, which opens it once.
    const writer = spawn('sh', [
      '-c',
      `{ printf 'sku,name\\nA1,Chaise\\n'; printf 'B2,Table\\n'; } > "$1"`,
      'sh',
      path,
    ]);
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    const source = await openFile(path);
    const text = (await bytesOf(source.chunks)).toString('utf8');
    await source.close();
    await exited;
    expect(text).toBe('sku,name\nA1,Chaise\nB2,Table\n');
  });
});

describe('standard input redirected from a regular file', () => {
  it('is read as a file from where it stands (a shell may have read a line), its size known, and left open', () => {
    const content = Buffer.alloc(3 * 64 * 1024 + 777);
    for (let i = 0; i < content.length; i++) content[i] = (i * 13 + (i >> 12)) & 0xff;
    const path = join(dir, 'stdin.bin');
    writeFileSync(path, content);
    const script = join(dir, 'read-stdin.mts');
    const source = fileURLToPath(new URL('../../src/readers/sources/file.ts', import.meta.url));
    writeFileSync(
      script,
      [
        "import { createHash } from 'node:crypto';",
        "import { fstatSync } from 'node:fs';",
        `import { openStdin } from ${JSON.stringify(source)};`,
        'const stdin = openStdin();',
        'const hash = createHash("sha256");',
        'let chunks = 0;',
        'for await (const chunk of stdin.chunks) { hash.update(chunk); chunks += 1; }',
        'await stdin.close();',
        'const open = fstatSync(0).isFile();',
        'process.stdout.write(JSON.stringify({ total: stdin.totalBytes, read: stdin.bytesRead(), chunks, hash: hash.digest("hex"), open }));',
      ].join('\n'),
    );
    const fd = openFd(path, 'r');
    try {
      // The first 1,000 bytes taken already: standard input starts after them.
      readSync(fd, Buffer.alloc(1000), 0, 1000, null);
      const out = execFileSync(process.execPath, ['--import', 'tsx', script], {
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
        stdio: [fd, 'pipe', 'pipe'],
        encoding: 'utf8',
      });
      const said = JSON.parse(out) as {
        total: number;
        read: number;
        chunks: number;
        hash: string;
        open: boolean;
      };
      expect(said).toEqual({
        total: content.length,
        read: content.length - 1000,
        // Read as a file is: chunks of at most 64 KB (a stream gives other sizes).
        chunks: Math.ceil((content.length - 1000) / (64 * 1024)),
        hash: createHash('sha256').update(content.subarray(1000)).digest('hex'),
        open: true,
      });
    } finally {
      closeFd(fd);
    }
  });
});
