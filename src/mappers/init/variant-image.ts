// A variant's own image column in a feed of one row per variant (PrestaShop's combinations file, whose
// `Image URLs` belong to each combination). Placed on the product's images, it would make the rows of one
// product disagree, and the grouping fails every row that differs from the product's first. The sampled
// rows tell it: an image column whose cells differ between rows of the same product is the variant's.
import type { EntityModel } from '../../schema/model.js';
import type { ColumnRule } from '../profile-types.js';
import type { FeedSample } from './values.js';

export interface VariantImageMove {
  /** The image column that belongs to the variant. */
  column: string;
  /** Its rule on the variant's image field (`first` when its cells list several images). */
  rule: ColumnRule;
}

/**
 * The column placed on the product's images (`imageColumn`, its rule `imageRule`) goes to the variant's one
 * image field when two sampled rows of one product (same cell in `productColumn`) hold different images.
 * `free`: the variant's image fields no column or field rule has taken.
 */
export function variantImageColumn(
  variant: EntityModel,
  free: (field: string) => boolean,
  productColumn: string,
  imageColumn: string,
  imageRule: string | ColumnRule | null | undefined,
  sample: FeedSample,
): VariantImageMove | undefined {
  const field = variant.fields.find((f) => f.asset === 'image' && !f.multilingual && free(f.name));
  if (!field || imageRule === null || imageRule === undefined) return undefined;
  const rule: ColumnRule = typeof imageRule === 'string' ? { field: imageRule } : { ...imageRule };
  const split = rule.split === false ? undefined : (rule.split ?? '|');
  const byProduct = new Map<string, string>();
  let differs = false;
  let several = false;
  for (const row of sample.rows) {
    const product = row.get(productColumn);
    const images = row.get(imageColumn);
    // A blank cell is no disagreement: the grouping leaves the product's value as it is.
    if (product === undefined || images === undefined) continue;
    const items = split === undefined ? [images] : images.split(split).filter((i) => i.trim() !== '');
    if (items.length > 1) several = true;
    const known = byProduct.get(product);
    if (known === undefined) byProduct.set(product, images);
    else if (known !== images) differs = true;
  }
  if (!differs) return undefined;
  rule.field = field.name;
  // A list column keeps its separator: the first image of each cell is the variant's.
  if (several || typeof rule.split === 'string') rule.first = true;
  return { column: imageColumn, rule };
}
