// `profile init` reads a feed's rows, not only its headers: the variant structure (a parent column, a
// column naming each row's product, rows continuing the product above), lists and their separators,
// image columns, numbers written `.5` or `12 kg`, units and category paths. Each draft is then used as it
// is: the rows it maps are what the feed means.
import { describe, expect, it } from 'vitest';
import { collectSamples } from '../../src/mappers/init/values.js';
import { draftProfile } from '../../src/mappers/init.js';
import { createMapper } from '../../src/mappers/mapper.js';
import type { Cell, SourceRow } from '../../src/readers/types.js';
import { demoModel } from './demo-model.js';
import { row } from './rows.js';

function modelWithUnits() {
  const model = demoModel();
  model.entity('products')!.field('prod_weight')!.description = 'Weight in kg';
  return model;
}

async function* rowsOf(records: Array<Record<string, Cell>>): AsyncIterable<SourceRow> {
  let index = 0;
  for (const cells of records) {
    index += 1;
    yield { cells, index, location: { text: `item ${index}`, source: 'test', line: index } };
  }
}

async function draft(
  records: Array<Record<string, Cell>>,
  entity = 'products',
  variants: boolean | 'auto' = 'auto',
) {
  const model = modelWithUnits();
  const sample = await collectSamples(rowsOf(records), 200);
  const headers = [...new Set(records.flatMap((r) => Object.keys(r)))];
  return { model, ...draftProfile(headers, model, entity, variants, sample) };
}

const woo = [
  {
    SKU: 'tee',
    Type: 'variable',
    Name: 'Tee',
    Parent: '',
    'Weight (lbs)': '.5',
    'Regular price': '',
    Images: 'https://x.test/a.jpg, https://x.test/b.jpg',
  },
  {
    SKU: 'tee-red',
    Type: 'variation',
    Name: 'Tee - Red',
    Parent: 'tee',
    'Weight (lbs)': '',
    'Regular price': '18',
    Images: 'https://x.test/r.jpg',
  },
  {
    SKU: 'tee-blue',
    Type: 'variation',
    Name: 'Tee - Blue',
    Parent: 'tee',
    'Weight (lbs)': '',
    'Regular price': '18',
    Images: 'https://x.test/b.jpg',
  },
  {
    SKU: 'cap',
    Type: 'simple',
    Name: 'Cap',
    Parent: '',
    'Weight (lbs)': '2',
    'Regular price': '9',
    Images: '',
  },
];

