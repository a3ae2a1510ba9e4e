// A simple product's price is not lost. WooCommerce's export, as a new user runs it (`profile init` ->
// `validate` -> `import --plan` -> `import`, the draft used as written), maps `Regular price` to the
// variant's price; a simple product's row (no `Parent`) drafts its own variant (`ownVariant`, drafted
// by profile init), so the price lands. Without `ownVariant`, the value is not written and each of the
// three reports says so on the row, alike. A variation's row drafts no product: its own `Name` is named.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Trial, type TrialLine, trialSteps, tryFeed } from '../helpers/feed-trial.js';
import { useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';
import { byRef } from './import.support.js';

const FEED = join(REALWORLD, 'woocommerce_sample_products.csv');
const drafted = useSandbox({ remoteAssets: 'synthetic' });
const without = useSandbox({ remoteAssets: 'synthetic' });
let own: Trial;
let warned: Trial;
let again: Trial;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'not-written-'));
  own = await tryFeed(drafted.sb, FEED, { dir });
  // The same import again: nothing to write.
  again = await tryFeed(drafted.sb, FEED, { dir, name: 'again', profile: own.profile as string });
  const profile = JSON.parse(await readFile(own.profile as string, 'utf8')) as Record<string, unknown>;
  delete profile.ownVariant;
  const edited = join(dir, 'no-own-variant.json');
  await writeFile(edited, JSON.stringify(profile));
  warned = await tryFeed(without.sb, FEED, { dir, name: 'warned', profile: edited });
}, 120_000);

const at = (lines: TrialLine[], location: string) => lines.find((l) => l.location === location);
const PRICE_LOST =
  'column "Regular price" (variants.frmt_price) not written: this row drafts no variant (a row without "Parent" is a product)';

describe('a simple product (no Parent) with a price', () => {
  it('profile init drafts ownVariant: the row writes its product and a variant with the price', async () => {
    const profile = JSON.parse(await readFile(own.profile as string, 'utf8')) as Record<string, unknown>;
    expect(profile).toMatchObject({ parentColumn: 'Parent', ownVariant: true });
    expect(own.init.stderr.join('\n')).toContain(
      'such a row drafts its product and a variant of it (ownVariant)',
    );
    for (const [name, step] of Object.entries(trialSteps(own))) {
      expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(0);
      // line 4: woo-hoodie-with-logo, simple, Regular price 45.
      const line = at(step.lines, 'line 4');
      expect(line, name).toMatchObject({ entity: 'variants', ref: 'woo-hoodie-with-logo' });
      expect(line?.warnings ?? '', name).not.toContain('not written');
    }
    const products = await byRef(drafted.sb, '/Products', 'prod_ref');
    const variants = await byRef(drafted.sb, '/Variants', 'frmt_ref');
    const product = products.get('woo-hoodie-with-logo');
    expect(variants.get('woo-hoodie-with-logo')).toMatchObject({ frmt_price: 45, prod_id: product?.prod_id });
    // The external product's price too; a variable product (no price of its own) gets no variant of its own.
    expect(variants.get('wp-pennant')).toMatchObject({ frmt_price: 11.05 });
    expect(variants.has('woo-vneck-tee')).toBe(false);
    expect(variants.get('woo-vneck-tee-red')).toMatchObject({
      frmt_price: 20,
      prod_id: products.get('woo-vneck-tee')?.prod_id,
    });
  });

  it('the same import again changes nothing', () => {
    expect(again.imported.code, again.imported.stderr.join('\n')).toBe(0);
    expect(new Set(again.imported.lines.map((l) => l.outcome))).toEqual(new Set(['unchanged']));
  });

  it('without ownVariant, the price is a warning on its row in validate, the plan and the import', () => {
    for (const [name, step] of Object.entries(trialSteps(warned))) {
      expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(0);
      const line = at(step.lines, 'line 4');
      expect(line, name).toMatchObject({ entity: 'products', ref: 'woo-hoodie-with-logo' });
      expect(line?.warnings ?? '', name).toContain(PRICE_LOST);
    }
    expect(at(warned.imported.lines, 'line 4')?.outcome).toBe('created');
    // Every image registered: no row was written without one, whatever else its warnings say.
    for (const trial of [own, warned]) {
      expect(trial.imported.summary).toMatchObject({ assetWarnings: 0 });
      expect(trial.imported.stderr.join('\n')).not.toContain('without an image');
    }
  });
});

describe('a mapped value the row does not write', () => {
  it('a variation (Parent set): its product columns are named, its SKU (written as the variant ref) is not', () => {
    // line 16: woo-vneck-tee-red, a variation of woo-vneck-tee, with a Name of its own.
    for (const trial of [own, warned]) {
      for (const [name, step] of Object.entries(trialSteps(trial))) {
        const warnings = at(step.lines, 'line 16')?.warnings ?? '';
        expect(warnings, name).toContain(
          'column "Name" (products.prod_title) not written: this row drafts no product (a row with "Parent" is a variant of that product)',
        );
        expect(warnings, name).not.toContain('column "SKU"');
        expect(warnings, name).not.toContain('column "Regular price"');
      }
    }
  });

  it('a variable product without a price, and a grouped product, carry no such warning', () => {
    // line 2: woo-vneck-tee (variable, no price); line 24: logo-collection (grouped, no price).
    for (const [name, step] of Object.entries(trialSteps(warned))) {
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
    for (const trial of [own, warned]) {
      for (const line of trial.imported.lines) {
        const said = notWritten(line);
        expect(notWritten(at(trial.validate.lines, line.location)), line.location).toEqual(said);
        expect(notWritten(at(trial.plan.lines, line.location)), line.location).toEqual(said);
      }
    }
  });
});
