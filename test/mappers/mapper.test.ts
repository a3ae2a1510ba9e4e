import { describe, expect, it } from 'vitest';
import { isCatalogIoError } from '../../src/errors.js';
import { createMapper } from '../../src/mappers/mapper.js';
import type { Profile } from '../../src/mappers/profile-types.js';
import { demoModel } from './demo-model.js';
import { csvRows, row } from './rows.js';

const model = demoModel();
const mapper = (profile: Profile, strict = false) => createMapper({ model, profile, strict });

describe('mapping without a profile', () => {
  it('maps API field names to themselves and <field>_<culture> to a language', () => {
    const m = mapper({ entity: 'products' });
    const out = m.map(
      row({ prod_ref: 'P1', prod_title: 'Shirt', prod_title_fr: 'Chemise', prod_weight: '0,5' }),
    );
    expect(out.issues).toEqual([]);
    expect(out.drafts).toHaveLength(1);
    const d = out.drafts[0]!;
    expect(d).toMatchObject({ entity: 'products', ref: 'P1', command: 'MERGE' });
    expect(d.fields).toEqual({ prod_ref: 'P1', prod_title: 'Shirt', prod_weight: 0.5 });
    expect(d.cultures).toEqual({ fr: { prod_title: 'Chemise' } });
    expect(d.source.columns['prod_title.fr']).toBe('prod_title_fr');
  });

  it("maps a JSON record's {culture: text} object (flattened to <field>.<culture>) to its languages", () => {
    const m = mapper({ entity: 'products' });
    const out = m.map(row({ prod_ref: 'P1', 'prod_title.en': 'Shirt', 'prod_title.fr': 'Chemise' }));
    expect(out.issues).toEqual([]);
    expect(m.warnings).toEqual([]);
    const d = out.drafts[0]!;
    expect(d.fields).toEqual({ prod_ref: 'P1', prod_title: 'Shirt' });
    expect(d.cultures).toEqual({ fr: { prod_title: 'Chemise' } });
  });

  it('warns once about unknown and read-only columns, and ignores them', () => {
    const m = mapper({ entity: 'products' });
    m.map(row({ prod_ref: 'P1', prod_id: '12', colour: 'red', prod_title_de: 'Hemd' }));
    const out = m.map(row({ prod_ref: 'P2', prod_id: '13', colour: 'blue', prod_title_de: 'x' }, 3));
    expect(out.issues).toEqual([]);
    expect(out.drafts[0]!.fields).toEqual({ prod_ref: 'P2' });
    // One line per kind, the columns of a kind named together.
    expect(m.warnings).toHaveLength(2);
    expect(m.warnings.join('\n')).toContain(
      '2 columns ("colour", "prod_title_de") do not match a field of products: ignored',
    );
    expect(m.warnings.join('\n')).toMatch(/"prod_id" is the read-only field prod_id/);
  });

  it('makes unknown columns row errors with strict', () => {
    const out = mapper({ entity: 'products' }, true).map(row({ prod_ref: 'P1', colour: 'red' }));
    expect(out.issues).toMatchObject([{ code: 'MAP_UNKNOWN_COLUMN', column: 'colour', severity: 'error' }]);
  });

  it('splits multi-values on | and reads reference columns', () => {
    const out = mapper({ entity: 'products' }).map(
      row({ prod_ref: 'P1', prod_tags: 'a | b||c', cat_refs: 'shirts|sale|shirts' }),
    );
    const d = out.drafts[0]!;
    expect(d.fields.prod_tags).toEqual(['a', 'b', 'c']);
    // A link list names each record once.
    expect(d.links.categoryRefs).toEqual(['shirts', 'sale']);
    expect(d.fields.cat_ids).toBeUndefined();
  });

  it('links variants to products and categories to parents by ref', () => {
    const v = mapper({ entity: 'variants' }).map(row({ frmt_ref: 'V1', prod_ref: 'P1', frmt_price: '9.90' }));
    expect(v.drafts[0]).toMatchObject({
      entity: 'variants',
      ref: 'V1',
      links: { productRef: 'P1' },
      fields: { frmt_price: 9.9 },
    });
    const c = mapper({ entity: 'categories' }).map(
      row({ cat_ref: 'tees', cat_parent_ref: 'clothing', cat_title: 'Tees' }),
    );
    expect(c.drafts[0]).toMatchObject({ ref: 'tees', links: { parentRef: 'clothing' } });
  });

  it('maps custom entities by denominator', () => {
    const out = mapper({ entity: 'custom:Store Locations' }).map(
      row({ ce_ref: 'S1', ce_name_fr: 'Magasin', ce_active: 'yes' }),
    );
    expect(out.drafts[0]).toMatchObject({
      entity: 'custom:Store Locations',
      fields: { ce_ref: 'S1', ce_active: true },
    });
  });

  it('refuses an entity the tenant does not have', () => {
    expect(() => mapper({ entity: 'custom:Nope' })).toThrow(
      expect.objectContaining({ code: 'SCHEMA_UNKNOWN_ENTITY' }),
    );
  });
});

