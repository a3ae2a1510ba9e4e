// Every real-world feed in the shared data/realworld folder reads correctly: row counts and exact cells.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REALWORLD, readAll, tempFile } from './helpers.js';

const file = (name: string) => join(REALWORLD, name);

describe('real-world feeds', () => {
  it('WooCommerce: UTF-8 BOM never reaches the first header', async () => {
    const { source, rows } = await readAll(file('woocommerce_sample_products.csv'));
    expect(source.format).toBe('csv');
    expect(source.encoding).toBe('utf-8');
    expect(source.headers[0]).toBe('ID');
    expect(source.headers).toHaveLength(51);
    expect(source.headers).toContain('Is featured?');
    expect(rows).toHaveLength(25);
    expect(rows[0]!.cells.ID).toBe('44');
    expect(rows[0]!.cells.SKU).toBe('woo-vneck-tee');
    const grouped = rows.find((row) => row.cells.Type === 'grouped');
    expect(grouped?.cells['Grouped products']).toBe('woo-hoodie-with-logo, woo-tshirt, woo-beanie');
    expect(rows.filter((row) => row.cells.Type === 'variation')).toHaveLength(7);
    expect(rows.every((row) => row.error === undefined)).toBe(true);
  });

  it('Magento sample data: 1,994 records, multi-line descriptions, lines where records start', async () => {
    const path = file('magento2-sample-data_configurable_products.csv');
    const { source, rows } = await readAll(path);
    expect(source.headers).toHaveLength(70);
    expect(rows).toHaveLength(1994);
    expect(rows.filter((row) => row.cells.product_type === 'configurable')).toHaveLength(147);
    expect(rows[0]!.cells.sku).toBe('MH01-XS-Black');
    expect(rows[0]!.location.text).toBe('line 2');
    const multiLine = rows.filter((row) => String(row.cells.description).includes('\n'));
    expect(multiLine).toHaveLength(1946);
    // Each record's line is the physical line it starts on: that line begins with its SKU.
    const lines = readFileSync(path, 'utf8').split('\n');
    for (const row of [rows[1]!, rows[500]!, rows[1993]!]) {
      expect(lines[row.location.line - 1]!.startsWith(String(row.cells.sku))).toBe(true);
    }
    expect(rows.every((row) => row.error === undefined)).toBe(true);
  });

  it('Magento multiple stores: 4 records of 80 columns, the store-view row keeps empties', async () => {
    const { source, rows } = await readAll(file('magento2_products_multiple_stores.csv'));
    expect(source.headers).toHaveLength(80);
    expect(rows).toHaveLength(4);
    const storeRow = rows.find((row) => row.cells.store_view_code === 'fixturestore');
    expect(storeRow?.cells.sku).toBe('Configurable 03-Option 1');
    expect(storeRow?.cells.price).toBe('');
    expect(rows.some((row) => row.cells.product_websites === 'base,test')).toBe(true);
    expect(rows.some((row) => row.cells.meta_description === 'Configurable 03 ')).toBe(true);
  });

  it('PrestaShop products: semicolon detected, trailing delimiter tolerated', async () => {
    const { source, rows } = await readAll(file('prestashop_products_import.csv'));
    expect(source.delimiter).toBe(';');
    expect(source.headers).toHaveLength(67);
    expect(source.headers.at(-1)).toBe('Acessories  (x,y,z...)');
    expect(rows).toHaveLength(7);
    expect(rows[0]!.cells['Name *']).toBe('iPod Nano');
    expect(rows.every((row) => row.error === undefined)).toBe(true);
  });

  it('PrestaShop combinations: ragged record 1 (one trailing ";") reads without error, EAN13 stays text', async () => {
    const { source, rows } = await readAll(file('prestashop_combinations_import.csv'));
    expect(source.headers).toHaveLength(23);
    expect(rows).toHaveLength(27);
    expect(rows[0]!.error).toBeUndefined();
    expect(rows[0]!.cells.EAN13).toBe('0000080446392');
    expect(rows[0]!.cells.Warehouse).toBe('0');
    expect(rows[0]!.cells['Attribute (Name:Type:Position)*']).toBe('Color:color:0, Disk space:select:1');
  });

  it('Vendure mock data: padded cells trimmed automatically', async () => {
    const { source, rows } = await readAll(file('vendure_mock-data_products.csv'));
    expect(source.headers).toHaveLength(14);
    expect(source.headers[0]).toBe('name');
    expect(source.notes.some((note) => note.includes('trimmed'))).toBe(true);
    expect(rows).toHaveLength(88);
    expect(rows[0]!.cells.name).toBe('Laptop');
    expect(rows[0]!.cells.optionGroups).toBe('screen size|RAM');
    expect(rows[0]!.cells.facets).toBe('category:Electronics|category:Computers|brand:Apple');
  });

  it('Vendure multi-language: CJK, and ` "paper, stretch" ` is one cell', async () => {
    const { source, rows } = await readAll(file('vendure_product-import-multi-languages.csv'));
    expect(source.headers).toHaveLength(22);
    expect(source.headers[1]).toBe('name:zh_Hans');
    expect(rows).toHaveLength(3);
    expect(rows[0]!.cells['product:keywords']).toBe('paper, stretch');
    expect(rows[0]!.cells['name:zh_Hans']).toBe('奇妙的纸张拉伸器');
    expect(rows[0]!.cells['variant:weight']).toBe('243');
    expect(rows[2]!.cells.sku).toBe('PPSF');
    expect(rows.every((row) => row.error === undefined)).toBe(true);
  });

  it('Bagisto XLSX: numeric cells are numbers, text dates stay text', async () => {
    const { source, rows } = await readAll(file('bagisto_products.xlsx'));
    expect(source.format).toBe('xlsx');
    expect(source.headers).toHaveLength(38);
    expect(rows).toHaveLength(11);
    expect(rows[0]!.location.text).toBe('sheet products row 2');
    expect(rows[0]!.cells.sku).toBe('SP-001');
    expect(typeof rows[0]!.cells.price).toBe('number');
    expect(typeof rows[0]!.cells.weight).toBe('number');
    expect(rows.filter((row) => row.cells.parent_sku === 'CP-001')).toHaveLength(4);
    const special = rows.find((row) => row.cells.special_price_from !== null);
    expect(special?.cells.special_price_from).toBe('2024-02-01');
  });

  it('Sylius XLSX: title row skipped, header on row 2, 4 records, styled empties are null', async () => {
    const { source, rows } = await readAll(file('sylius-import-export_taxonomies.xlsx'));
    expect(source.headers).toEqual(['Code', 'Parent', 'Locale', 'Name', 'Slug', 'Description']);
    expect(rows).toHaveLength(4);
    expect(rows[0]!.location.text).toBe('sheet Sheet 1 row 3');
    expect(rows[0]!.cells.Parent).toBeNull();
    expect(rows[3]!.cells.Slug).toBe('taxon1/taxon11');
  });

  it('DummyJSON: 194 items, nested objects flattened, optional keys, arrays kept', async () => {
    const { source, rows } = await readAll(file('dummyjson_products.json'));
    expect(source.format).toBe('json');
    expect(rows).toHaveLength(194);
    expect(rows[0]!.location.text).toBe('item 1');
    expect(rows[0]!.cells['dimensions.width']).toBe(15.14);
    expect(rows[0]!.cells.price).toBe(9.99);
    expect(Array.isArray(rows[0]!.cells.tags)).toBe(true);
    expect(typeof rows[0]!.cells['meta.barcode']).toBe('string');
    expect(typeof rows[0]!.cells.reviews).toBe('string');
    expect(rows.filter((row) => 'brand' in row.cells)).toHaveLength(102);
    expect(source.headers).toContain('brand');
    expect(source.headers).toContain('dimensions.width');
  });

  it('Google retail NDJSON: 316 lines; the same bytes named .json are sniffed as NDJSON', async () => {
    const { source, rows } = await readAll(file('google-retail_products.ndjson'));
    expect(source.format).toBe('ndjson');
    expect(rows).toHaveLength(316);
    expect(rows[0]!.cells.id).toBe('GGCOGOAC101259');
    expect(rows[0]!.cells['priceInfo.price']).toBe('16');
    expect(rows[0]!.cells.categories).toEqual(['Office']);
    expect(new Set(rows.map((row) => row.cells.id)).size).toBe(316);

    const renamed = tempFile('products.json', '');
    copyFileSync(file('google-retail_products.ndjson'), renamed);
    const again = await readAll(renamed);
    expect(again.source.format).toBe('ndjson');
    expect(again.source.notes.join(' ')).toContain('ndjson');
    expect(again.rows).toHaveLength(316);
  });
});