describe('profile init: the variant structure', () => {
  it('finds the parent column, takes both refs from the SKU, and the profile maps the rows', async () => {
    const { model, profile, notes } = await draft(woo);
    expect(profile).toMatchObject({
      variants: true,
      parentColumn: 'Parent',
      columns: {
        SKU: 'frmt_ref',
        Type: null,
        Parent: null,
        Name: 'prod_title',
        'Weight (lbs)': { field: 'prod_weight', unit: 'lb' },
        'Regular price': 'frmt_price',
        Images: { field: 'prod_images', split: ',' },
      },
      // A variation row's own image goes to the variant: its product columns are not read.
      fields: { prod_ref: { from: ['SKU'] }, frmt_image: { from: ['Images'] } },
    });
    expect(notes.find((n) => n.header === 'Type')?.structure).toContain('kind of row');
    expect(notes.find((n) => n.header === 'Images')?.structure).toContain('frmt_image');
    const mapper = createMapper({ model, profile });
    const product = mapper.map(row(woo[0]!)).drafts;
    expect(product).toMatchObject([
      {
        entity: 'products',
        ref: 'tee',
        fields: { prod_weight: 0.226796185, prod_images: ['a.jpg', 'b.jpg'] },
      },
    ]);
    const variant = mapper.map(row(woo[1]!, 3));
    // Its own Name is not written (the product's title comes from the product's row), and says so.
    expect(variant.issues).toMatchObject([
      {
        severity: 'warning',
        column: 'Name',
        message:
          'column "Name" (products.prod_title) not written: this row drafts no product (a row with "Parent" is a variant of that product)',
      },
    ]);
    expect(variant.drafts).toMatchObject([
      {
        entity: 'variants',
        ref: 'tee-red',
        fields: { frmt_price: 18, frmt_image: 'r.jpg' },
        links: { productRef: 'tee' },
      },
    ]);
    // A simple product's row gives a price: it drafts its product and its own variant (ownVariant).
    expect(profile.ownVariant).toBe(true);
    expect(notes.find((n) => n.header === 'Parent')?.structure).toContain('("Regular price")');
    const simple = mapper.map(row(woo.at(-1)!, woo.length + 1));
    expect(simple.issues).toEqual([]);
    expect(simple.drafts).toMatchObject([
      { entity: 'products', ref: 'cap', fields: { prod_title: 'Cap' } },
      { entity: 'variants', ref: 'cap', fields: { frmt_price: 9 }, links: { productRef: 'cap' } },
    ]);
    // Without ownVariant, the price is not written, and that is a warning on the row.
    const plain = createMapper({ model, profile: { ...profile, ownVariant: false } }).map(
      row(woo.at(-1)!, woo.length + 1),
    );
    expect(plain.drafts.map((d) => d.entity)).toEqual(['products']);
    expect(plain.issues.map((i) => [i.severity, i.message])).toEqual([
      [
        'warning',
        'column "Regular price" (variants.frmt_price) not written: this row drafts no variant (a row without "Parent" is a product)',
      ],
    ]);
  });

  it('leaves the variant image out when variant rows hold several images in the cell', async () => {
    const several = woo.map((r) => (r.Parent ? { ...r, Images: `${r.Images}, https://x.test/z.jpg` } : r));
    const { profile } = await draft(several);
    expect(profile.fields).toEqual({ prod_ref: { from: ['SKU'] } });
  });

  it('groups rows by the column that names each row’s product, its own row included (mainnumber)', async () => {
    const { profile } = await draft([
      { ordernumber: 'A-1', mainnumber: 'A-1', name: 'Art', instock: '5' },
      { ordernumber: 'A-1.1', mainnumber: 'A-1', name: 'Art', instock: '2' },
      { ordernumber: 'B-1', mainnumber: 'B-1', name: 'Bee', instock: '0' },
    ]);
    expect(profile).toMatchObject({
      variants: true,
      columns: { ordernumber: 'frmt_ref', mainnumber: 'prod_ref' },
    });
    expect(profile.parentColumn).toBeUndefined();
    expect(profile.fields).toBeUndefined();
  });

  it('fills the product columns down when variant rows leave them blank (slug is the product ref)', async () => {
    const { model, profile } = await draft([
      { name: 'Laptop', slug: 'laptop', sku: 'L13', price: '1299.00' },
      { name: '', slug: '', sku: 'L15', price: '1399.00' },
      { name: 'Tablet', slug: 'tablet', sku: 'T1', price: '329' },
    ]);
    expect(profile).toMatchObject({
      variants: true,
      fillDown: true,
      columns: { name: 'prod_title', slug: 'prod_ref', sku: 'frmt_ref', price: 'frmt_price' },
    });
    const mapper = createMapper({ model, profile });
    mapper.map(row({ name: 'Laptop', slug: 'laptop', sku: 'L13', price: '1299.00' }));
    const second = mapper.map(row({ name: '', slug: '', sku: 'L15', price: '1399.00' }, 3));
    expect(second.drafts).toMatchObject([
      { entity: 'variants', ref: 'L15', links: { productRef: 'laptop' } },
    ]);
  });

  it('leaves a parent column out when it is blank everywhere, and drafts products alone without variant values', async () => {
    const { profile } = await draft([
      { sku: 'A', name: 'A', parent: '', description: 'x' },
      { sku: 'B', name: 'B', parent: '', description: 'y' },
    ]);
    expect(profile.variants).toBeUndefined();
    expect(profile.parentColumn).toBeUndefined();
    expect(profile.columns).toEqual({
      sku: 'prod_ref',
      name: 'prod_title',
      parent: null,
      description: 'prod_description',
    });
  });

  it('places a variants file’s product column on the product link', async () => {
    const { profile } = await draft(
      [
        { 'Product ID*': '1', Reference: 'RP-1', EAN13: '0000080446392', Quantity: '10' },
        { 'Product ID*': '1', Reference: 'RP-2', EAN13: '0000080446393', Quantity: '10' },
      ],
      'variants',
    );
    expect(profile.columns).toEqual({
      'Product ID*': 'prod_ref',
      Reference: 'frmt_ref',
      EAN13: 'frmt_ean',
      Quantity: 'frmt_stock',
    });
  });
});

