// Categories from paths: a products feed names its categories as `Clothing > Hoodies`; the import
// creates the tree once (parents first, stable refs), links the products, and a re-import creates
// nothing. Existing categories are found by ref, then by title under their parent. `--plan` names the
// categories it would create and writes nothing. A category sheet works the same way. Through a service
// that cuts connections, each category is still created once.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../src/mappers/profile-types.js';
import { importWorkbook } from '../../src/runner/import/workbook.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import {
  byRef,
  connectTo,
  importWith,
  readAll,
  readCsv,
  resetStats,
  stats,
  tempDir,
  writeFeed,
} from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let dir: string;

beforeAll(() => {
  dir = tempDir('import-category-paths');
});

const productProfile: Profile = {
  entity: 'products',
  columns: {
    SKU: 'prod_ref',
    Name: 'prod_title',
    Categories: { field: 'cat_refs', categoryPath: true, split: ',' },
  },
};

async function categories(): Promise<Map<string, Record<string, unknown>>> {
  return byRef(fixture.sb, '/Categories', 'cat_ref');
}

describe('a products feed with category paths', () => {
  it('creates the tree once, parents first, and links the products', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'products.csv',
      [
        'SKU,Name,Categories',
        'H-1,Hoodie,"Clothing > Hoodies"',
        'H-2,Zip hoodie,"Clothing > Hoodies, Clothing > Sale"',
        'T-1,Tee,"Clothing > Tshirts"',
        'N-1,Nothing,',
      ].join('\n'),
    );
    await resetStats(sb);
    const summary = await importWith(sb, feed, { profile: productProfile });
    expect(summary.outcomes).toMatchObject({ created: 4, failed: 0 });
    expect(summary.categoriesCreated).toEqual({
      count: 4,
      paths: ['Clothing', 'Clothing > Hoodies', 'Clothing > Sale', 'Clothing > Tshirts'],
    });
    const tree = await categories();
    const clothing = tree.get('clothing')!;
    expect(clothing).toMatchObject({ cat_title: 'Clothing', cat_parent_id: null });
    for (const [ref, title] of [
      ['clothing/hoodies', 'Hoodies'],
      ['clothing/sale', 'Sale'],
      ['clothing/tshirts', 'Tshirts'],
    ] as const) {
      expect(tree.get(ref)).toMatchObject({ cat_title: title, cat_parent_id: clothing.cat_id });
    }
    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('H-2')!.cat_ids).toEqual([
      tree.get('clothing/hoodies')!.cat_id,
      tree.get('clothing/sale')!.cat_id,
    ]);
    expect(products.get('T-1')!.cat_ids).toEqual([tree.get('clothing/tshirts')!.cat_id]);
    // 4 category POSTs and 4 product POSTs.
    expect((await stats(sb)).byMethod.POST).toBe(8);

    // Again: nothing new, nothing written.
    await resetStats(sb);
    const again = await importWith(sb, feed, { profile: productProfile });
    expect(again.outcomes).toMatchObject({ unchanged: 4, created: 0 });
    expect(again.categoriesCreated.count).toBe(0);
    expect((await stats(sb)).byMethod.POST ?? 0).toBe(0);
    expect((await readAll(sb, '/Categories')).length).toBe(4);
  });

  it('finds existing categories by title under their parent, whatever their refs', async () => {
    const { sb } = fixture;
    const post = async (body: Record<string, unknown>) => {
      const res = await call(sb.catalogUrl, '/Categories', { method: 'POST', key: sb.apiKey, body });
      expect(res.status, res.text).toBe(201);
      return Number(/\((\d+)\)$/.exec(res.headers.get('location')!)![1]);
    };
    const men = await post({ cat_ref: 'M-1', cat_title: 'Men' });
    const winter = await post({ cat_ref: 'M-WW', cat_title: 'Winter Wear', cat_parent_id: men });
    // The same title elsewhere in the tree is not the one the path names.
    await post({ cat_ref: 'W-WW', cat_title: 'Winter Wear' });
    const profile: Profile = {
      entity: 'products',
      columns: {
        sku: 'prod_ref',
        name: 'prod_title',
        cats: { field: 'cat_refs', categoryPath: { separator: '/' } },
      },
    };
    const feed = await writeFeed(
      dir,
      'men.csv',
      'sku,name,cats\nMW-1,Parka,Men/Winter Wear\nMW-2,Scarf,Men/Winter Wear/Scarves\n',
    );
    const summary = await importWith(sb, feed, { profile });
    expect(summary.outcomes).toMatchObject({ created: 2, failed: 0 });
    expect(summary.categoriesCreated).toEqual({ count: 1, paths: ['Men > Winter Wear > Scarves'] });
    const tree = await categories();
    expect(tree.get('men/winter-wear/scarves')).toMatchObject({ cat_parent_id: winter });
    expect(tree.has('men')).toBe(false);
    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('MW-1')!.cat_ids).toEqual([winter]);
  });

  it('a later run looks the categories found by title up by their refs, with the paths (one lookup, not two)', async () => {
    const { sb } = fixture;
    const post = async (body: Record<string, unknown>) => {
      const res = await call(sb.catalogUrl, '/Categories', { method: 'POST', key: sb.apiKey, body });
      expect(res.status, res.text).toBe(201);
      return Number(/\((\d+)\)$/.exec(res.headers.get('location')!)![1]);
    };
    const yard = await post({ cat_ref: 'Y-1', cat_title: 'Yard' });
    const implementsId = await post({ cat_ref: 'Y-I', cat_title: 'Implements', cat_parent_id: yard });
    const own = tempDir('category-matches');
    const stateDir = join(own, '.catalog-io');
    const matchesFile = join(stateDir, 'state', 'yard-tenant', 'category-matches.json');
    const feed = await writeFeed(
      own,
      'yard.csv',
      'SKU,Name,Categories\nYI-1,Rake,Yard > Implements\nYI-2,Spade,Yard > Implements > Spades\n',
    );
    // Every row looked up (their categories with them), the import state kept.
    const run = async () => {
      await resetStats(sb);
      const summary = await importWith(sb, feed, {
        profile: productProfile,
        stateDir,
        tenant: 'yard-tenant',
        fullCompare: true,
      });
      return { summary, total: (await stats(sb)).total };
    };
    const first = await run();
    expect(first.summary.categoriesCreated.paths).toEqual(['Yard > Implements > Spades']);
    expect(JSON.parse(await readFile(matchesFile, 'utf8')).matches).toEqual({
      yard: 'Y-1',
      'yard/implements': 'Y-I',
    });
    const remembered = await run();
    expect(remembered.summary.outcomes).toMatchObject({ unchanged: 2 });
    // Without what the first run found, the run searches by title too: one request more.
    await rm(matchesFile);
    const searched = await run();
    expect(searched.summary.outcomes).toEqual(remembered.summary.outcomes);
    expect(searched.total - remembered.total).toBe(1);

    // Renamed on the tenant since: the match no longer holds; the path is matched by title again (none
    // now), as a run that remembered nothing would.
    const renamed = await call(sb.catalogUrl, `/Categories(${implementsId})`, {
      method: 'PATCH',
      key: sb.apiKey,
      body: { cat_title: 'Hand implements' },
    });
    expect(renamed.status).toBe(204);
    const after = await run();
    expect(after.summary.categoriesCreated.paths).toEqual(['Yard > Implements']);
    const tree = await categories();
    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('YI-1')!.cat_ids).toEqual([tree.get('yard/implements')!.cat_id]);
    expect(tree.get('yard/implements')).toMatchObject({ cat_title: 'Implements', cat_parent_id: yard });
    expect(JSON.parse(await readFile(matchesFile, 'utf8')).matches).toEqual({ yard: 'Y-1' });
  });

  it('--plan names the categories it would create, writes nothing, and agrees with the import', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'garden.csv',
      'SKU,Name,Categories\nG-1,Spade,Garden > Tools\nG-2,Rake,Garden > Tools\nG-3,Seeds,Garden\n',
    );
    await resetStats(sb);
    const planReport = `${dir}/garden.plan.csv`;
    const plan = await importWith(sb, feed, { profile: productProfile, plan: true, reportFile: planReport });
    expect(plan.categoriesCreated).toEqual({ count: 2, paths: ['Garden', 'Garden > Tools'] });
    expect(plan.outcomes).toMatchObject({ 'would-create': 3, failed: 0 });
    const s = await stats(sb);
    expect((s.byMethod.POST ?? 0) + (s.byMethod.PATCH ?? 0)).toBe(0);
    expect((await categories()).has('garden')).toBe(false);

    const report = `${dir}/garden.report.csv`;
    const run = await importWith(sb, feed, { profile: productProfile, reportFile: report });
    expect(run.categoriesCreated).toEqual(plan.categoriesCreated);
    const planned = (await readCsv(planReport)).map((l) => [
      l.ref,
      l.outcome.replace(/^would-(\w+)$/, '$1d'),
    ]);
    const done = (await readCsv(report)).map((l) => [l.ref, l.outcome]);
    expect(done).toEqual(planned);
    expect(done).toHaveLength(3);
  });

  it('a category the Catalog refuses fails the rows that need it, with the path', async () => {
    const { sb } = fixture;
    // A title past the field's 255 characters: the POST of that category is refused.
    const long = 'x'.repeat(300);
    const feed = await writeFeed(
      dir,
      'long.csv',
      `SKU,Name,Categories\nL-1,Long,Toys > ${long}\nL-2,Fine,Toys\n`,
    );
    const report = `${dir}/long.report.csv`;
    const summary = await importWith(sb, feed, { profile: productProfile, reportFile: report });
    expect(summary.outcomes).toMatchObject({ created: 1, failed: 1 });
    const failed = (await readCsv(report)).find((l) => l.outcome === 'failed')!;
    expect(failed.ref).toBe('L-1');
    expect(failed.message).toMatch(
      /^category 'Toys > x+' could not be created: Catalog API refused the POST \(400\)/,
    );
    expect(failed).toMatchObject({ field: 'cat_ref', column: 'Categories', value: `Toys > ${long}` });
    expect(summary.topErrors[0]!.message).toMatch(/^column "Categories": category could not be created: /);

    // Batches after the refusal do not look that category up again: their rows fail at once.
    const gets = async (name: string, rows: string[]) => {
      const file = await writeFeed(dir, name, `SKU,Name,Categories\n${rows.join('\n')}\n`);
      await resetStats(sb);
      const run = await importWith(sb, file, { profile: productProfile, batchSize: 1 });
      return { run, gets: (await stats(sb)).byMethod.GET ?? 0 };
    };
    const once = await gets('long-once.csv', [`N-1,Long,Toys > ${long}`, 'N-2,Fine,Toys']);
    const again = await gets('long-again.csv', [
      `M-1,Long,Toys > ${long}`,
      'M-2,Fine,Toys',
      `M-3,Long too,Toys > ${long}`,
      `M-4,Long three,Toys > ${long}`,
    ]);
    expect(once.run.outcomes).toMatchObject({ created: 1, failed: 1 });
    expect(again.run.outcomes).toMatchObject({ created: 1, failed: 3 });
    expect(again.gets).toBe(once.gets);
  });
});

