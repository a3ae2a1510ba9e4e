// An output file that cannot be written says why in words, and names the file: the report, the rejects
// file and the import's run report alike.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCatalogIoError } from '../src/errors.js';
import { faultProblem, writeProblem } from '../src/files.js';
import { openRunReport } from '../src/writers/import-report.js';
import { openLineFile } from '../src/writers/lines.js';

describe('an output file that cannot be written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'file-errors-'));
  const aFile = join(dir, 'feed.csv');
  writeFileSync(aFile, 'x\n');
  const missing = join(dir, 'missing', 'report.csv');
  const throughFile = join(aFile, 'report.csv');

  async function failure(open: () => unknown): Promise<Error> {
    try {
      await open();
    } catch (err) {
      expect(isCatalogIoError(err, 'CONFIG_INVALID')).toBe(true);
      return err as Error;
    }
    throw new Error('opened');
  }

  it('a path through a file, a folder; a missing folder is made', async () => {
    const lines = [
      [throughFile, `a part of ${aFile} is a file, not a folder`],
      [dir, 'it is a folder'],
    ] as const;
    for (const [path, why] of lines)
      expect((await failure(() => openLineFile(path))).message).toBe(`Cannot write ${path}: ${why}`);
    expect((await failure(() => openRunReport(throughFile))).message).toBe(
      `Cannot write ${throughFile}: a part of ${aFile} is a file, not a folder`,
    );
    // A nightly run's report in a folder of the day: made, not refused.
    const lineFile = await openLineFile(missing);
    await lineFile.close();
    expect(existsSync(missing)).toBe(true);
    const report = join(dir, 'nightly', '2026-11-26', 'products.report.csv');
    const run = await openRunReport(report);
    await run.close();
    expect(existsSync(report)).toBe(true);
  });

  it('a full disk, a size limit and permissions, in words', () => {
    const error = (code: string) => Object.assign(new Error(`${code}: raw`), { code });
    expect(writeProblem('/x/r.csv', error('ENOSPC'))).toBe('the disk is full');
    expect(writeProblem('/x/r.csv', error('EACCES'))).toBe('permission denied');
    expect(writeProblem('/x/r.csv', error('EROFS'))).toBe('the file system is read-only');
    expect(writeProblem('/x/r.csv', error('EFBIG'))).toBe(
      'the file reached the size this process may write (ulimit -f)',
    );
    expect(writeProblem('/x/r.csv', error('EIO'))).toBe('EIO: raw');
    // A folder that is there but makes no such file (a kernel file system) is not said to be missing.
    expect(writeProblem('/proc/r.csv', error('ENOENT'))).toBe('the folder /proc takes no new files');
  });

  it('any other call says a missing path for itself, not as its folder', () => {
    const caught = (run: () => unknown): unknown => {
      try {
        run();
      } catch (err) {
        return err;
      }
      throw new Error('no error');
    };
    // Reading a file that is not there: the file is missing, its folder is fine.
    expect(faultProblem(caught(() => readFileSync(join(dir, 'gone.json'))))).toBe(
      'it, or a folder above it, does not exist',
    );
    expect(faultProblem(caught(() => readFileSync(join(aFile, 'x.json'))))).toBe(
      `a part of ${aFile} is a file, not a folder`,
    );
    expect(faultProblem(caught(() => mkdirSync(aFile)))).toBe('a file of that name is in the way');
    expect(faultProblem(caught(() => readFileSync(dir)))).toBe('it is a folder');
  });
});
