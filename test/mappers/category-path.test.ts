// `categoryPath` columns: a cell of category titles as paths, the separator given or found in the
// file, several paths per cell, and the stable reference each path's category is given.
import { describe, expect, it } from 'vitest';
import { categoryRefOf } from '../../src/mappers/category-path.js';
import { createMapper } from '../../src/mappers/mapper.js';
import { parseProfile } from '../../src/mappers/profile.js';
import type { Profile } from '../../src/mappers/profile-types.js';
import { demoModel } from './demo-model.js';
import { row } from './rows.js';

const model = demoModel();
const mapper = (profile: Profile) => createMapper({ model, profile });

describe('categoryRefOf', () => {
  it('lower-cases, takes accents off, joins the titles with /', () => {
    expect(categoryRefOf(['Men', 'Winter Wear'])).toBe('men/winter-wear');
    expect(categoryRefOf(['Clothing', 'T-Shirts & Tops'])).toBe('clothing/t-shirts-tops');
    expect(categoryRefOf(['Café', 'Crème brûlée'])).toBe('cafe/creme-brulee');
    expect(categoryRefOf(['服装', '上衣'])).toBe('服装/上衣');
  });

  it('is stable and fits 64 characters, a long path ending in a hash of its titles', () => {
    const long = ['A very long category title that goes on', 'and on with another long title', 'x'];
    const ref = categoryRefOf(long);
    expect(ref).toHaveLength(64);
    expect(ref).toMatch(/~[0-9a-f]{8}$/);
    expect(categoryRefOf(long)).toBe(ref);
    expect(categoryRefOf([...long.slice(0, 2), 'y'])).not.toBe(ref);
  });
});

describe('a product column with categoryPath', () => {
  it('gives the derived refs and the paths, several per cell with split', () => {
    const m = mapper({
      entity: 'products',
      columns: {
        SKU: 'prod_ref',
        Categories: { field: 'cat_refs', categoryPath: { separator: ' > ' }, split: ',' },
      },
    });
    const out = m.map(row({ SKU: 'P1', Categories: 'Clothing > Hoodies, Clothing > Tshirts,  ' }));
    expect(out.issues).toEqual([]);
    expect(out.drafts[0]!.links).toEqual({
      categoryRefs: ['clothing/hoodies', 'clothing/tshirts'],
      categoryPaths: [
        ['Clothing', 'Hoodies'],
        ['Clothing', 'Tshirts'],
      ],
    });
    expect(out.drafts[0]!.source.columns['link:categoryRefs']).toBe('Categories');
  });

  it('true: finds the separator in the file, the first of " > ", "/", "|" a cell holds', () => {
    const m = mapper({ entity: 'products', columns: { Cat: { field: 'cat_refs', categoryPath: true } } });
    const first = m.map(row({ prod_ref: 'P1', Cat: 'Men' }));
    expect(first.drafts[0]!.links.categoryPaths).toEqual([['Men']]);
    const second = m.map(row({ prod_ref: 'P2', Cat: 'Men/Winter Wear' }, 3));
    expect(second.drafts[0]!.links.categoryPaths).toEqual([['Men', 'Winter Wear']]);
    // The file's separator is "/" from now on: a "|" is part of a title.
    const third = m.map(row({ prod_ref: 'P3', Cat: 'Men/Rain|Snow' }, 4));
    expect(third.drafts[0]!.links.categoryPaths).toEqual([['Men', 'Rain|Snow']]);
  });

  it('a JSON list of paths: each item is a path', () => {
    const m = mapper({ entity: 'products', columns: { cats: { field: 'cat_refs', categoryPath: true } } });
    const out = m.map(row({ prod_ref: 'J-1', cats: ['Home > Decor', 'Home/Garden'] }));
    expect(out.drafts[0]!.links.categoryPaths).toEqual([['Home', 'Decor'], ['Home/Garden']]);
  });

  it('is refused on a field that is not a category link, with the profile path', () => {
    expect(() =>
      mapper({ entity: 'products', columns: { T: { field: 'prod_title', categoryPath: true } } }),
    ).toThrow(/\$\.columns\.T\.categoryPath applies to a category link/);
  });

  it('is accepted by the profile schema in both forms, and nothing else', () => {
    const ok = (categoryPath: unknown) =>
      parseProfile({ entity: 'products', columns: { C: { field: 'cat_refs', categoryPath, split: ',' } } });
    expect(ok(true).columns?.C).toMatchObject({ categoryPath: true });
    expect(ok({ separator: ' / ' }).columns?.C).toMatchObject({ categoryPath: { separator: ' / ' } });
    expect(() => ok('>')).toThrow();
    expect(() => ok({ sep: '>' })).toThrow();
  });
});

describe('a category sheet with categoryPath', () => {
  it('gives the row its ref, its parent and, without a title column, its title', () => {
    const m = mapper({ entity: 'categories', columns: { Path: { field: 'cat_ref', categoryPath: true } } });
    const out = m.map(row({ Path: 'Clothing > Hoodies > Zip' }));
    expect(out.issues).toEqual([]);
    const d = out.drafts[0]!;
    expect(d.ref).toBe('clothing/hoodies/zip');
    expect(d.fields).toEqual({ cat_ref: 'clothing/hoodies/zip', cat_title: 'Zip' });
    expect(d.links).toEqual({
      parentRef: 'clothing/hoodies',
      categoryPaths: [['Clothing', 'Hoodies', 'Zip']],
    });
    const root = m.map(row({ Path: 'Clothing' }, 3)).drafts[0]!;
    expect(root.links).toEqual({ categoryPaths: [['Clothing']] });
    expect(root.fields).toEqual({ cat_ref: 'clothing', cat_title: 'Clothing' });
  });

  it('a title column wins over the path, and cat_parent_ref can be a path', () => {
    const m = mapper({
      entity: 'categories',
      columns: {
        Name: 'cat_title',
        Code: 'cat_ref',
        Parent: { field: 'cat_parent_ref', categoryPath: true },
      },
    });
    const d = m.map(row({ Name: 'Zip hoodies', Code: 'Z1', Parent: 'Clothing/Hoodies' })).drafts[0]!;
    expect(d.fields).toEqual({ cat_title: 'Zip hoodies', cat_ref: 'Z1' });
    expect(d.links).toEqual({ parentRef: 'clothing/hoodies', categoryPaths: [['Clothing', 'Hoodies']] });
  });
});
