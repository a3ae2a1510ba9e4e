// The range reader behind the console's grids: a journal of many rows paged, filtered, searched and
// sorted through an on-disk index of line offsets, extended as a running import appends, rebuilt when a
// resume replaces the journal; and the problems grouped by kind and column.
import { appendFileSync, mkdtempSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindOf, problemsOf, topProblems } from '../../src/console/problems.js';
import { ReportIndex, rawField } from '../../src/console/report-index.js';
import { ReportViews } from '../../src/console/report-view.js';
import { parseChanges } from '../../src/console/runs.js';

const ROWS = 200_000;

/** Row n's report line: every 50th invalid (its weight), every 1000th failed (HTTP 409). */
function line(n: number) {
  const outcome =
    n % 1000 === 0 ? 'failed' : n % 50 === 0 ? 'invalid' : n % 2 === 0 ? 'created' : 'unchanged';
  return {
    location: `line ${n + 1}`,
    entity: 'products',
    ref: `REF-${String(n).padStart(6, '0')}`,
    outcome,
    id: outcome === 'created' ? String(n) : '',
    status: outcome === 'failed' ? '409' : '',
    changed: '',
    field: outcome === 'invalid' ? 'prod_weight' : '',
    column: outcome === 'invalid' ? 'Weight' : '',
    value: outcome === 'invalid' ? `heavy "${n}"` : '',
    message:
      outcome === 'invalid'
        ? `column "Weight": must be a number, got "heavy \\"${n}\\""`
        : outcome === 'failed'
          ? `Catalog API refused the POST (409): ref REF-${n} already exists`
          : '',
    assets: '',
  };
}

/** A journal as an import writes it: row records among batch markers, a last line not yet ended. */
function writeJournal(file: string, from: number, to: number, tail = ''): void {
  let text = '';
  for (let n = from; n < to; n++) {
    if (n % 100 === 0) text += `${JSON.stringify({ t: 'inflight', b: n / 100, intents: [] })}\n`;
    text += `${JSON.stringify({ t: 'row', n: n + 1, line: line(n) })}\n`;
    if (n % 100 === 99) text += `${JSON.stringify({ t: 'done', b: Math.floor(n / 100) })}\n`;
    if (text.length > 1 << 20) {
      appendFileSync(file, text);
      text = '';
    }
  }
  appendFileSync(file, text + tail);
}

describe('the report index', () => {
  const dir = mkdtempSync(join(tmpdir(), 'report-index-'));
  const journal = join(dir, 'rows.jsonl');
  const idx = join(dir, 'rows.idx');
  writeFileSync(journal, '');
  writeJournal(journal, 0, ROWS, '{"t":"row","n":200001,"line":{"loc');
  const index = new ReportIndex(journal, 'journal', idx);
  const views = new ReportViews(index);

  it('pages through a large journal by offsets, at any depth', async () => {
    const started = Date.now();
    const last = await views.page({ page: ROWS / 100, size: 100 });
    const built = Date.now() - started;
    expect(last.total).toBe(ROWS);
    expect(last.last_page).toBe(ROWS / 100);
    expect(last.data.map((r) => r.ref)).toEqual(
      Array.from({ length: 100 }, (_, i) => `REF-${String(ROWS - 100 + i).padStart(6, '0')}`),
    );
    // 16 bytes a report line on disk; the batch markers and the unended last line are not lines.
    expect(statSync(idx).size).toBe(ROWS * 16);
    expect(index.outcomes).toEqual({ created: 96_000, unchanged: 100_000, invalid: 3_800, failed: 200 });
    const again = Date.now();
    const middle = await views.page({ page: 1001, size: 100 });
    expect(middle.data[0]).toMatchObject({ ref: 'REF-100000', n: 100_000 });
    console.log(
      `index of ${ROWS} rows built in ${built} ms; a page at row 100,000 in ${Date.now() - again} ms`,
    );
  });

  it('filters by outcome from the index, searches ref and value, sorts by a column', async () => {
    const failed = await views.page({ outcomes: ['failed', 'invalid'], page: 2, size: 10 });
    expect(failed.total).toBe(4_000);
    expect(failed.data.map((r) => r.ref)).toEqual(
      [10, 11, 12, 13, 14, 15, 16, 17, 18, 19].map((i) => `REF-${String(i * 50).padStart(6, '0')}`),
    );
    const found = await views.page({ search: 'heavy "123450"', page: 1, size: 10 });
    expect(found.data.map((r) => r.ref)).toEqual(['REF-123450']);
    const byRef = await views.page({
      outcomes: ['failed'],
      sort: { field: 'ref', dir: 'desc' },
      page: 1,
      size: 3,
    });
    expect(byRef.data.map((r) => r.ref)).toEqual(['REF-199000', 'REF-198000', 'REF-197000']);
    const newestFirst = await views.page({ sort: { field: 'n', dir: 'desc' }, page: 1, size: 2 });
    expect(newestFirst.data.map((r) => r.n)).toEqual([ROWS - 1, ROWS - 2]);
  });

  it('groups the problems by kind and column', async () => {
    const problems = await topProblems(index);
    expect(problems.map((p) => [p.rows, p.outcome, p.column, p.kind])).toEqual([
      [3_800, 'invalid', 'Weight', 'must be a number, got "…"'],
      [200, 'failed', '', 'HTTP 409: Catalog API refused the POST (N): ref REF-N already exists'],
    ]);
  });

  it('extends as a running import appends, and starts again when a resume replaces the journal', async () => {
    // The line that was being written ends; more rows follow.
    const ended = `cation":"line x","entity":"products","ref":"LATE","outcome":"created"}}\n`;
    appendFileSync(journal, ended);
    writeJournal(journal, ROWS + 1, ROWS + 11);
    const grown = await views.page({
      outcomes: ['created'],
      page: 1,
      size: 1,
      sort: { field: 'n', dir: 'desc' },
    });
    expect(index.count).toBe(ROWS + 11);
    expect(grown.total).toBe(96_000 + 1 + 5);
    const fresh = join(dir, 'rows.resume');
    writeFileSync(fresh, '');
    writeJournal(fresh, 0, 20);
    renameSync(fresh, journal);
    const replaced = await views.page({ page: 1, size: 50 });
    expect(replaced.total).toBe(20);
    expect(replaced.data.at(-1)?.ref).toBe('REF-000019');
  });
});