describe('a category sheet of paths', () => {
  it('creates the missing parents, then the rows; a re-import changes nothing', async () => {
    const { sb } = fixture;
    const profile: Profile = {
      entity: 'categories',
      columns: { Path: { field: 'cat_ref', categoryPath: { separator: ' > ' } } },
    };
    const feed = await writeFeed(
      dir,
      'tree.csv',
      ['Path', 'Books', 'Books > Fiction', 'Music > Vinyl > Jazz', 'Music > Vinyl'].join('\n'),
    );
    const summary = await importWith(sb, feed, { profile, entity: 'categories' });
    expect(summary.outcomes).toMatchObject({ created: 4, failed: 0 });
    // Only "Music" was in no row: created for its path.
    expect(summary.categoriesCreated).toEqual({ count: 1, paths: ['Music'] });
    const tree = await categories();
    expect(tree.get('music/vinyl/jazz')).toMatchObject({
      cat_title: 'Jazz',
      cat_parent_id: tree.get('music/vinyl')!.cat_id,
    });
    expect(tree.get('music/vinyl')).toMatchObject({ cat_parent_id: tree.get('music')!.cat_id });
    expect(tree.get('books/fiction')).toMatchObject({
      cat_title: 'Fiction',
      cat_parent_id: tree.get('books')!.cat_id,
    });

    const again = await importWith(sb, feed, { profile, entity: 'categories' });
    expect(again.outcomes).toMatchObject({ unchanged: 4, created: 0 });
    expect(again.categoriesCreated.count).toBe(0);
  });
});

