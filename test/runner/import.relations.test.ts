// Links between records: products and variants (one file or two), category trees in any order
// across batches, missing parents and cycles, custom entities, and --delete-variants.
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { byRef, importWith, readAll, readCsv, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let dir: string;

beforeAll(() => {
  dir = tempDir('import-relations');
});

describe('products and variants', () => {
  it('one row per variant: products are written before their variants, linked by id', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'one-file.csv',
      [
        'prod_ref,prod_title,frmt_ref,frmt_price,frmt_size',
        'V-1,Tee,V-1-S,9.9,S',
        'V-1,Tee,V-1-M,9.9,M',
        'V-2,Cap,V-2-U,5,U',
      ].join('\n'),
    );
    const report = `${dir}/one-file.report.csv`;
    const summary = await importWith(sb, feed, {
      profile: { entity: 'products', variants: true },
      reportFile: report,
    });
    expect(summary.outcomes.failed + summary.outcomes.invalid).toBe(0);
    expect(summary.rows).toBe(3);
    const products = await byRef(sb, '/Products', 'prod_ref');
    const variants = await byRef(sb, '/Variants', 'frmt_ref');
    expect([...products.keys()].filter((r) => r.startsWith('V-')).sort()).toEqual(['V-1', 'V-2']);
    expect(variants.get('V-1-S')!.prod_id).toBe(products.get('V-1')!.prod_id);
    expect(variants.get('V-1-M')!.prod_id).toBe(products.get('V-1')!.prod_id);
    expect(variants.get('V-2-U')!.prod_id).toBe(products.get('V-2')!.prod_id);
    expect(variants.get('V-1-M')!.frmt_size).toBe('M');

    // The same file again: nothing changes.
    const again = await importWith(sb, feed, { profile: { entity: 'products', variants: true } });
    expect(again.outcomes.unchanged).toBe(3);
  });

  it('two files: products first, then variants naming their product by prod_ref', async () => {
    const { sb } = fixture;
    const products = await writeFeed(dir, 'p.csv', 'prod_ref,prod_title\nW-1,Sock\nW-2,Scarf\n');
    const variants = await writeFeed(
      dir,
      'v.csv',
      'frmt_ref,prod_ref,frmt_price\nW-1-A,W-1,2\nW-2-A,W-2,12\nW-3-A,W-3,1\n',
    );
    expect((await importWith(sb, products)).outcomes.created).toBe(2);
    const report = `${dir}/v.report.csv`;
    const summary = await importWith(sb, variants, { entity: 'variants', reportFile: report });
    expect(summary.outcomes).toMatchObject({ created: 2, failed: 1 });
    const lines = await readCsv(report);
    expect(lines[2]).toMatchObject({
      outcome: 'failed',
      field: 'prod_id',
      column: 'prod_ref',
      value: 'W-3',
      message: `column "prod_ref": product 'W-3' is neither in the file nor in the tenant`,
    });
    expect(summary.topErrors).toEqual([
      {
        message: 'column "prod_ref": product is neither in the file nor in the tenant',
        count: 1,
        first: 'line 4',
      },
    ]);
    const byProduct = await byRef(sb, '/Products', 'prod_ref');
    const written = await byRef(sb, '/Variants', 'frmt_ref');
    expect(written.get('W-2-A')!.prod_id).toBe(byProduct.get('W-2')!.prod_id);
    expect(written.has('W-3-A')).toBe(false);
  });

  it('DELETE rows for variants and their product in one file: the variants go first', async () => {
    const { sb } = fixture;
    const base = await writeFeed(
      dir,
      'dboth-base.csv',
      'prod_ref,prod_title,frmt_ref,frmt_price\nE-1,One,E-1-A,1\nE-1,One,E-1-B,1\n',
    );
    await importWith(sb, base, { profile: { entity: 'products', variants: true } });
    const variantIds = [...(await byRef(sb, '/Variants', 'frmt_ref')).entries()]
      .filter(([ref]) => ref.startsWith('E-1-'))
      .map(([, v]) => v.frmt_id);
    // The product row comes first in the file; the variants are still deleted before it.
    const del = await writeFeed(
      dir,
      'dboth.csv',
      '_command,prod_ref,frmt_ref\nDELETE,E-1,\nDELETE,E-1,E-1-A\nDELETE,E-1,E-1-B\n',
    );
    const summary = await importWith(sb, del, { profile: { entity: 'products', variants: true } });
    expect(summary.outcomes.deleted).toBe(3);
    expect(summary.outcomes.failed).toBe(0);
    expect((await byRef(sb, '/Products', 'prod_ref')).has('E-1')).toBe(false);
    const variants = await byRef(sb, '/Variants', 'frmt_ref');
    expect(variants.has('E-1-A') || variants.has('E-1-B')).toBe(false);
    // Had the product gone first, its variants would have been modified (left without a product)
    // before their own deletion: the changelog would show that change by the system.
    for (const id of variantIds) {
      const log = await readAll(sb, `/Variants(${id})/Changelog`);
      expect(log.filter((e) => e.author_type === 'system')).toEqual([]);
    }
  });

  it('--delete-variants deletes a product with its variants; without it the variants stay', async () => {
    const { sb } = fixture;
    const base = await writeFeed(
      dir,
      'dv-base.csv',
      'prod_ref,prod_title,frmt_ref,frmt_price\nD-1,One,D-1-A,1\nD-1,One,D-1-B,1\nD-2,Two,D-2-A,2\n',
    );
    await importWith(sb, base, { profile: { entity: 'products', variants: true } });
    const del = await writeFeed(dir, 'dv.csv', '_command,prod_ref\nDELETE,D-1\n');
    const summary = await importWith(sb, del, { deleteVariants: true, reportFile: `${dir}/dv.report.csv` });
    expect(summary.outcomes.deleted).toBe(1);
    expect((await readCsv(`${dir}/dv.report.csv`))[0]!.message).toBe('2 variant(s) deleted with it');
    let variants = await byRef(sb, '/Variants', 'frmt_ref');
    expect(variants.has('D-1-A')).toBe(false);
    expect(variants.has('D-1-B')).toBe(false);
    expect(variants.has('D-2-A')).toBe(true);

    const del2 = await writeFeed(dir, 'dv2.csv', '_command,prod_ref\nDELETE,D-2\n');
    const kept = await importWith(sb, del2, { reportFile: `${dir}/dv2.report.csv` });
    expect(kept.outcomes.deleted).toBe(1);
    expect((await readCsv(`${dir}/dv2.report.csv`))[0]!.message).toMatch(/--delete-variants/);
    variants = await byRef(sb, '/Variants', 'frmt_ref');
    expect(variants.has('D-2-A')).toBe(true);
  });
});