describe('profile columns', () => {
  const profile: Profile = {
    entity: 'products',
    columns: {
      SKU: 'prod_ref',
      Name: { field: 'prod_title' },
      'Name (FR)': { field: 'prod_title', culture: 'FR' },
      Weight: { field: 'prod_weight', thousands: ',' },
      New: 'prod_is_new',
      Season: { field: 'prod_season', map: { Sommer: 'summer', Winter: 'winter' } },
      Labels: { field: 'prod_labels', split: ',' },
      Launched: { field: 'prod_date', timezone: 'Europe/Paris' },
      Pack: { field: 'prod_pack_size', default: 1 },
      Internal: null,
    },
    fields: {
      prod_brand: { constant: 'Acme' },
      prod_description: { template: '{Name} by {Maker}' },
      prod_release_date: { from: ['Released', 'Announced'], dateFormat: 'DD.MM.YYYY' },
    },
  };

  it('applies every rule of the vocabulary', () => {
    const out = mapper(profile).map(
      row({
        SKU: ' P1 ',
        Name: 'Shirt',
        'Name (FR)': 'Chemise',
        Weight: '1,234.5',
        New: 'TRUE',
        Season: 'sommer',
        Labels: 'Organic, vegan',
        Launched: '2024-07-01 12:00',
        Pack: '',
        Internal: 'secret',
        Maker: 'Acme Co',
        Released: '',
        Announced: '02.03.2024',
      }),
    );
    expect(out.issues).toEqual([]);
    const d = out.drafts[0]!;
    expect(d.fields).toEqual({
      prod_ref: 'P1',
      prod_title: 'Shirt',
      prod_weight: 1234.5,
      prod_is_new: true,
      prod_season: 'summer',
      prod_labels: ['organic', 'vegan'],
      prod_date: '2024-07-01T10:00:00Z',
      prod_pack_size: 1,
      prod_brand: 'Acme',
      prod_description: 'Shirt by Acme Co',
      prod_release_date: '2024-03-02',
    });
    expect(d.cultures).toEqual({ fr: { prod_title: 'Chemise' } });
    expect(d.source.columns.prod_weight).toBe('Weight');
    expect(d.source.columns.prod_release_date).toBe('Announced');
  });

  it('leaves a field out when a template finds every column empty', () => {
    const out = mapper(profile).map(row({ SKU: 'P1', Name: '', Maker: '' }));
    expect(out.drafts[0]!.fields.prod_description).toBeUndefined();
  });

  it("a template reads a list cell as its column joins it, else as 'a, b'", () => {
    const m = mapper({
      entity: 'products',
      columns: { sku: 'prod_ref', brands: { field: 'prod_brand', join: ' & ' }, tags: null },
      fields: { prod_description: { template: 'by {brands}; {tags}' } },
    });
    const out = m.map(row({ sku: 'P1', brands: ['Lumo', 'Brite'], tags: ['eco', '', 'new'] }));
    expect(out.drafts[0]!.fields.prod_description).toBe('by Lumo & Brite; eco, new');
  });

  it('can keep spaces and turn auto-mapping off', () => {
    const out = mapper({
      entity: 'products',
      autoColumns: false,
      columns: { Ref: { field: 'prod_ref', trim: false } },
    }).map(row({ Ref: ' P1 ', prod_title: 'ignored' }));
    expect(out.drafts[0]!.fields).toEqual({ prod_ref: ' P1 ' });
  });

  it('reports a value that cannot be coerced, with its column and value', () => {
    const out = mapper({ entity: 'variants', columns: { Price: 'frmt_price' } }).map(
      row({ frmt_ref: 'V1', Price: '12,5O' }),
    );
    expect(out.issues).toEqual([
      expect.objectContaining({
        code: 'MAP_COERCE',
        field: 'frmt_price',
        column: 'Price',
        value: '12,5O',
        message: 'must be a number, got "12,5O"',
      }),
    ]);
    expect(out.drafts[0]!.fields.frmt_price).toBeUndefined();
  });

  it('says which profile entry names an unknown field or language', () => {
    const bad = (p: Profile) => {
      try {
        mapper(p);
      } catch (err) {
        if (isCatalogIoError(err, 'PROFILE_INVALID')) return err.message;
      }
      return 'no error';
    };
    expect(bad({ entity: 'products', columns: { Price: 'prod_price' } })).toMatch(
      /\$\.columns\.Price "prod_price" is not a field of products/,
    );
    expect(
      bad({ entity: 'products', columns: { 'T (DE)': { field: 'prod_title', culture: 'de' } } }),
    ).toMatch(/\$\.columns\["T \(DE\)"\]\.culture "de" is not a language of this tenant \(en, fr, es\)/);
    expect(bad({ entity: 'products', fields: { prod_brand: { constant: 'x', culture: 'fr' } } })).toMatch(
      /not multilingual/,
    );
  });
});

