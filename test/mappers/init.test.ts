import { describe, expect, it } from 'vitest';
import { draftProfile } from '../../src/mappers/init.js';
import { createMapper } from '../../src/mappers/mapper.js';
import { demoModel } from './demo-model.js';
import { row } from './rows.js';

const model = demoModel();

describe('profile init', () => {
  it('places headers by exact name, loose name, culture suffix and common synonyms', () => {
    const headers = [
      'prod_ref',
      'Title',
      'name:fr',
      'Name (ES)',
      'prod_description_fr',
      'Brand',
      'WEIGHT',
      'cat_refs',
      'prod_id',
      'Colour',
      'Misc',
    ];
    const { profile, unplaced } = draftProfile(headers, model, 'products');
    expect(profile.columns).toEqual({
      prod_ref: 'prod_ref',
      Title: 'prod_title',
      'name:fr': { field: 'prod_title', culture: 'fr' },
      'Name (ES)': { field: 'prod_title', culture: 'es' },
      prod_description_fr: { field: 'prod_description', culture: 'fr' },
      Brand: 'prod_brand',
      WEIGHT: 'prod_weight',
      cat_refs: 'cat_refs',
      prod_id: null,
      Colour: null,
      Misc: null,
    });
    expect(unplaced).toEqual(['prod_id', 'Colour', 'Misc']);
  });

  it('includes variant fields with --variants, and the draft is a working profile', () => {
    const { profile } = draftProfile(['Handle', 'Name', 'Price', 'Colour', 'EAN'], model, 'products', true);
    expect(profile).toMatchObject({
      variants: true,
      columns: { Handle: 'prod_ref', Price: 'frmt_price', Colour: 'frmt_color', EAN: 'frmt_ean' },
    });
    const mapped = createMapper({ model, profile }).map(
      row({ Handle: 'tee', Name: 'Tee', Price: '10', Colour: 'red', EAN: '' }),
    );
    expect(mapped.drafts.map((d) => d.entity)).toEqual(['products', 'variants']);
  });

  it('reads units, currencies and languages off headers, and refuses a language the tenant lacks', () => {
    const headers = ['Gewicht (g)', 'Prix (EUR)', 'Title (FR)', 'title_es', 'Name DE', 'Bezeichnung [en]'];
    const { profile, notes } = draftProfile(headers, model, 'products', true);
    expect(profile.columns).toEqual({
      'Gewicht (g)': 'prod_weight',
      'Prix (EUR)': 'frmt_price',
      'Title (FR)': { field: 'prod_title', culture: 'fr' },
      title_es: { field: 'prod_title', culture: 'es' },
      'Name DE': null,
      'Bezeichnung [en]': { field: 'prod_title', culture: 'en' },
    });
    const note = (h: string) => notes.find((n) => n.header === h);
    expect(note('Prix (EUR)')).toMatchObject({ field: 'frmt_price', unit: 'eur' });
    expect(note('Name DE')?.warning).toContain('"de" is not one of the tenant\'s languages (en, fr, es)');
  });

  it("converts the header's unit to the one the field describes, and warns when it cannot", () => {
    const weight = model.entity('products')!.field('prod_weight')!;
    weight.description = 'Weight in kg';
    try {
      const { profile, notes } = draftProfile(['Poids (g)'], model, 'products');
      expect(profile.columns?.['Poids (g)']).toEqual({ field: 'prod_weight', unit: 'g' });
      expect(notes[0]).toMatchObject({ field: 'prod_weight', unit: 'g' });
      expect(notes[0]!.warning).toBeUndefined();
      const lbs = draftProfile(
        ['Weight (lbs)'],
        model,
        'products',
        false,
        new Map([['Weight (lbs)', ['.5', '2']]]),
      );
      expect(lbs.profile.columns).toEqual({ 'Weight (lbs)': { field: 'prod_weight', unit: 'lb' } });
      weight.description = 'Weight';
      const unknown = draftProfile(['Poids (g)'], model, 'products');
      expect(unknown.notes[0]!.warning).toBeUndefined();
      expect(unknown.profile.columns).toEqual({ 'Poids (g)': 'prod_weight' });
      weight.description = 'Length in cm';
      const other = draftProfile(['Poids (g)'], model, 'products');
      expect(other.notes[0]!.warning).toBe('the values are in g, prod_weight holds cm');
    } finally {
      delete weight.description;
    }
  });

  it('lets the values choose: EAN check digits, URLs, decimal commas, day-first dates', () => {
    const samples = new Map([
      ['Code', ['4006381333931', '4006381333948']],
      ['Foto 2', ['https://cdn.example.com/a.jpg']],
      ['Prezzo', ['1.234,50', '12,00']],
      ['Fecha de lanzamiento', ['31/12/2026']],
      ['Artikel', ['A-1', 'A-2']],
    ]);
    const { profile } = draftProfile([...samples.keys()], model, 'products', true, samples);
    expect(profile.columns).toEqual({
      // `Code` could be the ref; valid EAN-13s make it the barcode.
      Code: 'frmt_ean',
      // No header word for it, but every value is an image URL.
      'Foto 2': 'prod_images',
      Prezzo: { field: 'frmt_price', decimal: ',', thousands: '.' },
      'Fecha de lanzamiento': { field: 'prod_release_date', dateFormat: 'DD/MM/YYYY' },
      Artikel: null,
    });
    // Without EANs in it, `Code` is the ref.
    const plain = draftProfile(['Code'], model, 'products', false, new Map([['Code', ['X-1']]]));
    expect(plain.profile.columns).toEqual({ Code: 'prod_ref' });
  });

  it("reads a German feed's thousands dots as such, and Vendure's product: prefix", () => {
    const samples = new Map([
      ['Preis in €', ['1.299,50', '12,50', '7,00']],
      ['Gewicht (g)', ['1.250', '500', '2.000']],
      ['product:keywords', ['paper, stretch', 'glue, tape']],
    ]);
    const { profile } = draftProfile([...samples.keys()], model, 'products', true, samples);
    expect(profile.columns!['Gewicht (g)']).toMatchObject({
      field: 'prod_weight',
      decimal: ',',
      thousands: '.',
    });
    expect(profile.columns!['product:keywords']).toEqual({ field: 'prod_tags', split: ',' });
    // Without a decimal comma anywhere in the feed, `1.250` stays a decimal number.
    const dotted = draftProfile(['Weight'], model, 'products', true, new Map([['Weight', ['1.250', '2.5']]]));
    expect(dotted.profile.columns!.Weight).toBe('prod_weight');
  });

  it('does not place a number field on values that are not numbers', () => {
    const samples = new Map([['Preis', ['auf Anfrage', 'ab 10 Stück']]]);
    const { profile, notes } = draftProfile(['Preis'], model, 'products', true, samples);
    expect(profile.columns).toEqual({ Preis: null });
    expect(notes[0]).toMatchObject({ suggestions: ['frmt_price'], samples: ['auf Anfrage', 'ab 10 Stück'] });
  });

  it('suggests the closest fields by edit distance for what it cannot place', () => {
    const { unplaced, notes } = draftProfile(['Gewcht', 'Beschreibng', 'Zzz'], model, 'products');
    expect(unplaced).toEqual(['Gewcht', 'Beschreibng', 'Zzz']);
    expect(notes.map((n) => n.suggestions?.[0])).toEqual(['prod_weight', 'prod_description', undefined]);
  });
});