describe('profile init: a variant’s own images', () => {
  // PrestaShop's combinations file: each combination lists its own images; the product's are in its own file.
  const combinations = [
    {
      'Product ID*': '1',
      Reference: 'RP-Nano-Blue-16GB',
      Quantity: '10',
      'Image URLs (x,y,z...)': 'https://x.test/blue.jpg,https://x.test/blue-back.jpg',
    },
    {
      'Product ID*': '1',
      Reference: 'RP-Nano-Blue-8GB',
      Quantity: '10',
      'Image URLs (x,y,z...)': 'https://x.test/blue-8.jpg',
    },
    {
      'Product ID*': '2',
      Reference: 'RP-Shuffle-Metal',
      Quantity: '3',
      'Image URLs (x,y,z...)': 'https://x.test/metal.jpg',
    },
  ];

  it('places an image column that differs between rows of one product on the variant, its first image', async () => {
    const { model, profile, notes } = await draft(combinations);
    expect(profile).toMatchObject({
      variants: true,
      columns: {
        'Product ID*': 'prod_ref',
        Reference: 'frmt_ref',
        'Image URLs (x,y,z...)': { field: 'frmt_image', split: ',', first: true },
      },
    });
    expect(notes.find((n) => n.header === 'Image URLs (x,y,z...)')?.structure).toContain(
      'differs between rows of one product',
    );
    const mapper = createMapper({ model, profile });
    const first = mapper.map(row(combinations[0]!));
    expect(first.issues).toEqual([]);
    expect(first.drafts).toEqual([
      expect.objectContaining({ entity: 'products', ref: '1', fields: { prod_ref: '1' } }),
      expect.objectContaining({
        entity: 'variants',
        ref: 'RP-Nano-Blue-16GB',
        fields: expect.objectContaining({ frmt_image: 'blue.jpg' }),
      }),
    ]);
    const second = mapper.map(row(combinations[1]!, 3));
    expect(second.drafts.find((d) => d.entity === 'variants')?.fields.frmt_image).toBe('blue-8.jpg');
  });

  it('keeps an image column on the product when the rows of each product agree on it', async () => {
    const { profile } = await draft(
      combinations.map((r) => ({ ...r, 'Image URLs (x,y,z...)': `https://x.test/p${r['Product ID*']}.jpg` })),
    );
    expect(profile.columns?.['Image URLs (x,y,z...)']).toMatchObject({ field: 'prod_images' });
  });
});