describe('assets', () => {
  it('turns http(s) URLs into assets to register and keeps plain names', () => {
    const out = mapper({ entity: 'products' }).map(
      row({
        prod_ref: 'P1',
        prod_images: 'http://127.0.0.1:4010/assets/shirt-front.jpg|shirt-back.png',
        prod_images_fr: 'https://cdn.example.com/img/chemise%20face.webp',
      }),
    );
    expect(out.issues).toEqual([]);
    const d = out.drafts[0]!;
    expect(d.fields.prod_images).toEqual(['shirt-front.jpg', 'shirt-back.png']);
    expect(d.cultures.fr!.prod_images).toEqual(['chemise face.webp']);
    expect(d.assets).toEqual([
      {
        field: 'prod_images',
        culture: 'en',
        url: 'http://127.0.0.1:4010/assets/shirt-front.jpg',
        name: 'shirt-front.jpg',
        kind: 'image',
      },
      { field: 'prod_images', culture: 'en', name: 'shirt-back.png', kind: 'image' },
      {
        field: 'prod_images',
        culture: 'fr',
        url: 'https://cdn.example.com/img/chemise%20face.webp',
        name: 'chemise face.webp',
        kind: 'image',
      },
    ]);
  });

  it('gives the assets of a column the DAM tags its rule names (URLs only: a plain name registers nothing)', () => {
    const out = mapper({
      entity: 'products',
      columns: { Images: { field: 'prod_images', tags: ['supplier-x', 'spring'] } },
    }).map(row({ prod_ref: 'P1', Images: 'https://cdn.example.com/a.jpg|b.png' }));
    expect(out.issues).toEqual([]);
    expect(out.drafts[0]!.assets).toEqual([
      {
        field: 'prod_images',
        culture: 'en',
        url: 'https://cdn.example.com/a.jpg',
        name: 'a.jpg',
        kind: 'image',
        tags: ['supplier-x', 'spring'],
      },
      { field: 'prod_images', culture: 'en', name: 'b.png', kind: 'image' },
    ]);
  });

  it.each([
    ['ftp://host/a.jpg', 'an http or https URL'],
    ['https://host/image.bmp', 'an image URL ending in .jpg'],
    ['https://host/folder/', 'a URL ending in a filename with an extension'],
    [`https://host/${'a'.repeat(256)}.jpg`, 'a filename of at most 255 characters'],
    [`https://host/${'a'.repeat(2100)}.jpg`, 'a URL of at most 2048 characters'],
  ])('refuses bad URL #%# without a request', (url, expected) => {
    const out = mapper({ entity: 'variants' }).map(row({ frmt_ref: 'V1', frmt_image: url }));
    expect(out.issues[0]).toMatchObject({ code: 'MAP_COERCE', column: 'frmt_image', field: 'frmt_image' });
    expect(out.issues[0]!.message).toContain(expected);
  });

  it('accepts any extension for file fields', () => {
    const out = mapper({ entity: 'products' }).map(
      row({ prod_ref: 'P1', prod_manual: 'https://host/docs/care.pdf' }),
    );
    expect(out.drafts[0]!.assets).toEqual([
      { field: 'prod_manual', url: 'https://host/docs/care.pdf', name: 'care.pdf', kind: 'file' },
    ]);
  });

  it('keeps the catalog verdict on a name it refuses (a comma only in a field of one name)', () => {
    const out = mapper({ entity: 'products' }).map(
      row({ prod_ref: 'P1', prod_manual: 'https://host/docs/care,v2.pdf', prod_images: 'a,b.jpg|c*.png' }),
    );
    expect(out.issues).toEqual([]);
    const verdicts = Object.fromEntries(out.drafts[0]!.assets.map((a) => [a.name, a.unusable]));
    expect(verdicts).toEqual({
      'care,v2.pdf':
        "the catalog refuses the name 'care,v2.pdf' in a field of one name: it reads a comma as a separator between names; rename the file",
      'a,b.jpg': undefined,
      'c*.png': `the catalog refuses the name 'c*.png': '*' is one of the characters a name cannot hold (" { } [ ] \\ < > | * ? : and control characters); rename the file`,
    });
  });
});