describe('category trees', () => {
  it('children before parents, across batches of 2: every category ends under its parent', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'tree.csv',
      [
        'cat_ref,cat_title,cat_parent_ref',
        'T-shoes-run,Running,T-shoes',
        'T-shoes-trail,Trail,T-shoes-run',
        'T-shoes,Shoes,T-root',
        'T-hats,Hats,T-root',
        'T-root,All,',
      ].join('\n'),
    );
    const report = `${dir}/tree.report.csv`;
    const summary = await importWith(sb, feed, { entity: 'categories', batchSize: 2, reportFile: report });
    expect(summary.outcomes.created).toBe(5);
    expect(summary.outcomes.failed).toBe(0);
    const cats = await byRef(sb, '/Categories', 'cat_ref');
    const id = (ref: string) => cats.get(ref)!.cat_id;
    expect(cats.get('T-root')!.cat_parent_id ?? null).toBeNull();
    expect(cats.get('T-shoes')!.cat_parent_id).toBe(id('T-root'));
    expect(cats.get('T-hats')!.cat_parent_id).toBe(id('T-root'));
    expect(cats.get('T-shoes-run')!.cat_parent_id).toBe(id('T-shoes'));
    expect(cats.get('T-shoes-trail')!.cat_parent_id).toBe(id('T-shoes-run'));
    // One line per row, each with its id.
    const lines = await readCsv(report);
    expect(lines).toHaveLength(5);
    expect(lines.every((l) => l.outcome === 'created' && l.id !== '')).toBe(true);

    const again = await importWith(sb, feed, { entity: 'categories', batchSize: 2 });
    expect(again.outcomes.unchanged).toBe(5);
  });

  it('a missing parent and a cycle are row errors that name them', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'bad-tree.csv',
      [
        'cat_ref,cat_title,cat_parent_ref',
        'B-orphan,Orphan,B-nowhere',
        'B-a,A,B-b',
        'B-b,B,B-c',
        'B-c,C,B-a',
        'B-fine,Fine,',
      ].join('\n'),
    );
    const report = `${dir}/bad-tree.report.csv`;
    const summary = await importWith(sb, feed, { entity: 'categories', batchSize: 2, reportFile: report });
    expect(summary.outcomes).toMatchObject({ created: 1, failed: 4 });
    const lines = new Map((await readCsv(report)).map((l) => [l.ref, l]));
    expect(lines.get('B-orphan')!.message).toBe(
      "the parent category 'B-nowhere' is neither in the file nor in the tenant (cat_ref)",
    );
    expect(lines.get('B-a')!.message).toBe(
      "the parent category 'B-b' is part of a cycle of parents in the file: B-a -> B-b -> B-c -> B-a",
    );
    expect(lines.get('B-b')!.message).toMatch(
      /part of a cycle of parents in the file: B-b -> B-c -> B-a -> B-b/,
    );
    expect(lines.get('B-fine')!.outcome).toBe('created');
    const cats = await byRef(sb, '/Categories', 'cat_ref');
    expect(['B-orphan', 'B-a', 'B-b', 'B-c'].some((r) => cats.has(r))).toBe(false);
  });

  it('products link to categories by cat_refs', async () => {
    const { sb } = fixture;
    await importWith(sb, await writeFeed(dir, 'cats.csv', 'cat_ref,cat_title\nK-1,One\nK-2,Two\n'), {
      entity: 'categories',
    });
    const feed = await writeFeed(dir, 'prod-cats.csv', 'prod_ref,prod_title,cat_refs\nK-P,Thing,K-1|K-2\n');
    expect((await importWith(sb, feed)).outcomes.created).toBe(1);
    const cats = await byRef(sb, '/Categories', 'cat_ref');
    const product = (await byRef(sb, '/Products', 'prod_ref')).get('K-P')!;
    expect([...(product.cat_ids as number[])].sort()).toEqual(
      [cats.get('K-1')!.cat_id, cats.get('K-2')!.cat_id].sort(),
    );
    expect((await importWith(sb, feed)).outcomes.unchanged).toBe(1);
  });
});