describe('profile init: values', () => {
  it('prefers many distinct image URLs to one repeated file, and skips relative paths', async () => {
    const records = Array.from({ length: 6 }, (_, i) => ({
      sku: `S-${i}`,
      title: `Item ${i}`,
      'meta.qrCode': 'https://cdn.test/qr-code.png',
      images: [`https://cdn.test/${i}/1.webp`, `https://cdn.test/${i}/2.webp`],
      thumbnail: `https://cdn.test/${i}/thumbnail.webp`,
      picture: `/static/img/${i}.jpg`,
      price: 9.99,
    }));
    const { profile, notes } = await draft(records);
    expect(profile.columns).toMatchObject({
      'meta.qrCode': null,
      images: 'prod_images',
      thumbnail: 'frmt_image',
      picture: null,
    });
    expect(notes.find((n) => n.header === 'picture')?.warning).toContain('relative');
  });

  it('splits lists on the separator the values use, a header hint when they show none', async () => {
    const { profile } = await draft([
      { SKU: 'A', 'Tags (x,y,z...)': 'apple, ipod, nano', 'Image URLs (x,y,z...)': 'http://h.test/1.jpg' },
      { SKU: 'B', 'Tags (x,y,z...)': 'ipod', 'Image URLs (x,y,z...)': 'http://h.test/2.jpg' },
      { SKU: 'C', 'Tags (x,y,z...)': 'x', assets: 'a.jpg|b.jpg' },
    ]);
    expect(profile.columns).toMatchObject({
      'Tags (x,y,z...)': { field: 'prod_tags', split: ',' },
      'Image URLs (x,y,z...)': { field: 'prod_images', split: ',' },
    });
    const spaces = await draft([{ SKU: 'A', Photos: 'https://h.test/1.jpg https://h.test/2.jpg' }]);
    expect(spaces.profile.columns?.Photos).toEqual({ field: 'prod_images', split: ' ' });
  });

  it('reads .5, 1.234,50 and 12 kg as numbers, and converts the unit the cells or a sibling name', async () => {
    const { profile } = await draft([
      { SKU: 'A', Weight: '.5', Prezzo: '1.234,50' },
      { SKU: 'B', Weight: '.25', Prezzo: '12,00' },
    ]);
    expect(profile.columns).toMatchObject({
      Weight: 'prod_weight',
      Prezzo: { field: 'frmt_price', decimal: ',', thousands: '.' },
    });
    const grams = await draft([
      { SKU: 'A', Gewicht: '500 g' },
      { SKU: 'B', Gewicht: '1,5 g' },
    ]);
    expect(grams.profile.columns?.Gewicht).toEqual({ field: 'prod_weight', decimal: ',', unit: 'g' });
    const sibling = await draft([
      { productCode: 'A', 'packageWeight.unit': 'lbs', 'packageWeight.value': 0.5 },
      { productCode: 'B', 'packageWeight.unit': 'lbs', 'packageWeight.value': 1 },
    ]);
    expect(sibling.profile.columns?.['packageWeight.value']).toEqual({ field: 'prod_weight', unit: 'lb' });
  });

  it('writes category paths with their separators, and leaves source-system ids out', async () => {
    const { profile, notes } = await draft([
      { sku: 'A', categories: 'Default Category/Men/Tops,Default Category/Collections/Eco' },
      { sku: 'B', categories: 'Default Category/Women' },
    ]);
    expect(profile.columns?.categories).toEqual({
      field: 'cat_refs',
      categoryPath: { separator: '/' },
      split: ',',
    });
    expect(notes.find((n) => n.header === 'categories')?.warning).toBeUndefined();
    const arrows = await draft([
      { sku: 'A', Categories: 'Clothing > Hoodies' },
      { sku: 'B', Categories: 'Music' },
    ]);
    expect(arrows.profile.columns?.Categories).toEqual({
      field: 'cat_refs',
      categoryPath: { separator: ' > ' },
    });
    // No cell of the sample lists several: the note says a later one would be read as one path.
    expect(arrows.notes.find((n) => n.header === 'Categories')?.warning).toMatch(
      /one category per cell in the sampled rows.*"A > B, C"/,
    );
    const names = await draft([
      { sku: 'A', category: 'Headlamps' },
      { sku: 'B', category: 'Footwear' },
    ]);
    expect(names.profile.columns?.category).toEqual({ field: 'cat_refs', categoryPath: true });
    const ids = await draft([
      { id: 'a1', categories: '5919a6ebdb2a48699fabfcd1a0b379ce' },
      { id: 'a2', categories: '3' },
    ]);
    expect(ids.profile.columns?.categories).toBeNull();
    expect(ids.notes.find((n) => n.header === 'categories')?.warning).toContain('ids of the source system');
  });

  it('drafts the ref from the title when no column holds one', async () => {
    const { profile, notes } = await draft([
      { Name: 'Mug', Description: 'A mug' },
      { Name: 'Cup', Description: 'A cup' },
    ]);
    expect(profile.fields).toEqual({ prod_ref: { from: ['Name'] } });
    // One note for Name: placed on the title, with the warning (not a second note saying "not placed").
    expect(notes.filter((n) => n.header === 'Name')).toEqual([
      {
        header: 'Name',
        field: 'prod_title',
        warning: 'no column holds a reference: prod_ref is taken from "Name"',
      },
    ]);
  });
});

describe('profile init: a product ref column left blank', () => {
  it('takes the product ref from the title when the ref column is blank on every row', async () => {
    const { model, profile } = await draft([
      { 'name:en': 'Paper Stretcher', slug: '', sku: 'PPS12', price: '45.3' },
      { 'name:en': '', slug: '', sku: 'PPS14', price: '32.5' },
    ]);
    expect(profile).toMatchObject({
      fillDown: true,
      columns: { slug: null, sku: 'frmt_ref' },
      fields: { prod_ref: { from: ['slug', 'name:en'] } },
    });
    const mapper = createMapper({ model, profile });
    mapper.map(row({ 'name:en': 'Paper Stretcher', slug: '', sku: 'PPS12', price: '45.3' }));
    const second = mapper.map(row({ 'name:en': '', slug: '', sku: 'PPS14', price: '32.5' }, 3));
    expect(second.issues).toEqual([]);
    expect(second.drafts).toMatchObject([
      { entity: 'variants', ref: 'PPS14', links: { productRef: 'Paper Stretcher' } },
    ]);
  });
});

