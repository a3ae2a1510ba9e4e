// The journal's pieces that a resume relies on: finished rows found by ordinal whatever the order they
// finished in, and a last line cut by a kill skipped rather than failing the read.
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_LINE } from '../../src/runner/import/report-line.js';
import { JournalWriter, OrdinalSet, readJournal } from '../../src/runs/journal.js';

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
