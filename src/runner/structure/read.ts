// Reading a tenant's structure from the Catalog API (`/v2/AttributeSets`, `/Categories/layout`,
// `/CustomEntities('<d>')/layout`), and from the two tables an export writes (`attribute-sets`,
// `layouts`), so the export, the workbook import and `copy` share one shape.
import type { CatalogClient } from '../../api/catalog.js';
import { isApiError } from '../../api/errors.js';
import { CatalogIoError } from '../../errors.js';
import type { SourceRow } from '../../readers/types.js';
import type { EntityModel, TenantModel } from '../../schema/model.js';
import type { AttributeSetDoc, LayoutDoc, LayoutDocument } from './types.js';

export const V2_SETS = '/v2/AttributeSets';

interface V2Set {
  identifier?: unknown;
  name?: unknown;
  isDefault?: unknown;
  ProductLayout?: unknown;
  VariantLayout?: unknown;
}

/** Every v2 attribute set of a tenant (one request: the list is not paged). */
export async function readAttributeSets(catalog: CatalogClient): Promise<AttributeSetDoc[]> {
  const body = await catalog.get<{ value?: V2Set[] } | V2Set[] | undefined>(V2_SETS);
  const sets = Array.isArray(body) ? body : Array.isArray(body?.value) ? body.value : [];
  return sets.map((set) => ({
    name: String(set.name ?? ''),
    isDefault: set.isDefault === true,
    ...(isLayout(set.ProductLayout) && { productLayout: set.ProductLayout }),
    ...(isLayout(set.VariantLayout) && { variantLayout: set.VariantLayout }),
    ...(typeof set.identifier === 'number' && { identifier: set.identifier }),
    location: `attribute set '${String(set.name ?? '')}'`,
  }));
}

/** The path of an entity's layout, or undefined for entities without one (products, variants: in sets). */
export function layoutPath(entity: EntityModel): string | undefined {
  if (entity.kind === 'categories' || entity.kind === 'custom') return `${entity.path}/layout`;
  return undefined;
}

/** The layouts a tenant has: categories and each custom-entity type that has one (others answer 404). */
export async function readLayouts(catalog: CatalogClient, model: TenantModel): Promise<LayoutDoc[]> {
  const out: LayoutDoc[] = [];
  for (const entity of model.entities) {
    const document = await readLayout(catalog, entity);
    if (document) out.push({ target: entity.name, document, location: `layout of ${entity.name}` });
  }
  return out;
}

/** One entity's layout; undefined when the entity has no layout in this tenant (404). */
export async function readLayout(
  catalog: CatalogClient,
  entity: EntityModel,
): Promise<LayoutDocument | undefined> {
  const path = layoutPath(entity);
  if (!path) return undefined;
  try {
    const body = await catalog.get<unknown>(path);
    // A layout may come bare or in the single-entity envelope.
    const document =
      isLayout(body) && !('sections' in body) && isLayout((body as { value?: unknown }).value)
        ? (body as { value: LayoutDocument }).value
        : body;
    return isLayout(document) ? document : undefined;
  } catch (err) {
    if (isApiError(err) && err.status === 404) return undefined;
    throw err;
  }
}

function isLayout(value: unknown): value is LayoutDocument {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A cell as text (XLSX gives numbers and booleans typed). */
function text(row: SourceRow, column: string): string {
  const value = row.cells[column];
  return value === null || value === undefined ? '' : String(value).trim();
}

/** A JSON document in a cell; empty: undefined. A cell that is not a JSON object is an error naming it. */
function jsonCell(row: SourceRow, column: string): LayoutDocument | undefined {
  const cell = text(row, column);
  if (cell === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(cell);
  } catch (err) {
    throw new CatalogIoError(
      'JSON_SYNTAX',
      `${column} must hold a layout as JSON: ${(err as Error).message}; found ${cell.slice(0, 60)}`,
      { location: `${row.location.text}, column "${column}"` },
    );
  }
  if (!isLayout(parsed)) {
    throw new CatalogIoError('JSON_SYNTAX', `${column} must hold a JSON object with a sections array`, {
      location: `${row.location.text}, column "${column}"`,
    });
  }
  return parsed;
}

/**
 * One row of the `attribute-sets` table: `name`, `default`, `ProductLayout`, `VariantLayout`; `identifier`
 * only tells two sets of one name apart (it is never written).
 */
export function attributeSetOfRow(row: SourceRow): AttributeSetDoc {
  const name = text(row, 'name');
  const isDefault = /^(true|1|yes)$/i.test(text(row, 'default'));
  if (name === '' && !isDefault) {
    throw new CatalogIoError('VALIDATION', 'An attribute set needs a name (column "name")', {
      location: row.location.text,
    });
  }
  const productLayout = jsonCell(row, 'ProductLayout');
  const variantLayout = jsonCell(row, 'VariantLayout');
  const identifier = Number(text(row, 'identifier') || Number.NaN);
  return {
    name,
    isDefault,
    ...(Number.isInteger(identifier) && { identifier }),
    ...(productLayout && { productLayout }),
    ...(variantLayout && { variantLayout }),
    location: row.location.text,
  };
}

/** One row of the `layouts` table: `layout` (`categories`, `custom:<denominator>`) and `document` (JSON). */
export function layoutOfRow(row: SourceRow, model: TenantModel): LayoutDoc {
  const target = text(row, 'layout');
  const entity = model.entity(target);
  if (!entity || !layoutPath(entity)) {
    const names = model.entities.filter((e) => layoutPath(e)).map((e) => e.name);
    throw new CatalogIoError(
      'VALIDATION',
      `layout "${target}" names no entity with a layout here: expected one of ${names.join(', ')}`,
      { location: `${row.location.text}, column "layout"` },
    );
  }
  const document = jsonCell(row, 'document');
  if (!document) {
    throw new CatalogIoError('VALIDATION', 'The layout document is empty (column "document")', {
      location: row.location.text,
    });
  }
  return { target: entity.name, document, location: row.location.text };
}
