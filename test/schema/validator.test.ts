import { describe, expect, it } from 'vitest';
import { createMapper } from '../../src/mappers/mapper.js';
import type { Profile } from '../../src/mappers/profile-types.js';
import type { Draft } from '../../src/mappers/types.js';
import type { Cell } from '../../src/readers/types.js';
import { fullSentence } from '../../src/schema/messages.js';
import { DraftValidator, writeBody } from '../../src/schema/validator.js';
import { buildWriteSchema } from '../../src/schema/write-schema.js';
import { demoModel } from '../mappers/demo-model.js';
import { row } from '../mappers/rows.js';

const model = demoModel();
const validator = new DraftValidator(model);

function check(profile: Profile, cells: Record<string, Cell>) {
  const mapped = createMapper({ model, profile }).map(row(cells, 17));
  return { mapped, issues: mapped.drafts.flatMap((d) => validator.validate(d)) };
}

function sentences(profile: Profile, cells: Record<string, Cell>): string[] {
  const { mapped, issues } = check(profile, cells);
  return [...mapped.issues, ...issues].map((i) => fullSentence(mapped.location.text, i.column, i.message));
}

describe('write-schemas', () => {
  it('leave read-only fields out, require the ref, and other required fields only on create', () => {
    const categories = model.entity('categories')!;
    const upsert = buildWriteSchema(categories, model, 'upsert');
    expect(Object.keys(upsert.properties as object)).not.toContain('cat_id');
    expect(upsert.required).toEqual(['cat_ref']);
    expect(buildWriteSchema(categories, model, 'create').required).toEqual(['cat_ref', 'cat_title']);
  });

  it('send multilingual values as {culture: value}', () => {
    const { mapped } = check(
      { entity: 'products' },
      { prod_ref: 'P', prod_title: 'Shirt', prod_title_es: 'Camisa' },
    );
    expect(writeBody(mapped.drafts[0]!, model)).toEqual({
      prod_ref: 'P',
      prod_title: { en: 'Shirt', es: 'Camisa' },
    });
  });
});

describe('error sentences', () => {
  it('a value that is not a number names line, column and value', () => {
    expect(
      sentences({ entity: 'variants', columns: { Price: 'frmt_price' } }, { frmt_ref: 'V', Price: '12,5O' }),
    ).toEqual(['line 17, column "Price": must be a number, got "12,5O"']);
  });

  it('too long text', () => {
    expect(
      sentences(
        { entity: 'products', columns: { Brand: 'prod_brand' } },
        { prod_ref: 'P', Brand: 'x'.repeat(101) },
      ),
    ).toEqual(['line 17, column "Brand": must be at most 100 characters, got 101']);
  });

  it('a pattern', () => {
    expect(
      sentences({ entity: 'variants', columns: { EAN: 'frmt_ean' } }, { frmt_ref: 'V', EAN: '12345' }),
    ).toEqual(['line 17, column "EAN": must match the pattern ^[0-9]{13}$ (found "12345")']);
  });

  it('an enum value, also inside a list', () => {
    expect(
      sentences(
        { entity: 'products' },
        { prod_ref: 'P', prod_season: 'monsoon', prod_labels: 'vegan|local' },
      ),
    ).toEqual([
      'line 17, column "prod_season": must be one of "spring", "summer", "autumn", "winter" (found "monsoon")',
      'line 17, column "prod_labels": must be one of "organic", "recycled", "fair-trade", "vegan" (found "local")',
    ]);
  });

  it('a missing reference, and required fields when the row says NEW', () => {
    expect(sentences({ entity: 'categories' }, { cat_ref: '', cat_title: 'Tees' })).toEqual([
      'line 17, column "cat_ref": the reference cat_ref is missing: every row needs one',
    ]);
    expect(sentences({ entity: 'categories' }, { _command: 'NEW', cat_ref: 'tees' })).toEqual([
      'line 17: cat_title is required when a new category is created',
    ]);
    expect(sentences({ entity: 'categories' }, { cat_ref: 'tees' })).toEqual([]);
  });

  it('a language the tenant does not have', () => {
    const draft: Draft = {
      entity: 'products',
      ref: 'P',
      command: 'MERGE',
      fields: { prod_ref: 'P' },
      cultures: { de: { prod_title: 'Hemd' } },
      assets: [],
      links: {},
      source: {
        location: { text: 'item 3', source: 'x.json', line: 3 },
        row: { location: { text: 'item 3', source: 'x.json', line: 3 }, cells: {}, index: 3 },
        columns: { 'prod_title.de': 'title_de' },
      },
    };
    const [issue] = validator.validate(draft);
    expect(fullSentence('item 3', issue!.column, issue!.message)).toBe(
      'item 3, column "title_de": has no language "de": this tenant\'s languages are en, fr, es',
    );
  });

  it('a language this one field does not have', () => {
    expect(
      sentences({ entity: 'variants' }, { frmt_ref: 'V', frmt_color_fr: 'Rouge', frmt_color_es: 'Rojo' }),
    ).toEqual(['line 17, column "frmt_color_es": has no language "es": this field\'s languages are en, fr']);
  });

  it('a read-only field mapped explicitly by a profile', () => {
    expect(sentences({ entity: 'products', columns: { ID: 'prod_id' } }, { prod_ref: 'P', ID: '5' })).toEqual(
      ['line 17, column "ID": prod_id is read-only: the server sets it, leave it out'],
    );
  });

  it('dates, booleans and whole numbers', () => {
    expect(
      sentences(
        { entity: 'products', columns: { Launch: 'prod_date', New: 'prod_is_new', Pack: 'prod_pack_size' } },
        { prod_ref: 'P', Launch: '31/12/2024', New: 'maybe', Pack: '2.5' },
      ),
    ).toEqual([
      'line 17, column "Launch": must be a date and time (YYYY-MM-DD hh:mm[:ss], Z or an offset), got "31/12/2024"',
      'line 17, column "New": must be yes or no (1/0, true/false), got "maybe"',
      'line 17, column "Pack": must be a whole number, got "2.5"',
    ]);
  });

  it('a DELETE row needs only its reference', () => {
    expect(
      sentences({ entity: 'variants' }, { _command: 'DELETE', frmt_ref: 'V', frmt_price: 'n/a' }),
    ).toEqual(['line 17, column "frmt_price": must be a number, got "n/a"']);
    expect(sentences({ entity: 'variants' }, { _command: 'DELETE', frmt_ref: 'V' })).toEqual([]);
  });
});

describe('error sentences the schema gives after a type override', () => {
  it('a value read as text for a date field, and a fraction for a whole-number field', () => {
    expect(
      sentences(
        {
          entity: 'products',
          columns: {
            Released: { field: 'prod_release_date', type: 'string' },
            Pack: { field: 'prod_pack_size', type: 'number' },
          },
        },
        { prod_ref: 'P', Released: '31/12/2024', Pack: '2.5' },
      ),
    ).toEqual([
      // In the schema's field order.
      'line 17, column "Pack": must be a whole number, got 2.5',
      'line 17, column "Released": must be a date (YYYY-MM-DD), got "31/12/2024"',
    ]);
  });
});