describe('commands', () => {
  it('reads _command per row; IGNORE and blank rows are skipped', () => {
    const m = mapper({ entity: 'products' });
    const rows = csvRows(
      ['_command', 'prod_ref'],
      [
        ['', 'P1'],
        ['new', 'P2'],
        ['DELETE', 'P3'],
        ['IGNORE', 'P4'],
        ['', ''],
        ['zap', 'P5'],
      ],
    );
    const out = rows.map((r) => m.map(r));
    expect(out.map((o) => o.drafts[0]?.command)).toEqual([
      'MERGE',
      'NEW',
      'DELETE',
      undefined,
      undefined,
      'MERGE',
    ]);
    expect(out.map((o) => o.skipped)).toEqual([false, false, false, true, true, false]);
    expect(out[5]!.issues[0]!.message).toBe(
      'must be one of MERGE, NEW, UPDATE, DELETE, IGNORE (found "zap")',
    );
  });
});

describe('one row per variant', () => {
  const profile: Profile = {
    entity: 'products',
    variants: true,
    columns: {
      Handle: 'prod_ref',
      Title: 'prod_title',
      SKU: 'frmt_ref',
      Price: 'frmt_price',
      Size: 'frmt_size',
    },
  };

  it("drafts each product once and links each row's variant to it", () => {
    const m = mapper(profile);
    const rows = csvRows(
      ['Handle', 'Title', 'SKU', 'Price', 'Size'],
      [
        ['tee', 'Tee', 'tee-s', '10', 'S'],
        ['tee', 'Tee', 'tee-m', '10', 'M'],
        ['cap', 'Cap', 'cap-1', '5', ''],
        ['tee', 'Tee', 'tee-l', '11', 'L'],
      ],
    );
    const out = rows.map((r) => m.map(r));
    expect(out.map((o) => o.drafts.map((d) => `${d.entity}:${d.ref}`))).toEqual([
      ['products:tee', 'variants:tee-s'],
      ['variants:tee-m'],
      ['products:cap', 'variants:cap-1'],
      ['variants:tee-l'],
    ]);
    expect(out[1]!.drafts[0]!.links.productRef).toBe('tee');
    expect(out.flatMap((o) => o.issues)).toEqual([]);
  });

  it('reports product values that disagree between rows of the same product', () => {
    const m = mapper(profile);
    const rows = csvRows(
      ['Handle', 'Title', 'SKU'],
      [
        ['tee', 'Tee', 'tee-s'],
        ['tee', 'T-shirt', 'tee-m'],
      ],
    );
    const [, second] = rows.map((r) => m.map(r));
    expect(second!.issues).toEqual([
      expect.objectContaining({
        field: 'prod_title',
        column: 'Title',
        message: 'disagrees with line 2 for product "tee": "T-shirt" here, "Tee" there',
      }),
    ]);
  });

  it('forgets products beyond the window (bounded memory) and drafts them again', () => {
    const m = mapper({ ...profile, groupWindow: 1 });
    const rows = csvRows(
      ['Handle', 'SKU'],
      [
        ['a', 'a1'],
        ['b', 'b1'],
        ['a', 'a2'],
      ],
    );
    const out = rows.map((r) => m.map(r));
    expect(out[2]!.drafts.map((d) => d.entity)).toEqual(['products', 'variants']);
  });

  it('fills blank product columns down from the row above (Vendure style)', () => {
    const m = mapper({
      entity: 'products',
      variants: true,
      fillDown: true,
      columns: { slug: 'prod_ref', name: 'prod_title', sku: 'frmt_ref' },
    });
    const rows = csvRows(
      ['name', 'slug', 'sku'],
      [
        ['Laptop', 'laptop', 'L1'],
        ['', '', 'L2'],
        ['Phone', 'phone', 'P1'],
      ],
    );
    const out = rows.map((r) => m.map(r));
    expect(out[1]!.drafts).toHaveLength(1);
    expect(out[1]!.drafts[0]).toMatchObject({
      entity: 'variants',
      ref: 'L2',
      links: { productRef: 'laptop' },
    });
    expect(out[1]!.row.cells.slug).toBe('');
    expect(out[2]!.drafts.map((d) => d.ref)).toEqual(['phone', 'P1']);
  });

  it("fills down within a product only: a row naming another product never takes the one above's values", () => {
    const m = mapper({
      entity: 'products',
      variants: true,
      fillDown: true,
      commandColumn: 'Op',
      columns: { slug: 'prod_ref', name: 'prod_title', desc: 'prod_description', sku: 'frmt_ref' },
    });
    const rows = csvRows(
      ['slug', 'name', 'desc', 'sku', 'Op'],
      [
        ['tee', 'Tee', 'Soft cotton', 'T-S', ''],
        ['', '', '', 'T-M', ''],
        // Shopify style: the product's key repeated on its variant rows, the rest blank.
        ['tee', '', '', 'T-L', ''],
        // Another product with no description of its own: it gets none, not the tee's.
        ['cap', 'Cap', '', 'C-1', ''],
        ['', '', '', 'C-2', ''],
      ],
    );
    const out = rows.map((r) => m.map(r));
    const product = (i: number) => out[i]!.drafts.find((d) => d.entity === 'products');
    expect(product(0)!.fields).toMatchObject({ prod_title: 'Tee', prod_description: 'Soft cotton' });
    expect(out[1]!.drafts.find((d) => d.entity === 'variants')!.links.productRef).toBe('tee');
    expect(out[2]!.drafts.find((d) => d.entity === 'variants')!.links.productRef).toBe('tee');
    expect(product(3)!.fields.prod_title).toBe('Cap');
    expect(product(3)!.fields.prod_description).toBeUndefined();
    expect(out[4]!.drafts.find((d) => d.entity === 'variants')!.links.productRef).toBe('cap');
    // The command column is the profile's: used, and no "does not match a field" warning for it.
    expect(m.warnings.join('\n')).not.toContain('"Op"');
  });

  it('applies DELETE to the variant of a variant row, not to its product', () => {
    const m = mapper({ ...profile, commandColumn: 'Cmd' });
    const out = m.map(row({ Handle: 'tee', SKU: 'tee-s', Cmd: 'DELETE' }));
    expect(out.drafts.map((d) => `${d.entity}:${d.command}`)).toEqual(['variants:DELETE']);
  });
});

