// What a sheet or a file holds, when no flag says: the one recognition the workbook import, the
// workbook validate and a file read on its own share. An entity by the sheet's name or its header, or
// one of the export's structure tables (attribute sets, layouts) by its name or its header.
import type { ModelScope } from '../schema/load.js';
import type { EntityModel, TenantModel } from '../schema/model.js';
import {
  ATTRIBUTE_SETS_TABLE,
  LAYOUTS_TABLE,
  STRUCTURE_COLUMNS,
  type StructureTable,
} from './structure/types.js';

export interface PlacedSheet {
  sheet: string;
  entity: string;
}

export interface SheetPlacement {
  /** In import order: categories, products, variants, custom entities; workbook order within one. */
  placed: PlacedSheet[];
  /** The export's structure tables, in workbook order (applied before any record). */
  structure: Array<{ sheet: string; table: StructureTable }>;
  /** Sheets no entity nor table could be found for, in workbook order. */
  unplaced: string[];
}

const ORDER: Record<string, number> = { categories: 0, products: 1, variants: 2, custom: 3 };

/** A sheet name as the export writes it: `custom:Store Locations` becomes `custom Store Locations`. */
const key = (name: string) =>
  name
    .replace(/[:\\/?*[\]]/g, ' ')
    .trim()
    .toLowerCase();

/**
 * The entity of each sheet: the profile's `sheets` map first, then the sheet's name (an entity name as
 * the export writes it, any case), then its header (entityByHeader). A sheet of none of them may be a
 * structure table (by its name, then its header).
 */
export function placeSheets(
  sheets: ReadonlyArray<{ name: string; headers: readonly string[] | undefined }>,
  model: TenantModel,
  sheetMap: Record<string, string> = {},
): SheetPlacement {
  const mapped = new Map(Object.entries(sheetMap).map(([sheet, entity]) => [key(sheet), entity]));
  const placed: Array<PlacedSheet & { index: number }> = [];
  const structure: SheetPlacement['structure'] = [];
  const unplaced: string[] = [];
  sheets.forEach(({ name, headers }, index) => {
    const entity =
      mapped.get(key(name)) ??
      model.entities.find((e) => key(e.name) === key(name))?.name ??
      (headers ? entityByHeader(headers, model) : undefined);
    if (entity && model.entity(entity)) {
      placed.push({ sheet: name, entity, index });
      return;
    }
    const table = structureTable(name, headers);
    if (table) structure.push({ sheet: name, table });
    else unplaced.push(name);
  });
  const rank = (p: PlacedSheet) => ORDER[model.entity(p.entity)!.kind] ?? 3;
  placed.sort((a, b) => rank(a) - rank(b) || a.index - b.index);
  return { placed: placed.map(({ sheet, entity }) => ({ sheet, entity })), structure, unplaced };
}

/**
 * The entity a header is of: one whose reference field is a column; of several (a variant's columns
 * name its product's `prod_ref` too), the one most columns belong to, the first in the model's order
 * (products first) on a tie. Undefined when no entity's reference field is a column.
 */
export function entityByHeader(headers: readonly string[], model: TenantModel): string | undefined {
  return candidates(headers, model)[0]?.name;
}

/** The entities whose reference field is a column, most columns theirs first, then the model's order. */
function candidates(headers: readonly string[], model: TenantModel): Array<{ name: string; score: number }> {
  const columns = new Set(headers.map((h) => h.trim()));
  return model.entities
    .filter((entity) => columns.has(entity.refField))
    .map((entity) => ({ name: entity.name, score: ownColumns(entity, columns).length }))
    .sort((a, b) => b.score - a.score);
}

/** The columns that are fields of the entity; `prod_title_fr` belongs to `prod_title` (a language). */
function ownColumns(entity: EntityModel, columns: Iterable<string>): string[] {
  return [...columns].filter((c) => entity.field(c) ?? entity.field(c.replace(/_[a-z]{2}$/, '')));
}

/**
 * The entity a file read with neither `--entity` nor `--profile`, and not named as the export names
 * its files, holds by its header (as a workbook's sheet, entityByHeader), with a note saying so.
 * Undefined, the file read as products as ever, for a header no entity's reference field is in (a
 * supplier's feed), for products' own, and when two entities fit it alike (a note says which): a
 * file is not written to an entity it may not be of. The standard entities come from `/$metadata`,
 * which the run reads anyway; the custom entities' documents only when none of theirs fits.
 */
export async function entityOfHeader(
  headers: readonly string[],
  model: (scope: ModelScope) => Promise<TenantModel>,
): Promise<{ entity?: string; note: string } | undefined> {
  let tenant = await model(['products']);
  let found = candidates(headers, tenant);
  if (found.length === 0) {
    tenant = await model('all');
    found = candidates(headers, tenant);
  }
  const [best, next] = found;
  if (!best || best.name === 'products') return undefined;
  if (next && next.score === best.score) {
    if (next.name === 'products') return undefined;
    return {
      note: `its header fits ${best.name} and ${next.name} alike (${best.score} columns each): read as products; name the entity with --entity`,
    };
  }
  const own = tenant.entity(best.name)!;
  return {
    entity: best.name,
    note: `read as ${best.name} by its header: its columns are fields of ${best.name} (${best.score} of ${new Set(headers.map((h) => h.trim())).size}, the reference ${own.refField} among them), not of products (--entity or --profile reads it otherwise)`,
  };
}

const TABLES: readonly StructureTable[] = [ATTRIBUTE_SETS_TABLE, LAYOUTS_TABLE];

/**
 * The structure table a sheet or file holds: by its name as the export writes it (`attribute-sets`,
 * `layouts`, any case), else by its header, the table's own columns and no other (a renamed export;
 * a supplier's feed has columns of its own). Undefined for anything else.
 */
export function structureTable(name: string, headers?: readonly string[]): StructureTable | undefined {
  const lower = name.trim().toLowerCase();
  const named = TABLES.find((t) => t === lower);
  if (named || !headers) return named;
  const columns = new Set(headers.map((h) => h.trim()).filter((h) => h !== ''));
  return TABLES.find((t) => {
    const own = STRUCTURE_COLUMNS[t];
    return (
      own.allOf.every((c) => columns.has(c)) &&
      (own.anyOf.length === 0 || own.anyOf.some((c) => columns.has(c))) &&
      [...columns].every((c) => own.columns.includes(c))
    );
  });
}

/** The note for a file read as one of the export's structure tables by its header (named otherwise). */
export function structureNote(table: StructureTable): string {
  return `read as the export's ${table} table: its header is that table's columns`;
}
