// The journal's pieces that a resume relies on: finished rows found by ordinal whatever the order they
// finished in, and a last line cut by a kill skipped rather than failing the read.
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_LINE } from '../../src/runner/import/report-line.js';
import {
  CarriedLines,
  JournalWriter,
  journalReportLines,
  OrdinalSet,
  readJournal,
} from '../../src/runs/journal.js';

describe('OrdinalSet', () => {
  it('holds exactly the ordinals added, in any order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 300 }), (ordinals) => {
        const set = new OrdinalSet();
        for (const n of ordinals) set.add(n);
        const want = new Set(ordinals);
        for (let n = 0; n <= 401; n++) expect(set.has(n)).toBe(want.has(n));
      }),
    );
  });
});

describe('journal', () => {
  it('reads back what was written; a line cut short by a kill is skipped', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'journal-')), 'rows.jsonl');
    const writer = new JournalWriter(file);
    writer.append({ t: 'row', n: 1, line: { ...EMPTY_LINE, ref: 'A', outcome: 'created' } });
    writer.appendNow({ t: 'inflight', b: 1, intents: [{ entity: 'products', ref: 'B', action: 'create' }] });
    writer.close();
    appendFileSync(file, '{"t":"row","n":2,"line":{"ref":"B"');
    const records = [];
    for await (const r of readJournal(file)) records.push(r);
    expect(records.map((r) => r.t)).toEqual(['row', 'inflight']);
  });
});

describe("a resumed run's journal", () => {
  const line = (ref: string, outcome = 'created') => ({ ...EMPTY_LINE, ref, outcome });
  const row = (n: number, outcome = 'created') => ({ t: 'row' as const, n, line: line(`R${n}`, outcome) });

  it('reports the rows carried over and its own in the order of the file, once each, the extra lines last', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'journal-order-')), 'rows.jsonl');
    const writer = new JournalWriter(file);
    writer.append({ t: 'start', run: 'r' });
    // Carried: rows 1, 3, 6 and 5 (finished out of order), an image, a deletion of a full sync.
    for (const r of [row(1), row(3), row(6), row(5)]) writer.append(r);
    writer.append({ t: 'asset', kind: 'image', u: 'u', ref: 'a.jpg', s: 'registered' });
    writer.append({ t: 'extra', line: line('GONE-1', 'deleted') });
    writer.append({ t: 'carried' });
    // This attempt: rows 2 and 4, row 7 not attempted, another deletion.
    for (const r of [row(2), row(4)]) writer.append(r);
    writer.append({ t: 'na', n: 7, line: line('R7', 'not-attempted') });
    writer.append({ t: 'extra', line: line('GONE-2', 'deleted') });
    writer.close();
    const refs: string[] = [];
    for await (const l of journalReportLines(file)) refs.push(l.ref);
    expect(refs).toEqual(['R1', 'R2', 'R3', 'R4', 'R6', 'R5', 'R7', 'GONE-1', 'GONE-2']);
  });

  it('a journal without a carried line is reported as written', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'journal-order-')), 'rows.jsonl');
    const writer = new JournalWriter(file);
    writer.append({ t: 'start', run: 'r' });
    for (const r of [row(2), row(1), row(3)]) writer.append(r);
    writer.close();
    const refs: string[] = [];
    for await (const l of journalReportLines(file)) refs.push(l.ref);
    expect(refs).toEqual(['R2', 'R1', 'R3']);
  });

  it('the carried lines are taken up to a row number, from the first bytes only', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'journal-order-')), 'rows.jsonl');
    const carried = [row(1), row(2), row(5), { t: 'extra' as const, line: line('GONE-1', 'deleted') }];
    const text = carried.map((r) => `${JSON.stringify(r)}\n`).join('');
    appendFileSync(file, `${text}${JSON.stringify(row(9))}\n`);
    const lines = new CarriedLines(file, Buffer.byteLength(text));
    const take = (key: number) => {
      const refs: string[] = [];
      for (let r = lines.takeUpTo(key); r; r = lines.takeUpTo(key)) refs.push(r.line.ref);
      return refs;
    };
    expect(take(0)).toEqual([]);
    expect(take(3)).toEqual(['R1', 'R2']);
    expect(take(4)).toEqual([]);
    expect(take(Number.POSITIVE_INFINITY)).toEqual(['R5', 'GONE-1']);
    lines.close();
  });
});