describe('parent column (WooCommerce, Bagisto)', () => {
  it('makes rows with a parent variants of it and rows without one products', () => {
    const m = mapper({
      entity: 'products',
      variants: true,
      parentColumn: 'Parent',
      columns: { SKU: 'frmt_ref', Name: 'prod_title', Price: 'frmt_price' },
      fields: { prod_ref: { from: ['SKU'] } },
    });
    const rows = csvRows(
      ['SKU', 'Parent', 'Name', 'Price'],
      [
        ['hoodie', '', 'Hoodie', ''],
        ['hoodie-red', 'hoodie', 'Hoodie - Red', '45'],
      ],
    );
    const [product, variant] = rows.map((r) => m.map(r));
    expect(product!.drafts).toEqual([
      expect.objectContaining({
        entity: 'products',
        ref: 'hoodie',
        fields: { prod_title: 'Hoodie', prod_ref: 'hoodie' },
      }),
    ]);
    expect(variant!.drafts).toEqual([
      expect.objectContaining({
        entity: 'variants',
        ref: 'hoodie-red',
        links: { productRef: 'hoodie' },
        fields: { frmt_ref: 'hoodie-red', frmt_price: 45 },
      }),
    ]);
    expect(m.warnings).toEqual([]);
  });

  it('ownVariant as a list: only a value in one of its columns makes a parentless row its own variant', () => {
    // Bagisto: a simple product has a price; a configurable or grouped one only a status (on every row).
    const m = mapper({
      entity: 'products',
      variants: true,
      parentColumn: 'parent_sku',
      ownVariant: ['price'],
      autoColumns: false,
      columns: { sku: 'frmt_ref', name: 'prod_title', price: 'frmt_price', stock: 'frmt_stock' },
      fields: { prod_ref: { from: ['sku'] } },
    });
    const rows = csvRows(
      ['sku', 'parent_sku', 'name', 'price', 'stock'],
      [
        ['SP-001', '', 'Simple', '14', '3'],
        ['CP-001', '', 'Configurable', '', '5'],
      ],
    );
    const [simple, configurable] = rows.map((r) => m.map(r));
    expect(simple!.drafts.map((d) => [d.entity, d.ref])).toEqual([
      ['products', 'SP-001'],
      ['variants', 'SP-001'],
    ]);
    expect(simple!.drafts[1]).toMatchObject({
      links: { productRef: 'SP-001' },
      fields: { frmt_price: 14, frmt_stock: 3 },
    });
    expect(simple!.issues).toEqual([]);
    // The stock alone does not make a variant: it is not written, and the row says so.
    expect(configurable!.drafts.map((d) => [d.entity, d.ref])).toEqual([['products', 'CP-001']]);
    expect(configurable!.issues.map((i) => i.message)).toEqual([
      'column "stock" (variants.frmt_stock) not written: this row drafts no variant (a row without "parent_sku" is a product)',
    ]);
  });

  it("ownVariant names only the profile's columns when they are all named", () => {
    expect(() =>
      mapper({
        entity: 'products',
        variants: true,
        parentColumn: 'parent_sku',
        ownVariant: ['prices'],
        autoColumns: false,
        columns: { sku: 'frmt_ref', price: 'frmt_price' },
      }),
    ).toThrow(/\$\.ownVariant\[0\] "prices" is not one of the profile's columns/);
  });

  it('needs variants: true', () => {
    expect(() => mapper({ entity: 'products', parentColumn: 'Parent' })).toThrow(
      /\$\.parentColumn needs "variants": true/,
    );
  });
});

describe('list values', () => {
  it('joins a JSON list for a single-value field when asked, refuses it otherwise', () => {
    const joined = mapper({
      entity: 'products',
      columns: { brands: { field: 'prod_brand', join: ', ' } },
    }).map(row({ prod_ref: 'P', brands: ['Acme', 'Globex'] }));
    expect(joined.drafts[0]!.fields.prod_brand).toBe('Acme, Globex');
    const refused = mapper({ entity: 'products', columns: { brands: 'prod_brand' } }).map(
      row({ prod_ref: 'P', brands: ['Acme'] }),
    );
    expect(refused.issues[0]!.message).toBe('must be a single value, got ["Acme"]');
  });

  it('keeps the first item of a list for a single-value field under first', () => {
    const m = mapper({
      entity: 'products',
      columns: {
        Brands: { field: 'prod_brand', first: true },
        Seasons: { field: 'prod_season', split: ',', first: true },
      },
    });
    const listed = m.map(row({ prod_ref: 'P', Brands: ['', 'Acme', 'Globex'], Seasons: ' , summer,winter' }));
    expect(listed.issues).toEqual([]);
    expect(listed.drafts[0]!.fields).toMatchObject({ prod_brand: 'Acme', prod_season: 'summer' });
    const one = m.map(row({ prod_ref: 'Q', Brands: 'Acme|Globex', Seasons: 'winter' }, 3));
    expect(one.drafts[0]!.fields).toMatchObject({ prod_brand: 'Acme', prod_season: 'winter' });
  });

  it('takes JSON lists as they are for multi-value fields', () => {
    const out = mapper({ entity: 'products' }).map(
      row({ prod_ref: 'P', prod_tags: ['a', 'b'], prod_pack_size: 3 }),
    );
    expect(out.drafts[0]!.fields).toEqual({ prod_ref: 'P', prod_tags: ['a', 'b'], prod_pack_size: 3 });
  });
});

describe('profile-wide defaults and overrides', () => {
  it('applies split, decimal and timezone given at the top of the profile to every column', () => {
    const out = mapper({
      entity: 'products',
      split: ';',
      decimal: ',',
      timezone: 'America/New_York',
    }).map(row({ prod_ref: 'P', prod_tags: 'a;b|c', prod_weight: '1,250', prod_date: '2024-01-15 09:30' }));
    expect(out.issues).toEqual([]);
    expect(out.drafts[0]!.fields).toEqual({
      prod_ref: 'P',
      prod_tags: ['a', 'b|c'],
      prod_weight: 1.25,
      prod_date: '2024-01-15T14:30:00Z',
    });
  });

  it('lets a column rule override a profile default, and split: false keep a cell whole', () => {
    const out = mapper({
      entity: 'products',
      split: ';',
      columns: { Tags: { field: 'prod_tags', split: false }, Labels: { field: 'prod_labels', split: '/' } },
    }).map(row({ prod_ref: 'P', Tags: 'a;b|c', Labels: 'organic/vegan' }));
    expect(out.drafts[0]!.fields).toEqual({
      prod_ref: 'P',
      prod_tags: ['a;b|c'],
      prod_labels: ['organic', 'vegan'],
    });
  });

  it("coerces with the rule's type instead of the field's", () => {
    const m = mapper({
      entity: 'products',
      columns: {
        Pack: { field: 'prod_pack_size', type: 'number' },
        Released: { field: 'prod_release_date', type: 'date-time', timezone: 'Asia/Tokyo' },
      },
    });
    const out = m.map(row({ prod_ref: 'P', Pack: '2,5', Released: '2024-03-01 08:00' }));
    expect(out.issues).toEqual([]);
    // The rule reads the cell; the schema still judges the result (2.5 is no whole number).
    expect(out.drafts[0]!.fields).toEqual({
      prod_ref: 'P',
      prod_pack_size: 2.5,
      prod_release_date: '2024-02-29T23:00:00Z',
    });
  });
});

describe("a header that differs from a profile's column only by letter case or spaces", () => {
  /** A table row as the CSV reader gives it: cells by position and the header they line up with. */
  const tableRow = (headers: string[], values: string[], line = 2) => ({
    ...row(Object.fromEntries(headers.map((h, i) => [h, values[i]!])), line),
    headers,
    values,
  });
  const supplier: Profile = {
    entity: 'products',
    columns: { SKU: 'prod_ref', 'Product name': 'prod_title' },
    fields: { prod_brand: { from: ['Maker'] } },
  };

  it('is read as the column, and as a column a field rule names, with a warning each', () => {
    const m = mapper(supplier);
    const out = m.map(tableRow(['sku', ' Product Name ', 'MAKER'], ['P1', 'Shirt', 'Acme']));
    expect(out.issues).toEqual([]);
    expect(out.drafts[0]!.fields).toEqual({ prod_ref: 'P1', prod_title: 'Shirt', prod_brand: 'Acme' });
    // Messages name the column as the file writes it.
    expect(out.drafts[0]!.source.columns.prod_ref).toBe('sku');
    expect(m.warnings.slice(0, 3)).toEqual([
      'column "sku" read as the profile\'s "SKU" (the names differ only in letter case or surrounding spaces)',
      'column " Product Name " read as the profile\'s "Product name" (the names differ only in letter case or surrounding spaces)',
      'column "MAKER" read as the profile\'s "Maker" (the names differ only in letter case or surrounding spaces)',
    ]);
    // A column only a field rule reads is not a field, as when it is written as the rule names it.
    expect(m.warnings.slice(3)).toEqual(['column "MAKER" does not match a field of products: ignored']);
    const exact = mapper(supplier);
    exact.map(tableRow(['SKU', 'Product name', 'Maker'], ['P1', 'Shirt', 'Acme']));
    expect(exact.warnings).toEqual(['column "Maker" does not match a field of products: ignored']);
  });

  it('a column the profile names that no row has is a warning; --strict makes the rows of a table invalid', () => {
    const lax = mapper(supplier);
    expect(lax.map(tableRow(['SKU'], ['P1'])).issues).toEqual([]);
    expect(lax.warnings).toEqual([
      'the profile\'s column "Product name" (prod_title) is not in the file: nothing is read for it',
    ]);
    const strict = mapper(supplier, true);
    expect(strict.map(tableRow(['SKU'], ['P1'])).issues).toMatchObject([
      { code: 'MAP_MISSING_COLUMN', column: 'Product name', severity: 'error' },
    ]);
    expect(strict.plainColumns(tableRow(['SKU'], ['P1']))).toBeUndefined();
  });

  it('keyed records (JSON) may each leave a column out: only one no record has is named', () => {
    const m = mapper(supplier, true);
    expect(m.map(row({ SKU: 'P1' })).issues).toEqual([]);
    expect(m.map(row({ SKU: 'P2', 'Product name': 'Shirt' }, 3)).issues).toEqual([]);
    expect(m.warnings).toEqual([]);
  });

  it('never reads two headers as one column, nor one header as two', () => {
    const two = mapper(supplier);
    const out = two.map(tableRow(['SKU', 'product name', 'PRODUCT NAME'], ['P1', 'a', 'b']));
    expect(out.drafts[0]!.fields).toEqual({ prod_ref: 'P1' });
    expect(two.warnings[0]).toBe(
      'columns "product name", "PRODUCT NAME" and the profile\'s "Product name" differ only in letter case or surrounding spaces, and which is meant cannot be told: none is read as the profile\'s (name the column exactly as the file does in the profile)',
    );
    const twice = mapper({ entity: 'products', columns: { SKU: 'prod_ref', sku: 'prod_brand' } });
    expect(twice.map(tableRow(['Sku', 'prod_title'], ['P1', 'x'])).drafts[0]!.fields).toEqual({
      prod_title: 'x',
    });
    expect(twice.warnings[0]).toContain('column "Sku" and the profile\'s "SKU", "sku" differ only');
  });
});
