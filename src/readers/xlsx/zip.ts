// A workbook's zip, read through its central directory (yauzl): any part can be opened in any order, so
// the workbook, the shared strings and the styles are read first and the sheets stream straight from the
// zip. Reading the zip front to back instead (exceljs's way) meant copying every sheet to a temporary
// file when the workbook came after it (Excel's order, and exceljs's own), and lost parts of workbooks
// whose entry sizes follow the data.
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

export interface ZipArchive {
  has(path: string): boolean;
  /** The part's bytes, decompressed and checked against the sizes the directory gives. */
  open(path: string): Promise<Readable>;
  /** The part's size once decompressed (0 when absent). */
  sizeOf(path: string): number;
  close(): void;
}

export async function openZip(file: string): Promise<ZipArchive> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, strictFileNames: false });
  // Part names compared without case: a few writers spell the folders differently from their references.
  const entries = new Map<string, yauzl.Entry>();
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.replace(/^\/+/, '').toLowerCase();
      if (!name.endsWith('/')) entries.set(name, entry);
    }
  } catch (err) {
    zip.close();
    throw err;
  }
  const find = (path: string) => entries.get(path.replace(/^\/+/, '').toLowerCase());
  return {
    has: (path) => find(path) !== undefined,
    sizeOf: (path) => find(path)?.uncompressedSize ?? 0,
    open(path) {
      const entry = find(path);
      if (!entry) return Promise.reject(new Error(`the part ${path} is missing`));
      return zip.openReadStreamPromise(entry);
    },
    close: () => zip.close(),
  };
}