describe('custom entities', () => {
  it('a denominator with a space: created, updated, read back', async () => {
    const { sb } = fixture;
    const entity = 'custom:Store Locations';
    const feed = await writeFeed(
      dir,
      'stores.csv',
      "ce_ref,ce_name,ce_name_fr,ce_city,ce_active\nS-1,Main store,Magasin principal,Lyon,true\nS-2,Outlet,Magasin d'usine,Paris,false\n",
    );
    const summary = await importWith(sb, feed, { entity });
    expect(summary.outcomes.created).toBe(2);
    const path = `/CustomEntities('Store%20Locations')`;
    const stores = await byRef(sb, path, 'ce_ref');
    expect(stores.get('S-1')!.ce_city).toBe('Lyon');
    expect((await byRef(sb, path, 'ce_ref', 'fr')).get('S-2')!.ce_name).toBe("Magasin d'usine");

    const changed = await writeFeed(
      dir,
      'stores2.csv',
      "ce_ref,ce_name,ce_name_fr,ce_city,ce_active\nS-1,Main store,Magasin principal,Lyon,true\nS-2,Outlet,Magasin d'usine,Lille,false\n",
    );
    const again = await importWith(sb, changed, { entity });
    expect(again.outcomes).toMatchObject({ unchanged: 1, updated: 1 });
    expect((await readAll(sb, path)).find((r) => r.ce_ref === 'S-2')!.ce_city).toBe('Lille');
  });
});
