// The sandbox tenant's schema: the same for the demo and the empty tenant. It has a field of every
// kind the client must handle (multilingual, multi-value, image and file, enum, date, links).
import type { CustomEntityDef, FieldDef, ResourceDef, TenantSchema } from '../catalog/model.js';

export const TENANT_LANGUAGES = ['en', 'fr', 'es'];

const productFields: FieldDef[] = [
  { name: 'prod_id', type: 'integer', readOnly: true, description: 'Product identifier' },
  {
    name: 'prod_ref',
    type: 'string',
    maxLength: 64,
    immutable: true,
    required: true,
    description: 'Product reference',
  },
  { name: 'prod_title', type: 'string', maxLength: 255, multilingual: true, description: 'Title' },
  {
    name: 'prod_description',
    type: 'string',
    maxLength: 4000,
    multilingual: true,
    description: 'Description',
  },
  { name: 'prod_tags', type: 'string', maxLength: 50, multiple: true, description: 'Tags' },
  { name: 'prod_date', type: 'date-time', description: 'Publication date (UTC)' },
  {
    name: 'typ_id',
    type: 'integer',
    references: 'AttributeSets',
    description: 'Attribute set; null for the default set',
  },
  { name: 'cat_ids', type: 'integer', multiple: true, references: 'Categories', description: 'Categories' },
  {
    name: 'prod_images',
    type: 'string',
    asset: 'image',
    multiple: true,
    multilingual: true,
    description: 'Images',
  },
  { name: 'prod_brand', type: 'string', maxLength: 100, description: 'Brand' },
  { name: 'prod_weight', type: 'number', description: 'Weight in kg' },
  { name: 'prod_pack_size', type: 'integer', description: 'Items per pack' },
  { name: 'prod_is_new', type: 'boolean', description: 'New in the collection' },
  {
    name: 'prod_season',
    type: 'string',
    enum: ['spring', 'summer', 'autumn', 'winter'],
    description: 'Season',
  },
  {
    name: 'prod_labels',
    type: 'string',
    enum: ['organic', 'recycled', 'fair-trade', 'vegan'],
    multiple: true,
    description: 'Labels',
  },
  { name: 'prod_manual', type: 'string', asset: 'file', description: 'Care guide or manual' },
  { name: 'prod_release_date', type: 'date', description: 'Release day' },
  { name: 'prod_launch_at', type: 'date-time', description: 'Launch moment (UTC)' },
  { name: 'prod_created_at', type: 'date-time', readOnly: true, description: 'Creation date' },
  { name: 'prod_modified_at', type: 'date-time', readOnly: true, description: 'Last modification date' },
];

const variantFields: FieldDef[] = [
  { name: 'frmt_id', type: 'integer', readOnly: true, description: 'Variant identifier' },
  {
    name: 'frmt_ref',
    type: 'string',
    maxLength: 64,
    immutable: true,
    required: true,
    description: 'Variant reference',
  },
  { name: 'prod_id', type: 'integer', references: 'Products', description: 'Owning product' },
  {
    name: 'prod_ref',
    type: 'string',
    readOnly: true,
    description: 'Reference of the owning product; empty when none',
  },
  { name: 'frmt_stat', type: 'string', enum: ['active', 'inactive', 'discontinued'], description: 'Status' },
  { name: 'frmt_price', type: 'number', description: 'Price' },
  { name: 'frmt_stock', type: 'integer', description: 'Stock' },
  { name: 'frmt_ean', type: 'string', pattern: '^[0-9]{13}$', description: 'EAN-13 barcode' },
  // Only two of the tenant's three languages: writing `es` is "a language the field does not have".
  {
    name: 'frmt_color',
    type: 'string',
    maxLength: 50,
    multilingual: true,
    languages: ['en', 'fr'],
    description: 'Colour',
  },
  { name: 'frmt_size', type: 'string', maxLength: 20, description: 'Size' },
  { name: 'frmt_image', type: 'string', asset: 'image', description: 'Image' },
  { name: 'frmt_created_at', type: 'date-time', readOnly: true, description: 'Creation date' },
  { name: 'frmt_modified_at', type: 'date-time', readOnly: true, description: 'Last modification date' },
];

