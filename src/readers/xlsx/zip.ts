// A workbook's zip, read through its central directory (yauzl): any part can be opened in any order, so
// the workbook, the shared strings and the styles are read first and the sheets stream straight from the
// zip. Reading the zip front to back instead (exceljs's way) meant copying every sheet to a temporary
// file when the workbook came after it (Excel's order, and exceljs's own), and lost parts of workbooks
// whose entry sizes follow the data.
//
// What the parts may inflate to is bounded before a byte is inflated (a zip bomb costs nothing): the
// directory gives each part's sizes, and yauzl checks while inflating that a part keeps to them.
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { CatalogIoError } from '../../errors.js';
import { formatSize, type InflateLimits } from '../options.js';

export interface ZipArchive {
  has(path: string): boolean;
  /**
   * The part's bytes, decompressed and checked against the sizes the directory gives. `held`: the part
   * is kept in memory (shared strings, styles), which a smaller limit bounds. XLSX_TOO_LARGE when the
   * part, or all the parts opened so far, would inflate past the limits.
   */
  open(path: string, use?: { held?: boolean }): Promise<Readable>;
  /** The part's size once decompressed (0 when absent). */
  sizeOf(path: string): number;
  /** Fails now, as `open` would, when the parts together would inflate past the limit. */
  checkTotal(paths: string[]): void;
  close(): void;
}

export async function openZip(file: string, limits: InflateLimits, source: string): Promise<ZipArchive> {
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
  let inflated = 0;
  const tooLarge = (what: string) =>
    new CatalogIoError(
      'XLSX_TOO_LARGE',
      `Workbook too large: in ${source}, ${what}. A zip bomb? If the workbook is genuine, raise --max-inflate (now ${formatSize(limits.total)})`,
    );
  const checkTotal = (sizes: number[], what: string) => {
    const total = sizes.reduce((sum, size) => sum + size, inflated);
    if (total > limits.total) {
      throw tooLarge(`${what} inflate to ${formatSize(total)}, more than ${formatSize(limits.total)}`);
    }
  };
  return {
    has: (path) => find(path) !== undefined,
    sizeOf: (path) => find(path)?.uncompressedSize ?? 0,
    checkTotal(paths) {
      checkTotal(
        paths.map((path) => find(path)?.uncompressedSize ?? 0),
        `the parts read (${paths.join(', ')})`,
      );
    },
    async open(path, use = {}) {
      const entry = find(path);
      if (!entry) throw new Error(`the part ${path} is missing`);
      const { uncompressedSize: size, compressedSize: packed } = entry;
      const limit = use.held ? limits.heldPart : limits.total;
      if (size > limit) {
        throw tooLarge(
          `the part ${entry.fileName} inflates to ${formatSize(size)}, more than ${formatSize(limit)}${use.held ? ' for a part held in memory' : ''}`,
        );
      }
      if (size > limits.ratioFloor && size > packed * limits.ratio) {
        throw tooLarge(
          `the part ${entry.fileName} inflates to ${formatSize(size)} from ${formatSize(packed)} (${Math.round(size / Math.max(packed, 1))} times; at most ${limits.ratio} times past ${formatSize(limits.ratioFloor)})`,
        );
      }
      checkTotal([size], `the parts read up to ${entry.fileName}`);
      inflated += size;
      return zip.openReadStreamPromise(entry);
    },
    close: () => zip.close(),
  };
}
