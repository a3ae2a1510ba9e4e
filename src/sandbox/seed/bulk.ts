// Large tenants for tests and benchmarks, built in memory without HTTP or validation: n products
// (refs BULK-0000001...) with multilingual titles, tags and category links, optionally variants.
import type { CatalogStore } from '../catalog/store.js';

export interface BulkOptions {
  /** Variants per product. Default 0. */
  variantsPerProduct?: number;
  /** Reference prefix. Default `BULK-`. */
  prefix?: string;
}

export function bulkProducts(
  store: CatalogStore,
  n: number,
  now: Date,
  options: BulkOptions = {},
): { firstId: number; lastId: number } {
  const prefix = options.prefix ?? 'BULK-';
  const perProduct = options.variantsPerProduct ?? 0;
  const categoryIds = [...store.categories.table.allIds()];
  const products = store.products.table;
  const variants = store.variants.table;
  const at = now.toISOString();
  const firstId = products.nextId;
  for (let i = 0; i < n; i++) {
    const id = products.allocateId();
    const ref = `${prefix}${String(id).padStart(7, '0')}`;
    products.insert({
      prod_id: id,
      prod_ref: ref,
      prod_title: { en: `Product ${id}`, fr: `Produit ${id}`, es: `Producto ${id}` },
      prod_description: { en: `Bulk product number ${id}.` },
      prod_tags: ['bulk', `group-${id % 10}`],
      prod_date: at,
      typ_id: null,
      cat_ids: categoryIds.length ? [categoryIds[id % categoryIds.length]!] : [],
      prod_images: {},
      prod_brand: `Brand ${id % 50}`,
      prod_weight: (id % 100) / 10,
      prod_pack_size: 1 + (id % 6),
      prod_is_new: id % 2 === 0,
      prod_season: null,
      prod_labels: [],
      prod_manual: null,
      prod_release_date: null,
      prod_launch_at: null,
      prod_created_at: at,
      prod_modified_at: at,
    });
    for (let v = 0; v < perProduct; v++) {
      const vid = variants.allocateId();
      variants.insert({
        frmt_id: vid,
        frmt_ref: `${ref}-${v + 1}`,
        prod_id: id,
        prod_ref: null,
        frmt_stat: 'active',
        frmt_price: 10 + (vid % 90),
        frmt_stock: vid % 40,
        frmt_ean: null,
        frmt_color: { en: 'Black', fr: 'Noir' },
        frmt_size: 'M',
        frmt_image: null,
        frmt_created_at: at,
        frmt_modified_at: at,
      });
    }
  }
  return { firstId, lastId: products.nextId - 1 };
}
