// A byte source: what the format readers consume. Adapters (file, URL, stdin) produce one; the
// readers never know where the bytes came from.

export interface ByteSource {
  /** The source as given, safe to show (URL credentials stripped). */
  name: string;
  /** Lower-cased file name used for format detection (URL path or file path, without query). */
  fileName: string;
  /** A local file's path (a workbook is read in place rather than front to back). */
  path?: string;
  /** The bytes, pulled on demand: nothing is read ahead of the consumer beyond one chunk. */
  chunks: AsyncIterable<Buffer>;
  /** Size in bytes when known (file size, Content-Length): for progress. */
  totalBytes?: number;
  /** Bytes taken from the underlying source so far (before decompression). */
  bytesRead(): number;
  close(): Promise<void>;
}

/** Counts the bytes that pass through, for `bytesRead()`. */
export function counted(chunks: AsyncIterable<Buffer>): {
  chunks: AsyncIterable<Buffer>;
  count: () => number;
} {
  let total = 0;
  async function* pass() {
    for await (const chunk of chunks) {
      total += chunk.length;
      yield chunk;
    }
  }
  return { chunks: pass(), count: () => total };
}