describe('reading report lines', () => {
  it('reads one field from the JSON text of a line, escapes and all', () => {
    const text = JSON.stringify({
      t: 'row',
      line: { location: 'x "ref":"no"', ref: 'A "quoted" \\ ref', outcome: 'invalid', message: '' },
    });
    expect(rawField(text, 'ref')).toBe('A "quoted" \\ ref');
    expect(rawField(text, 'outcome')).toBe('invalid');
    expect(rawField(text, 'message')).toBe('');
    expect(rawField(text, 'column')).toBe('');
  });

  it("parses a plan's changes, values as JSON", () => {
    expect(
      parseChanges(
        'prod_title_en: "Old; one" -> "New -> two"; prod_weight: (empty) -> 0.5; tags: ["a"] -> ["a","b"]',
      ),
    ).toEqual([
      { field: 'prod_title_en', old: 'Old; one', new: 'New -> two' },
      { field: 'prod_weight', old: '(empty)', new: '0.5' },
      { field: 'tags', old: '["a"]', new: '["a","b"]' },
    ]);
  });

  it("splits a row's problems and names their kinds without the row's values", () => {
    expect(
      problemsOf({
        location: 'line 3',
        outcome: 'invalid',
        column: 'Price; Name',
        message: 'column "Price": must be a number, got "12; 5"; column "Name": longer than 80 characters',
      }),
    ).toEqual([
      { kind: 'must be a number, got "…"', column: 'Price' },
      { kind: 'longer than N characters', column: 'Name' },
    ]);
    expect(kindOf('duplicate reference: "P-1" was first used on line 4')).toBe(
      'duplicate reference: "…" was first used on line N',
    );
  });
});

describe('a run that has not finished a row yet', () => {
  it('has no lines, no problems and empty pages, whether its journal is missing or empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-index-'));
    for (const make of [() => {}, () => writeFileSync(join(dir, 'rows.jsonl'), '')]) {
      make();
      const index = new ReportIndex(join(dir, 'rows.jsonl'), 'journal', join(dir, `${Math.random()}.idx`));
      const views = new ReportViews(index);
      expect(await views.page({ page: 1, size: 50 })).toEqual({ total: 0, last_page: 1, data: [] });
      expect(
        await views.page({ search: 'x', sort: { field: 'ref', dir: 'asc' }, page: 1, size: 50 }),
      ).toEqual({
        total: 0,
        last_page: 1,
        data: [],
      });
      expect(await topProblems(index)).toEqual([]);
      await index.close();
    }
  });
});