describe('import failures name the column and value, and are counted by kind and column', () => {
  it('links to missing categories: one problem line for all the rows, with the first', async () => {
    const { sb } = fixture;
    const lines = ['SKU,Name,Cat'];
    for (let i = 1; i <= 11; i++)
      lines.push(`GP-${i},Item ${i},${i % 2 ? 'Men/Winter Wear' : `nowhere-${i}`}`);
    lines.push('GP-12,Fine,');
    const feed = await writeFeed(dir, 'grouped.csv', lines.join('\n'));
    const profile: Profile = {
      entity: 'products',
      columns: { SKU: 'prod_ref', Name: 'prod_title', Cat: { field: 'cat_refs', split: false } },
    };
    const report = `${dir}/grouped.report.csv`;
    const summary = await importWith(sb, feed, { profile, reportFile: report });
    expect(summary.outcomes).toMatchObject({ failed: 11, created: 1 });
    expect(summary.topErrors).toEqual([
      {
        message: 'column "Cat": category is neither in the file nor in the tenant',
        count: 11,
        first: 'line 2',
      },
    ]);
    const first = (await readCsv(report))[0]!;
    expect(first).toMatchObject({
      outcome: 'failed',
      field: 'cat_ids',
      column: 'Cat',
      value: 'Men/Winter Wear',
      message: `column "Cat": category 'Men/Winter Wear' is neither in the file nor in the tenant`,
    });
  });
});

