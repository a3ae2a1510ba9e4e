// Issue 4's bad inputs through the CLI: each is one coded message on stderr and exit code 2 — never a
// stack trace, never a hang — and a detected encoding is stated in what the command prints.
import { randomBytes } from 'node:crypto';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { ErrorCode } from '../../src/errors.js';
import { tempFile } from './helpers.js';

let workbook: Buffer;
beforeAll(async () => {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Data');
  sheet.addRow(['sku', 'name']);
  for (let i = 0; i < 2000; i++) sheet.addRow([`S${i}`, `name ${i} ${'x'.repeat(40)}`]);
  workbook = Buffer.from(await book.xlsx.writeBuffer());
});

async function preview(args: string[]) {
  const out = memoryOutput();
  const code = await main(['preview', ...args], out);
  return { code, stdout: out.stdout, stderr: out.stderr };
}

/** Exit 2, exactly one line on stderr ending in the code, no stack frames anywhere. */
function expectFatal(result: { code: number; stdout: string[]; stderr: string[] }, code: ErrorCode): string {
  expect(result.code).toBe(2);
  expect(result.stderr).toHaveLength(1);
  expect(result.stderr[0]).toMatch(new RegExp(`^catalog-io: .+ \\[${code}\\]$`));
  expect([...result.stdout, ...result.stderr].join('\n')).not.toMatch(/\n\s+at |\.ts:\d+:\d+/);
  return result.stderr[0]!;
}

describe('bad input through `catalog-io preview`', () => {
  const cases: Array<{ name: string; file: () => string; code: ErrorCode; says?: RegExp }> = [
    { name: 'a missing file', file: () => '/no/such/dir/feed.csv', code: 'SOURCE_NOT_FOUND' },
    { name: 'an empty file', file: () => tempFile('cli-empty.csv', ''), code: 'SOURCE_EMPTY' },
    {
      name: 'a header-only file',
      file: () => tempFile('cli-header.csv', 'sku;name\n'),
      code: 'CSV_NO_DATA',
    },
    {
      name: 'a binary file named .csv',
      file: () =>
        tempFile(
          'cli-image.csv',
          Buffer.concat([
            Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
            randomBytes(4000),
          ]),
        ),
      code: 'CSV_NOT_CSV',
    },
    {
      name: 'a truncated workbook',
      file: () => tempFile('cli-truncated.xlsx', workbook.subarray(0, Math.floor(workbook.length / 2))),
      code: 'XLSX_CORRUPT',
    },
    {
      name: 'bytes that are text in no supported encoding',
      file: () =>
        tempFile(
          'cli-nowhere.csv',
          Buffer.concat([Buffer.from('sku,name\nA,'), Buffer.from([0x81, 0x9d, 0x41, 0x0a])]),
        ),
      code: 'ENCODING_UNSUPPORTED',
    },
    {
      name: 'a JSON syntax error in a file',
      file: () => tempFile('cli-broken.json', '[\n  {"sku": "A1"},\n  {"sku": "B2",}\n]\n'),
      code: 'JSON_SYNTAX',
      says: /line 3, column \d+/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.code}, exit 2`, async () => {
      // --limit above the file's rows: errors found while reading count too, not only at open.
      const line = expectFatal(await preview([c.file(), '--limit', '100']), c.code);
      if (c.says) expect(line).toMatch(c.says);
    });
  }

  // An HTML page saved as .csv (a feed URL that answered with a login page) is refused, not read
  // as a one-column CSV headed `<!DOCTYPE html>`.
  it('an HTML page named .csv is CSV_NOT_CSV, exit 2', async () => {
    const html =
      '<!DOCTYPE html>\n<html><head><title>Login</title></head>\n<body><p>Please sign in, then retry.</p></body>\n</html>\n';
    const line = expectFatal(
      await preview([tempFile('cli-page.csv', html), '--limit', '100']),
      'CSV_NOT_CSV',
    );
    expect(line).toContain('looks like an HTML page');
    expect(line).toContain('<!DOCTYPE html>');
  });
});

describe('what preview states', () => {
  it('an encoding detected because the bytes are not UTF-8 is said in the output', async () => {
    const bytes = iconv.encode('sku;name\nA1;Crème brûlée\n', 'windows-1252');
    const result = await preview([tempFile('cli-cp1252.csv', bytes)]);
    expect(result.code).toBe(0);
    const all = [...result.stdout, ...result.stderr].join('\n');
    expect(all).toMatch(/encoding:\s+windows-1252/);
    expect(all).toContain('windows-1252 detected');
    expect(all).toContain('Crème brûlée');
  });
});
