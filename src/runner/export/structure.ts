// The tenant's structure as two tables next to the data: `attribute-sets` (the v2 sets: name, default,
// identifier, and their product and variant form layouts as JSON text) and `layouts` (one row per
// layout: `categories` or `custom:<denominator>`, and the document as JSON text). The import and
// `copy` read them back with src/runner/structure/.
import type { CatalogClient } from '../../api/catalog.js';
import type { TenantModel } from '../../schema/model.js';
import type { EntityTableWriter, ExportColumn, ExportSink } from '../../writers/export/index.js';
import { readLayouts } from '../structure/read.js';
import { ATTRIBUTE_SETS_TABLE, type AttributeSetDoc, LAYOUTS_TABLE } from '../structure/types.js';

const SET_COLUMNS: ExportColumn[] = [
  { header: 'name', kind: 'text' },
  { header: 'default', kind: 'boolean' },
  { header: 'identifier', kind: 'integer' },
  { header: 'ProductLayout', kind: 'text' },
  { header: 'VariantLayout', kind: 'text' },
];

const LAYOUT_COLUMNS: ExportColumn[] = [
  { header: 'layout', kind: 'text' },
  { header: 'document', kind: 'text' },
];

/** Writes the `attribute-sets` table from the sets read once for the export; how many rows. */
export async function exportAttributeSetTable(sets: AttributeSetDoc[], sink: ExportSink): Promise<number> {
  const table: EntityTableWriter = await sink.table(ATTRIBUTE_SETS_TABLE, SET_COLUMNS);
  for (const set of sets) {
    await table.writeRow([
      set.name,
      set.isDefault,
      set.identifier ?? null,
      set.productLayout ? JSON.stringify(set.productLayout) : null,
      set.variantLayout ? JSON.stringify(set.variantLayout) : null,
    ]);
  }
  await table.close();
  return sets.length;
}

/** Writes the `layouts` table; how many rows. One request per entity that may have a layout. */
export async function exportLayoutTable(
  catalog: CatalogClient,
  model: TenantModel,
  sink: ExportSink,
): Promise<number> {
  const layouts = await readLayouts(catalog, model);
  const table = await sink.table(LAYOUTS_TABLE, LAYOUT_COLUMNS);
  for (const layout of layouts) await table.writeRow([layout.target, JSON.stringify(layout.document)]);
  await table.close();
  return layouts.length;
}

/** Attribute set id -> name, for the `typ_name` column (the sets are few: held whole). */
export function attributeSetNames(sets: AttributeSetDoc[]): Map<number, string> {
  const names = new Map<number, string>();
  for (const set of sets) {
    if (set.identifier !== undefined) names.set(set.identifier, set.name);
  }
  return names;
}
