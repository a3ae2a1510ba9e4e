// Pull-based backpressure: a slow consumer keeps the bytes read (and so memory) bounded, whatever
// the file size. Nothing is read ahead of the consumer beyond a chunk or two.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { tempFile } from './helpers.js';

const ROWS = 200_000;
const LIMIT = 512 * 1024;

function csvFile(): string {
  const lines = ['sku,name,description,price'];
  for (let i = 0; i < ROWS; i++)
    lines.push(`S${i},Name ${i},"A description, with a comma, for item ${i}",${i}.99`);
  return tempFile('big.csv', `${lines.join('\n')}\n`);
}

function ndjsonFile(): string {
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++)
    lines.push(JSON.stringify({ sku: `S${i}`, nested: { price: i, tags: ['a', 'b'] } }));
  return tempFile('big.ndjson', `${lines.join('\n')}\n`);
}

function jsonFile(): string {
  const items: string[] = [];
  for (let i = 0; i < ROWS; i++)
    items.push(JSON.stringify({ sku: `S${i}`, nested: { price: i, tags: ['a', 'b'] } }));
  return tempFile('big.json', `[\n${items.join(',\n')}\n]\n`);
}

describe('backpressure with a slow consumer', () => {
  for (const [name, make] of [
    ['CSV', csvFile],
    ['NDJSON', ndjsonFile],
    ['JSON', jsonFile],
  ] as const) {
    it(`${name}: bytes read stay bounded while the consumer is slow`, async () => {
      const source = await openSource(make());
      expect(source.totalBytes).toBeGreaterThan(10 * 1024 * 1024);
      let seen = 0;
      for await (const row of source.rows) {
        seen++;
        expect(row.index).toBe(seen);
        await sleep(1);
        if (seen === 50) break;
      }
      expect(seen).toBe(50);
      expect(source.bytesRead()).toBeLessThan(LIMIT);
      await source.close();
    });
  }

  it('CSV: reading on keeps bytes read close to the rows consumed', async () => {
    const source = await openSource(csvFile());
    const iterator = source.rows[Symbol.asyncIterator]();
    let last = 0;
    for (let i = 0; i < 20_000; i++) {
      const next = await iterator.next();
      last = next.value!.location.line;
      if (i % 5000 === 0) await sleep(5);
    }
    // 20,000 rows are about a tenth of the file: what was read is that plus a few chunks.
    const consumedShare = last / ROWS;
    expect(source.bytesRead()).toBeLessThan(source.totalBytes! * consumedShare + LIMIT);
    await source.close();
  });
});
