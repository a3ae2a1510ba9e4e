// "Check a file" places a dropped file as `catalog-io validate` places it: with neither entity nor
// profile chosen, an export's file by the name it was sent under (`variants.csv`), else by its header
// (a note says so), a structure table too; an entity or profile chosen in the form decides, as
// --entity and --profile do. Each file is checked by `validate` and by the console, against one real
// sandbox, and both must say the same: outcomes, report lines, note. A real console, real HTTP.
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleHandle, startConsole } from '../../src/console/server.js';
import { runMain, sandboxFlags, useCliFolder } from '../helpers/cli-main.js';
import { useSandbox } from '../helpers/sandbox.js';

const demo = useSandbox({ seed: 'demo' });
useCliFolder('check-exported');

const samples = join(import.meta.dirname, '../../samples');

interface Verdict {
  rows: number;
  outcomes: Record<string, number>;
  /** The report's lines, as the grid and `validate --report x.jsonl` give them. */
  lines: Array<Record<string, unknown>>;
  /** The note on how the file was placed, if any. */
  note: string | undefined;
}

/** The note a file's placement is told with, from validate's stderr or a check's notes. */
const placementNote = (notes: string[]) => notes.find((n) => /^(read as|its header fits)/.test(n));

/** `validate FILE [flags]` against the sandbox: its summary, JSON Lines report and placement note. */
let reports = 0;
async function validated(file: string, flags: string[] = []): Promise<Verdict> {
  const report = `${file}.${++reports}.report.jsonl`;
  const run = await runMain([
    'validate',
    file,
    ...flags,
    '--json',
    '--report',
    report,
    ...sandboxFlags(demo.sb),
  ]);
  expect([0, 1], run.stderr).toContain(run.code);
  const summary = JSON.parse(run.stdout[0]!) as { rows: number; outcomes: Record<string, number> };
  const lines = readFileSync(report, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const notes = run.stderr
    .split('\n')
    .filter((l) => l.startsWith('note: '))
    .map((l) => l.slice('note: '.length));
  return { rows: summary.rows, outcomes: summary.outcomes, lines, note: placementNote(notes) };
}

/** The console's check of FILE sent as `name` (with the form's profile or entity): the same verdict. */
async function checked(
  url: string,
  file: string,
  name: string,
  form: { profile?: string; entity?: string } = {},
): Promise<Verdict> {
  const body = new FormData();
  body.append('feed', new Blob([readFileSync(file)]), name);
  if (form.profile) body.append('profile', new Blob([readFileSync(form.profile)]), 'profile.json');
  if (form.entity) body.append('entity', form.entity);
  const res = await fetch(`${url}/api/check`, { method: 'POST', body });
  const answer = (await res.json()) as {
    id: string;
    rows: number;
    outcomes: Record<string, number>;
    notes: string[];
    error?: string;
  };
  expect(res.status, answer.error).toBe(200);
  const page = (await (await fetch(`${url}/api/checks/${answer.id}/rows?size=1000`)).json()) as {
    data: Array<Record<string, unknown>>;
  };
  // The grid's own ordinal aside, a line as `validate` writes it.
  const lines = page.data.map(({ n: _n, ...line }) => line);
  return { rows: answer.rows, outcomes: answer.outcomes, lines, note: placementNote(answer.notes) };
}

const entities = (v: Verdict) => [...new Set(v.lines.map((l) => l.entity))];

describe('"Check a file" places a file as validate does', () => {
  let console_: ConsoleHandle;
  beforeAll(async () => {
    const sb = demo.sb;
    console_ = await startConsole({
      stateDir: mkdtempSync(join(tmpdir(), 'state-')),
      port: 0,
      flags: { catalogUrl: sb.catalogUrl, damUrl: sb.damUrl, apiKey: sb.apiKey },
    });
    for (const [entity, out] of [
      ['variants', 'variants.csv'],
      ['layouts', 'forms.csv'],
    ]) {
      const exported = await runMain(['export', entity!, '--out', out!, ...sandboxFlags(sb)]);
      expect(exported.code, exported.stderr).toBe(0);
    }
    copyFileSync('variants.csv', 'v-2024.csv');
  });
  afterAll(async () => console_?.close());

  it('a variants export under its export name: variants, every row valid, as validate says', async () => {
    const cli = await validated('variants.csv');
    const page = await checked(console_.url, 'variants.csv', 'variants.csv');
    expect(entities(cli)).toEqual(['variants']);
    expect(cli.outcomes).toMatchObject({ invalid: 0 });
    expect(cli.rows).toBeGreaterThan(0);
    expect(page).toEqual(cli);
    expect(page.note).toBeUndefined();
  }, 60_000);

  it('a variants export under another name: variants by its header, with the note validate gives', async () => {
    const cli = await validated('v-2024.csv');
    const page = await checked(console_.url, 'v-2024.csv', 'v-2024.csv');
    expect(entities(cli)).toEqual(['variants']);
    expect(cli.outcomes).toMatchObject({ invalid: 0 });
    expect(cli.note).toMatch(/^read as variants by its header: its columns are fields of variants/);
    expect(page).toEqual(cli);
  }, 60_000);

  it("a layouts table under another name: the export's layouts table by its header, as validate says", async () => {
    const cli = await validated('forms.csv');
    const page = await checked(console_.url, 'forms.csv', 'forms.csv');
    expect(entities(cli)).toEqual(['layouts']);
    expect(cli.note).toBe("read as the export's layouts table: its header is that table's columns");
    expect(page).toEqual(cli);
  }, 60_000);

  it('an entity or a profile chosen in the form decides, as --entity and --profile do', async () => {
    // The variants export checked as products: what --entity products says of it, no note.
    const asProducts = await validated('variants.csv', ['--entity', 'products']);
    const page = await checked(console_.url, 'variants.csv', 'variants.csv', { entity: 'products' });
    expect(entities(asProducts)).toEqual(['products']);
    expect(asProducts.outcomes.invalid).toBeGreaterThan(0);
    expect(page).toEqual(asProducts);
    expect(page.note).toBeUndefined();
    // A supplier's feed with its profile: products, as before.
    copyFileSync(join(samples, 'products.csv'), 'supplier.csv');
    const profile = join(samples, 'profiles/products.json');
    const supplier = await validated('supplier.csv', ['--profile', profile]);
    const sent = await checked(console_.url, 'supplier.csv', 'supplier.csv', { profile });
    expect(entities(supplier)).toEqual(['products']);
    expect(sent).toEqual(supplier);
    expect(sent.note).toBeUndefined();
  }, 60_000);
});
