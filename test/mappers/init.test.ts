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
});
