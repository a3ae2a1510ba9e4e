// Reading ahead on a worker thread changes nothing a person sees: the same report, rejects and summary
// as reading in this thread, for each format, with row errors; file-level errors keep their code.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCatalogIoError } from '../../src/errors.js';
import type { Profile } from '../../src/mappers/profile-types.js';
import { openSourceAhead } from '../../src/runner/read-ahead.js';
import { validateFile } from '../../src/runner/validate.js';
import { demoModel } from '../mappers/demo-model.js';

let dir: string;
const PROFILE: Profile = {
  entity: 'products',
  columns: { sku: 'prod_ref', name: 'prod_title', weight: 'prod_weight', tags: 'prod_tags' },
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-ahead-'));
  const lines = ['sku,name,weight,tags'];
  // Enough rows for several batches, a ragged row (a row error from the reader) and duplicates.
  for (let i = 0; i < 3000; i += 1) {
    if (i === 1500) lines.push('RAGGED,only two');
    else lines.push(`P-${i % 2900},"Name ${i}, x",${i % 50 === 3 ? 'heavy' : (i % 97) / 10},a|b`);
  }
  await writeFile(join(dir, 'feed.csv'), `${lines.join('\n')}\n`);
  await writeFile(
    join(dir, 'feed.ndjson'),
    `${[
      { sku: 'J1', name: { en: 'Mug' }, weight: 1, tags: ['a', 'b'] },
      { sku: 'J2', name: 'Pan', weight: 'x', extra: { deep: true } },
      { sku: 'J3', __proto__: 'odd key' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n')}\n`,
  );
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Feed');
  sheet.addRow(['sku', 'name', 'weight', 'tags']);
  for (let i = 0; i < 700; i += 1) sheet.addRow([`X-${i}`, `Name ${i}`, i % 9 === 0 ? 'n/a' : i / 4, 't']);
  await workbook.xlsx.writeFile(join(dir, 'feed.xlsx'));
});

async function both(file: string, profile: Profile = PROFILE) {
  const outputs = [];
  for (const readAhead of ['inline', 'thread'] as const) {
    const ext = file.endsWith('.xlsx') ? 'xlsx' : 'csv';
    const summary = await validateFile({
      source: join(dir, file),
      model: demoModel(),
      profile,
      readAhead,
      reportFile: join(dir, `${file}.${readAhead}.report.jsonl`),
      rejectsFile: join(dir, `${file}.${readAhead}.rejects.${ext}`),
    });
    outputs.push({
      summary,
      report: await readFile(join(dir, `${file}.${readAhead}.report.jsonl`), 'utf8'),
      rejects: ext === 'csv' ? await readFile(join(dir, `${file}.${readAhead}.rejects.csv`), 'utf8') : '',
    });
  }
  return outputs as [(typeof outputs)[0], (typeof outputs)[0]];
}

describe('validate with read-ahead on a thread', () => {
  it('CSV: same report, rejects and summary', async () => {
    const [inline, thread] = await both('feed.csv');
    expect(inline.summary.rows).toBe(3000);
    expect(inline.summary.outcomes.invalid).toBeGreaterThan(60);
    expect(thread).toEqual(inline);
  });

  it('NDJSON: same rows, nested and odd keys included', async () => {
    const [inline, thread] = await both('feed.ndjson', { entity: 'products' });
    expect(inline.summary.rows).toBe(3);
    expect(thread).toEqual(inline);
  });

  it('XLSX: same report and summary', async () => {
    const [inline, thread] = await both('feed.xlsx');
    expect(inline.summary.outcomes.invalid).toBe(78);
    expect(thread).toEqual(inline);
  });

  it('a file-level problem is the same coded error', async () => {
    await writeFile(join(dir, 'empty.csv'), '');
    const error = await openSourceAhead(join(dir, 'empty.csv'), {}, 'thread').catch((e: unknown) => e);
    expect(isCatalogIoError(error, 'SOURCE_EMPTY')).toBe(true);
    expect((error as Error).message).toContain('empty.csv');
  });

  it('closing early stops the thread', async () => {
    const opened = await openSourceAhead(join(dir, 'feed.csv'), {}, 'thread');
    let n = 0;
    for await (const _ of opened.rows) if (++n === 10) break;
    await opened.close();
    expect(n).toBe(10);
  });
});