describe('a workbook with a category sheet of paths', () => {
  it('creates the tree from the categories sheet; the products sheet links to it by the derived refs', async () => {
    const { sb } = fixture;
    const book = new ExcelJS.Workbook();
    const products = book.addWorksheet('products');
    products.addRows([
      ['prod_ref', 'prod_title', 'cat_refs'],
      ['WB-1', 'Lamp', 'home/lighting'],
      // "Home" is in no row of the category sheet: it is created for the paths below it.
      ['WB-2', 'Rug', 'home'],
    ]);
    const cats = book.addWorksheet('Taxonomy');
    cats.addRows([
      ['Path', 'Note'],
      ['Home > Lighting', 'lamps'],
      ['Home > Garden > Pots', 'clay'],
    ]);
    const file = `${dir}/book.xlsx`;
    await book.xlsx.writeFile(file);
    const profile: Profile = {
      entity: 'categories',
      sheets: { Taxonomy: 'categories' },
      columns: { Path: { field: 'cat_ref', categoryPath: true }, Note: null },
    };
    const connection = await connectTo(sb);
    try {
      const options = {
        source: file,
        profile,
        model: await connection.tenant.model(),
        catalog: connection.catalog,
        dam: () => connection.dam,
      };
      // The plan carries the categories it would create to the products sheet, as the import does.
      const plan = await importWorkbook({ ...options, plan: true }, ['products', 'Taxonomy']);
      expect(plan.outcomes).toMatchObject({ 'would-create': 4, failed: 0, invalid: 0 });
      expect(plan.categoriesCreated).toEqual({ count: 2, paths: ['Home', 'Home > Garden'] });
      expect((await categories()).has('home')).toBe(false);

      const summary = await importWorkbook(options, ['products', 'Taxonomy']);
      expect(summary.outcomes).toMatchObject({ created: 4, failed: 0, invalid: 0 });
      expect(summary.categoriesCreated).toEqual({ count: 2, paths: ['Home', 'Home > Garden'] });
      const tree = await categories();
      expect(tree.get('home/garden/pots')).toMatchObject({
        cat_title: 'Pots',
        cat_parent_id: tree.get('home/garden')!.cat_id,
      });
      const lamp = (await byRef(sb, '/Products', 'prod_ref')).get('WB-1')!;
      expect(lamp.cat_ids).toEqual([tree.get('home/lighting')!.cat_id]);

      const again = await importWorkbook(options, ['products', 'Taxonomy']);
      expect(again.outcomes).toMatchObject({ unchanged: 4, created: 0 });
      expect((await byRef(sb, '/Products', 'prod_ref')).get('WB-2')!.cat_ids).toEqual([
        tree.get('home')!.cat_id,
      ]);
      expect(again.categoriesCreated.count).toBe(0);
    } finally {
      await connection.close();
    }
  });
});

describe('category paths through a service that cuts connections', () => {
  // A POST whose outcome is unknown is looked up by ref before it is sent again.
  const faulty = useSandbox({ seed: 'empty', resetRate: 0.2, randomSeed: 11 });

  it('creates each category once, however many POSTs lost their answer', async () => {
    const rows = ['SKU,Name,Categories'];
    for (let i = 1; i <= 60; i++) rows.push(`CF-${i},Item ${i},"Dept ${i % 6} > Shelf ${i}"`);
    const feed = await writeFeed(dir, 'faulty.csv', rows.join('\n'));
    const summary = await importWith(faulty.sb, feed, { profile: productProfile, concurrency: 4 });
    expect(summary.outcomes).toMatchObject({ created: 60, failed: 0 });
    // The faults were there: some requests were cut and tried again.
    expect(summary.requests.retries).toBeGreaterThan(0);
    const categories = await readAll(faulty.sb, '/Categories');
    const refs = categories.map((c) => String(c.cat_ref));
    expect(refs).toHaveLength(66);
    expect(new Set(refs).size).toBe(66);
    // Every product links to its shelf.
    const idOf = new Map(categories.map((c) => [String(c.cat_ref), c.cat_id]));
    const products = await readAll(faulty.sb, '/Products');
    expect(products).toHaveLength(60);
    for (const p of products) {
      const i = Number(String(p.prod_ref).slice(3));
      expect(p.cat_ids).toEqual([idOf.get(`dept-${i % 6}/shelf-${i}`)]);
    }
  });
});
