// A value the row's drafts leave out is said, never dropped in silence: WooCommerce's export, as a new
// user runs it (`profile init` -> `validate` -> `import --plan` -> `import`, the draft used as written),
// maps `Regular price` to the variant's price, but a simple product's row (no `Parent`) drafts no
// variant, and a variation's row drafts no product. The three reports say so on the row, alike.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Trial, type TrialLine, tryFeed } from '../helpers/feed-trial.js';
import { useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';

const fixture = useSandbox({ remoteAssets: 'synthetic' });
let trial: Trial;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'not-written-'));
  trial = await tryFeed(fixture.sb, join(REALWORLD, 'woocommerce_sample_products.csv'), { dir });
}, 60_000);

const at = (lines: TrialLine[], location: string) => lines.find((l) => l.location === location);
const steps = () => ({ validate: trial.validate, plan: trial.plan, imported: trial.imported });

describe('a mapped value the row does not write', () => {
  it('a simple product (no Parent): its price is a warning on its row in validate, the plan and the import', () => {
    // line 4: woo-hoodie-with-logo, simple, Regular price 45.
    const said =
      'column "Regular price" (variants.frmt_price) not written: this row drafts no variant (a row without "Parent" is a product)';
    for (const [name, step] of Object.entries(steps())) {
      expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(0);
      const line = at(step.lines, 'line 4');
      expect(line?.ref, name).toBe('woo-hoodie-with-logo');
      expect(line?.warnings ?? '', name).toContain(said);
    }
    expect(at(trial.imported.lines, 'line 4')?.outcome).toBe('created');
  });

  it('a variation (Parent set): its product columns are named, its SKU (written as the variant ref) is not', () => {
    // line 16: woo-vneck-tee-red, a variation of woo-vneck-tee, with a Name of its own.
    for (const [name, step] of Object.entries(steps())) {
      const warnings = at(step.lines, 'line 16')?.warnings ?? '';
      expect(warnings, name).toContain(
        'column "Name" (products.prod_title) not written: this row drafts no product (a row with "Parent" is a variant of that product)',
      );
      expect(warnings, name).not.toContain('column "SKU"');
      expect(warnings, name).not.toContain('column "Regular price"');
    }
  });

  it('a variable product without a price, and a grouped product, carry no such warning', () => {
    // line 2: woo-vneck-tee (variable, no price); line 24: logo-collection (grouped, no price).
    for (const [name, step] of Object.entries(steps())) {
      for (const location of ['line 2', 'line 24']) {
        const line = at(step.lines, location);
        expect(line, `${name} ${location}`).toBeDefined();
        expect(line?.warnings ?? '', `${name} ${location}`).not.toContain('not written');
      }
    }
  });

  it('validate, the plan and the import word each row’s warnings the same', () => {
    const notWritten = (l: TrialLine | undefined) =>
      (l?.warnings ?? '').split('; ').filter((w) => w.includes('not written'));
    for (const line of trial.imported.lines) {
      const said = notWritten(line);
      expect(notWritten(at(trial.validate.lines, line.location)), line.location).toEqual(said);
      expect(notWritten(at(trial.plan.lines, line.location)), line.location).toEqual(said);
    }
  });
});