const categoryFields: FieldDef[] = [
  { name: 'cat_id', type: 'integer', readOnly: true, description: 'Category identifier' },
  {
    name: 'cat_ref',
    type: 'string',
    maxLength: 64,
    immutable: true,
    required: true,
    description: 'Category reference',
  },
  { name: 'cat_title', type: 'string', maxLength: 255, multilingual: true, description: 'Title' },
  {
    name: 'cat_parent_id',
    type: 'integer',
    references: 'Categories',
    description: 'Parent category; null at the root',
  },
  {
    name: 'cat_parent_ref',
    type: 'string',
    readOnly: true,
    description: 'Reference of the parent (read only)',
  },
  { name: 'cat_image', type: 'string', asset: 'image', description: 'Image' },
  { name: 'cat_created_at', type: 'date-time', readOnly: true, description: 'Creation date' },
  { name: 'cat_modified_at', type: 'date-time', readOnly: true, description: 'Last modification date' },
];

function customEntity(denominator: string, fields: FieldDef[]): CustomEntityDef {
  return {
    kind: 'CustomEntity',
    title: denominator,
    denominator,
    collection: denominator,
    key: 'ce_id',
    ref: 'ce_ref',
    createdField: 'ce_created_at',
    modifiedField: 'ce_modified_at',
    fields: [
      { name: 'ce_id', type: 'integer', readOnly: true, description: 'Item identifier' },
      {
        name: 'ce_ref',
        type: 'string',
        maxLength: 64,
        immutable: true,
        required: true,
        description: 'Item reference',
      },
      ...fields,
      { name: 'ce_created_at', type: 'date-time', readOnly: true, description: 'Creation date' },
      { name: 'ce_modified_at', type: 'date-time', readOnly: true, description: 'Last modification date' },
    ],
    expandable: [],
  };
}

export function tenantSchema(): TenantSchema {
  const product: ResourceDef = {
    kind: 'Product',
    title: 'Product',
    collection: 'Products',
    key: 'prod_id',
    ref: 'prod_ref',
    createdField: 'prod_created_at',
    modifiedField: 'prod_modified_at',
    fields: productFields,
    expandable: ['Variants'],
  };
  const variant: ResourceDef = {
    kind: 'Variant',
    title: 'Variant',
    collection: 'Variants',
    key: 'frmt_id',
    ref: 'frmt_ref',
    createdField: 'frmt_created_at',
    modifiedField: 'frmt_modified_at',
    fields: variantFields,
    expandable: [],
  };
  const category: ResourceDef = {
    kind: 'Category',
    title: 'Category',
    collection: 'Categories',
    key: 'cat_id',
    ref: 'cat_ref',
    createdField: 'cat_created_at',
    modifiedField: 'cat_modified_at',
    fields: categoryFields,
    expandable: ['Products', 'Variants'],
  };
  return {
    languages: [...TENANT_LANGUAGES],
    product,
    variant,
    category,
    customEntities: [
      customEntity('Store Locations', [
        { name: 'ce_name', type: 'string', maxLength: 120, multilingual: true, description: 'Store name' },
        { name: 'ce_city', type: 'string', maxLength: 80, description: 'City' },
        { name: 'ce_opening', type: 'date-time', description: 'Opening date (UTC)' },
        { name: 'ce_active', type: 'boolean', description: 'Open to the public' },
        { name: 'ce_photo', type: 'string', asset: 'image', description: 'Photo' },
      ]),
      // A second type without a form layout (its layout endpoints answer 404).
      customEntity('Suppliers', [
        { name: 'ce_name', type: 'string', maxLength: 120, description: 'Supplier name' },
        {
          name: 'ce_country',
          type: 'string',
          maxLength: 2,
          pattern: '^[A-Z]{2}$',
          description: 'ISO country code',
        },
      ]),
    ],
    pointOfSale: {
      title: 'PointOfSale',
      key: 'pos_id',
      ref: 'pos_ref',
      fields: [
        { name: 'pos_id', type: 'integer', readOnly: true, description: 'Point of sale identifier' },
        {
          name: 'pos_ref',
          type: 'string',
          maxLength: 64,
          immutable: true,
          required: true,
          description: 'Reference',
        },
        { name: 'pos_name', type: 'string', maxLength: 120, multilingual: true, description: 'Name' },
        { name: 'pos_city', type: 'string', maxLength: 80, description: 'City' },
      ],
    },
  };
}
