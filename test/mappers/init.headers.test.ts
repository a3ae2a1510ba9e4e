// `profile init` on feeds from other systems: the German and English header fixtures against the sandbox
// tenant's real schemas, through the CLI (the file is read, its values sampled, the profile written).
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { ColumnRule, Profile } from '../../src/mappers/profile-types.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty' });
const FIXTURES = join(import.meta.dirname, 'fixtures');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'profile-init-'));
});

async function init(file: string): Promise<{ profile: Profile; stderr: string }> {
  const out = memoryOutput();
  const target = join(dir, `${file}.json`);
  const code = await main(
    ['profile', 'init', join(FIXTURES, file), '--variants', '--out', target, ...sandboxFlags(fixture.sb)],
    out,
  );
  expect(code).toBe(0);
  return { profile: JSON.parse(await readFile(target, 'utf8')) as Profile, stderr: out.stderr.join('\n') };
}

/** The field a profile column went to (a plain name or a rule's field), or null. */
function targetOf(rule: string | ColumnRule | null | undefined): string | null {
  if (rule === null || rule === undefined) return null;
  return typeof rule === 'string' ? rule : rule.field;
}

function placed(profile: Profile, expected: Record<string, string>): number {
  return Object.entries(expected).filter(([header, field]) => targetOf(profile.columns?.[header]) === field)
    .length;
}

describe('profile init on German and English feeds', () => {
  it('places at least 9 of the 10 German headers on the right fields', async () => {
    const { profile, stderr } = await init('headers-de.csv');
    const expected = {
      Artikelnummer: 'prod_ref',
      Bezeichnung: 'prod_title',
      Beschreibung: 'prod_description',
      Preis: 'frmt_price',
      'Gewicht (kg)': 'prod_weight',
      EAN: 'frmt_ean',
      Hersteller: 'prod_brand',
      'Bild-URL': 'prod_images',
      Lagerbestand: 'frmt_stock',
      Größe: 'frmt_size',
    };
    expect(placed(profile, expected)).toBeGreaterThanOrEqual(9);
    // Decimal commas are read from the values; the unit from the header.
    expect(profile.columns?.Preis).toEqual({ field: 'frmt_price', decimal: ',' });
    expect(profile.columns?.['Gewicht (kg)']).toEqual({ field: 'prod_weight', decimal: ',' });
    expect(stderr).toContain('"Gewicht (kg)" -> prod_weight in kg');
    expect(stderr).toMatch(/\b(9|10) of 10 columns placed/);
  });

  it('places at least 10 of the 11 English headers on the right fields', async () => {
    const { profile, stderr } = await init('headers-en.csv');
    const expected = {
      SKU: 'prod_ref',
      Name: 'prod_title',
      Description: 'prod_description',
      'Price (EUR)': 'frmt_price',
      'Image URL': 'prod_images',
      'Weight (kg)': 'prod_weight',
      Manufacturer: 'prod_brand',
      Qty: 'frmt_stock',
      GTIN: 'frmt_ean',
      Categories: 'cat_refs',
      Colour: 'frmt_color',
    };
    expect(placed(profile, expected)).toBeGreaterThanOrEqual(10);
    expect(stderr).toContain('"Price (EUR)" -> frmt_price in eur');
    expect(stderr).toMatch(/\b(10|11) of 11 columns placed/);
  });
});