describe('profile init: a store view column (Magento store_view_code)', () => {
  const rows = [
    { sku: 'C03', store_view_code: '', name: 'Configurable 03', price: '10.0000' },
    { sku: 'S01', store_view_code: '', name: 'Simple 01', price: '12.0000' },
    { sku: 'C03', store_view_code: 'fixturestore', name: 'Configurable 03-Option 1', price: '' },
  ];

  it('is the scope column, not a field; the override row is skipped with the reason, the others mapped', async () => {
    const { model, profile, notes } = await draft(rows);
    expect(profile.scopeColumn).toBe('store_view_code');
    expect(profile.columns?.store_view_code).toBeNull();
    expect(notes.find((n) => n.header === 'store_view_code')?.structure).toMatch(/store view/);
    const mapper = createMapper({ model, profile });
    const [first, second, third] = rows.map((cells, i) => mapper.map(row(cells, i + 2)));
    expect(first!.skipped).toBe(false);
    expect(first!.drafts[0]).toMatchObject({ ref: 'C03', fields: { prod_title: 'Configurable 03' } });
    expect(second!.drafts[0]).toMatchObject({ ref: 'S01' });
    // The override row does not rename the product: it is skipped, and says why.
    expect(third!.skipped).toBe(true);
    expect(third!.drafts).toEqual([]);
    expect(third!.issues).toEqual([]);
    expect(third!.skipReason).toMatch(/store view "fixturestore"/);
    expect(third!.skipReason).toMatch(/column "store_view_code"/);
  });

  it('a feed whose store view column is blank on every row imports every row (Magento sample data)', async () => {
    const blank = rows.slice(0, 2);
    const { model, profile } = await draft(blank);
    expect(profile.scopeColumn).toBe('store_view_code');
    const mapper = createMapper({ model, profile });
    const mapped = blank.map((cells, i) => mapper.map(row(cells, i + 2)));
    expect(mapped.map((m) => [m.skipped, m.drafts[0]?.ref])).toEqual([
      [false, 'C03'],
      [false, 'S01'],
    ]);
  });
});

describe('profile init: images that differ between the rows of one product', () => {
  const combinations = (second: string) => [
    { 'Product ID': 'P1', Reference: 'P1-BLUE', Quantity: '3', 'Image URLs': 'https://x.test/blue.jpg' },
    { 'Product ID': 'P1', Reference: 'P1-RED', Quantity: '4', 'Image URLs': second },
    { 'Product ID': 'P2', Reference: 'P2-ONE', Quantity: '1', 'Image URLs': 'https://x.test/p2.jpg' },
  ];

  it('are the variants’ own: the variant image field takes them, and the rows of a product agree', async () => {
    const rows = combinations('https://x.test/red.jpg');
    const { model, profile } = await draft(rows);
    expect(profile.columns?.['Image URLs']).toEqual({ field: 'frmt_image' });
    const mapper = createMapper({ model, profile });
    const mapped = rows.map((cells, i) => mapper.map(row(cells, i + 2)));
    expect(mapped.flatMap((m) => m.issues)).toEqual([]);
    expect(mapped[1]!.drafts.find((d) => d.entity === 'variants')).toMatchObject({
      ref: 'P1-RED',
      fields: { frmt_image: 'red.jpg' },
    });
  });

  it('the variant takes the first when a cell holds several (one variant image field)', async () => {
    const { profile } = await draft(combinations('https://x.test/red.jpg,https://x.test/red2.jpg'));
    expect(profile.columns?.['Image URLs']).toEqual({ field: 'frmt_image', split: ',', first: true });
  });

  it('the same images on every row of a product stay the product’s', async () => {
    const same = combinations('https://x.test/blue.jpg');
    const { profile } = await draft(same);
    expect(profile.columns?.['Image URLs']).toBe('prod_images');
  });
});
