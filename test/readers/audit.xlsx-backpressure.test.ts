// XLSX under a slow consumer: the other backpressure tests cover CSV, NDJSON and JSON only. A
// workbook far larger than the read-ahead must not be read whole before the first rows are used.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';

const ROWS = 120_000;
let file = '';

beforeAll(async () => {
  file = join(mkdtempSync(join(tmpdir(), 'catalog-io-xlsx-bp-')), 'big.xlsx');
  // Inline strings, as most exporters other than Excel write them: no shared-strings table to load first.
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false });
  const sheet = writer.addWorksheet('Products');
  sheet.addRow(['sku', 'name', 'price']).commit();
  for (let i = 0; i < ROWS; i++)
    sheet.addRow([`S${i}`, `Product ${i} with a longer name`, i + 0.99]).commit();
  sheet.commit();
  await writer.commit();
}, 120_000);

describe('XLSX backpressure', () => {
  // The sheet streams straight from the zip, read through its central directory: exceljs's own reader
  // read the zip front to back and copied every sheet to a temporary file when the workbook and its
  // relationships came after it (as here, and as Excel and exceljs write them), so the whole source
  // was taken before the first row.
  it('50 rows taken slowly read only a small share of the workbook', async () => {
    const source = await openSource(file);
    expect(source.totalBytes).toBeGreaterThan(2 * 1024 * 1024);
    let seen = 0;
    for await (const row of source.rows) {
      seen++;
      expect(row.location.text).toBe(`sheet Products row ${seen + 1}`);
      await sleep(1);
      if (seen === 50) break;
    }
    expect(seen).toBe(50);
    expect(source.bytesRead()).toBeLessThan(source.totalBytes! / 4);
    await source.close();
  });
});
