// How each resource is read: its OData query schema, field accessor and presentation (with
// `$select`, `$expand` and the request's culture). Built once per resource from its FieldDefs.
import type { ODataType, QueryField, QuerySchema } from '../odata/types.js';
import { ATTRIBUTE_SET_FIELDS } from './metadata.js';
import type { FieldDef, StoredRecord } from './model.js';
import type { CollectionView } from './query.js';
import type { CatalogStore, Resource } from './store.js';

export function queryField(f: FieldDef): QueryField {
  let type: ODataType = f.type;
  if (f.multiple) type = f.type === 'integer' ? 'integer[]' : 'string[]';
  return { name: f.name, type, multilingual: f.multilingual, sortable: !f.multiple };
}

export function querySchema(fields: FieldDef[], languages: readonly string[]): QuerySchema {
  return { fields: new Map(fields.map((f) => [f.name, queryField(f)])), languages };
}

/** Filter/order value of a field: dates as Date so the engine compares instants, not text. */
function comparable(field: FieldDef, value: unknown): unknown {
  if ((field.type === 'date-time' || field.type === 'date') && typeof value === 'string') {
    return new Date(field.type === 'date' ? `${value}T00:00:00Z` : value);
  }
  return value;
}

export function resourceView(store: CatalogStore, resource: Resource): CollectionView {
  const { def, table } = resource;
  const byName = new Map(def.fields.map((f) => [f.name, f]));
  return {
    schema: querySchema(def.fields, store.languages),
    table,
    key: def.key,
    expandable: def.expandable,
    read(record, field, culture) {
      const f = byName.get(field);
      return f ? comparable(f, store.read(resource, record, f, culture)) : undefined;
    },
    present(record, culture, select, expand) {
      const out: Record<string, unknown> = {};
      for (const f of def.fields) {
        if (select && !select.includes(f.name)) continue;
        out[f.name] = store.read(resource, record, f, culture);
      }
      const id = record[def.key] as number;
      for (const name of expand) {
        const productIds =
          resource === store.categories ? store.products.table.idsWhere('cat_ids', [id]) : [id];
        if (name === 'Products') out.Products = presentAll(store, store.products, productIds, culture);
        if (name === 'Variants')
          out.Variants = presentAll(store, store.variants, store.variantIdsOfProducts(productIds), culture);
      }
      return out;
    },
  };
}

function presentAll(
  store: CatalogStore,
  resource: Resource,
  ids: readonly number[],
  culture: string,
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const id of ids) {
    const record = resource.table.get(id);
    if (!record) continue;
    const item: Record<string, unknown> = {};
    for (const f of resource.def.fields) item[f.name] = store.read(resource, record, f, culture);
    out.push(item);
  }
  return out;
}

/** The legacy (OData-style) attribute set list: `typ_id, typ_title, typ_stat, typ_default`, expandable Products. */
export function attributeSetView(store: CatalogStore): CollectionView {
  const byName = new Map(ATTRIBUTE_SET_FIELDS.map((f) => [f.name, f]));
  return {
    schema: { ...querySchema(ATTRIBUTE_SET_FIELDS, store.languages), allowOffsets: true },
    table: store.attributeSets,
    key: 'typ_id',
    expandable: ['Products'],
    smallPages: 1,
    read(record, field) {
      const f = byName.get(field);
      return f ? comparable(f, record[field] ?? null) : undefined;
    },
    present(record: StoredRecord, culture, select, expand) {
      const out: Record<string, unknown> = {};
      for (const f of ATTRIBUTE_SET_FIELDS)
        if (!select || select.includes(f.name)) out[f.name] = record[f.name] ?? null;
      if (expand.includes('Products')) {
        out.Products = presentAll(
          store,
          store.products,
          store.productIdsOfSet(record.typ_id as number),
          culture,
        );
      }
      return out;
    },
  };
}
