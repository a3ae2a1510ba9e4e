// A TenantModel shaped like the sandbox demo tenant, built by hand so mapping and validation tests run
// without a server. Integration tests use the real schemas from the sandbox instead.
import type { EntityModel, FieldModel, TenantModel } from '../../src/schema/model.js';

type FieldSpec = Partial<FieldModel> & { name: string };

function field(spec: FieldSpec): FieldModel {
  return {
    type: 'string',
    readOnly: false,
    immutable: false,
    multilingual: false,
    multiple: false,
    required: false,
    ...spec,
  };
}

function entity(
  name: string,
  kind: EntityModel['kind'],
  path: string,
  idField: string,
  refField: string,
  specs: FieldSpec[],
): EntityModel {
  const fields = specs.map(field);
  return { name, kind, path, idField, refField, fields, field: (n) => fields.find((f) => f.name === n) };
}

export function demoModel(): TenantModel {
  const entities = [
    entity('products', 'products', '/Products', 'prod_id', 'prod_ref', [
      { name: 'prod_id', type: 'integer', readOnly: true },
      { name: 'prod_ref', maxLength: 64, immutable: true, required: true },
      { name: 'prod_title', maxLength: 255, multilingual: true },
      { name: 'prod_description', maxLength: 4000, multilingual: true },
      { name: 'prod_tags', maxLength: 50, multiple: true },
      { name: 'prod_date', type: 'date-time' },
      { name: 'typ_id', type: 'integer', references: 'AttributeSets' },
      { name: 'cat_ids', type: 'integer', multiple: true, references: 'Categories' },
      { name: 'prod_images', asset: 'image', multiple: true, multilingual: true },
      { name: 'prod_brand', maxLength: 100 },
      { name: 'prod_weight', type: 'number' },
      { name: 'prod_pack_size', type: 'integer' },
      { name: 'prod_is_new', type: 'boolean' },
      { name: 'prod_season', enum: ['spring', 'summer', 'autumn', 'winter'] },
      { name: 'prod_labels', enum: ['organic', 'recycled', 'fair-trade', 'vegan'], multiple: true },
      { name: 'prod_manual', asset: 'file' },
      { name: 'prod_release_date', type: 'date' },
      { name: 'prod_created_at', type: 'date-time', readOnly: true },
    ]),
    entity('variants', 'variants', '/Variants', 'frmt_id', 'frmt_ref', [
      { name: 'frmt_id', type: 'integer', readOnly: true },
      { name: 'frmt_ref', maxLength: 64, immutable: true, required: true },
      { name: 'prod_id', type: 'integer', references: 'Products' },
      { name: 'prod_ref', readOnly: true },
      { name: 'frmt_stat', enum: ['active', 'inactive', 'discontinued'] },
      { name: 'frmt_price', type: 'number' },
      { name: 'frmt_stock', type: 'integer' },
      { name: 'frmt_ean', pattern: '^[0-9]{13}$' },
      { name: 'frmt_color', maxLength: 50, multilingual: true, languages: ['en', 'fr'] },
      { name: 'frmt_size', maxLength: 20 },
      { name: 'frmt_image', asset: 'image' },
    ]),
    entity('categories', 'categories', '/Categories', 'cat_id', 'cat_ref', [
      { name: 'cat_id', type: 'integer', readOnly: true },
      { name: 'cat_ref', maxLength: 64, immutable: true, required: true },
      { name: 'cat_title', maxLength: 255, multilingual: true, required: true },
      { name: 'cat_parent_id', type: 'integer', references: 'Categories' },
      { name: 'cat_parent_ref', readOnly: true },
      { name: 'cat_image', asset: 'image' },
    ]),
    {
      ...entity('custom:Store Locations', 'custom', "/CustomEntities('Store Locations')", 'ce_id', 'ce_ref', [
        { name: 'ce_id', type: 'integer', readOnly: true },
        { name: 'ce_ref', maxLength: 64, immutable: true, required: true },
        { name: 'ce_name', maxLength: 120, multilingual: true },
        { name: 'ce_opening', type: 'date-time' },
        { name: 'ce_active', type: 'boolean' },
      ]),
      denominator: 'Store Locations',
    },
  ];
  return {
    languages: ['en', 'fr', 'es'],
    baseLanguage: 'en',
    entities,
    entity: (name) => entities.find((e) => e.name === name),
    fetchedAt: '2026-01-01T00:00:00Z',
  };
}
