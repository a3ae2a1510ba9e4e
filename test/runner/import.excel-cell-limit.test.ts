// A workbook cell of exactly 32,767 characters, Excel's most: a longer text Excel cut to that length when
// it saved the file (here a product's tags, which the export joins into one cell). validate, `import --plan` and the import say so on the row, and read it as it is. A
// CSV file has no such limit, and a shorter cell is nothing to say.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { trialSteps, tryFeed } from '../helpers/feed-trial.js';
import { call, sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const LIMIT = 32_767;
const fixture = useSandbox();
let dir: string;

/** Tags of at most 50 characters each (the tenant's limit) that the export joins into `length` characters. */
function tagsOf(length: number): string[] {
  const count = Math.ceil((length + 1) / 51);
  const short = count * 51 - 1 - length;
  return Array.from({ length: count }, (_, i) =>
    `t${String(i).padStart(4, '0')}`.padEnd(i < short ? 49 : 50, 'x'),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'excel-limit-'));
  const { sb } = fixture;
  for (const [ref, length] of [
    ['LIMIT-AT', LIMIT],
    ['LIMIT-BELOW', LIMIT - 1],
  ] as const) {
    const res = await call(sb.catalogUrl, '/Products', {
      method: 'POST',
      key: sb.apiKey,
      body: { prod_ref: ref, prod_title: { en: ref }, prod_tags: tagsOf(length) },
    });
    expect(res.status, res.text.slice(0, 300)).toBe(201);
  }
});

const SAID = `the cell holds 32,767 characters, Excel's limit: it may have been cut`;

describe("a workbook cell at Excel's limit", () => {
  it('is a warning on its row in validate, the plan and the import (a CSV cell is not); the row is read as it is', async () => {
    const file = join(dir, 'products.xlsx');
    const out = memoryOutput();
    const code = await main(
      ['export', 'products', '--out', file, ...sandboxFlags(fixture.sb, { rateLimit: 'off' })],
      out,
    );
    expect(code, out.stderr.join('\n')).toBe(0);
    const trial = await tryFeed(fixture.sb, file, { dir, name: 'limit', profile: false });
    const verdicts = { validate: 'valid', plan: 'unchanged', imported: 'unchanged' };
    for (const [name, step] of Object.entries(trialSteps(trial))) {
      expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(0);
      const byRef = new Map(step.lines.map((l) => [l.ref, l]));
      expect(byRef.get('LIMIT-AT')?.outcome, name).toBe(verdicts[name as keyof typeof verdicts]);
      expect(byRef.get('LIMIT-AT')?.warnings, name).toBe(`column "prod_tags": ${SAID}`);
      expect(byRef.get('LIMIT-BELOW')?.outcome, name).toBe(verdicts[name as keyof typeof verdicts]);
      expect(byRef.get('LIMIT-BELOW')?.warnings ?? '', name).toBe('');
    }
    // A CSV file has no such limit: nothing to say.
    const csv = join(dir, 'long.csv');
    await writeFile(csv, `prod_ref,prod_tags\nLIMIT-AT,${tagsOf(LIMIT).join('|')}\n`);
    const fromCsv = await tryFeed(fixture.sb, csv, {
      dir,
      name: 'limit-csv',
      profile: false,
      feed: ['--entity', 'products'],
    });
    for (const [name, step] of Object.entries(trialSteps(fromCsv))) {
      expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(0);
      expect(
        step.lines.map((l) => [l.outcome, l.warnings ?? '']),
        name,
      ).toEqual([[verdicts[name as keyof typeof verdicts], '']]);
    }
  });
});
