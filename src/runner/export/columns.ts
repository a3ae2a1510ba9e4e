// Which columns an entity's table has, named exactly as the import's profile-less mapping reads them,
// so an exported file re-imports with zero changes:
//   ref first, then the schema's order; `<field>` in the base language and `<field>_<culture>` for the
//   others, side by side; a reference column next to its id field (`cat_ids` -> `cat_refs`) when the
//   server does not already give one (variants' `prod_ref`, categories' `cat_parent_ref`).
// Also what each read must `$select`: every selected field in the base language, only the multilingual
// ones in the other languages.
import { CatalogIoError } from '../../errors.js';
import type { EntityModel, FieldModel, TenantModel } from '../../schema/model.js';
import type { ColumnKind, ExportColumn } from '../../writers/export/index.js';

/** Where a column's value comes from. */
export type ColumnSource =
  | { kind: 'field'; field: string; culture?: string }
  | { kind: 'ref'; idField: string; target: string; multiple: boolean }
  /** The name of the attribute set an id field (`typ_id`) names: ids differ between tenants, names do not. */
  | { kind: 'setName'; idField: string };

export interface PlannedColumn extends ExportColumn {
  source: ColumnSource;
}

/** An id field whose ids are exported as refs of another entity too. */
export interface RefLink {
  idField: string;
  /** Entity name of the referenced records (`categories`). */
  target: string;
  multiple: boolean;
}

export interface TablePlan {
  entity: EntityModel;
  columns: PlannedColumn[];
  /** `$select` of the base-language read. */
  baseSelect: string[];
  /** Other culture -> `$select` of its read (the id field and the multilingual fields it has). Absent: no read. */
  cultureSelect: Map<string, string[]>;
  refLinks: RefLink[];
}

export interface PlanOptions {
  /** Languages to export, base language first (already checked against the tenant). */
  languages: string[];
  /** Field names (or derived ref column names) to export; undefined: every field. */
  select?: string[];
}

export function planTable(entity: EntityModel, model: TenantModel, options: PlanOptions): TablePlan {
  const base = model.baseLanguage;
  const selected = selectedFields(entity, model, options.select);
  const ordered = [
    ...selected.filter((f) => f.name === entity.refField),
    ...selected.filter((f) => f.name !== entity.refField),
  ];
  const columns: PlannedColumn[] = [];
  const refLinks: RefLink[] = [];
  const cultureSelect = new Map<string, string[]>();
  for (const field of ordered) {
    const kind = columnKind(field);
    columns.push({ header: field.name, kind, source: { kind: 'field', field: field.name } });
    if (field.multilingual) {
      for (const culture of options.languages) {
        if (culture === base || !hasCulture(field, culture)) continue;
        columns.push({
          header: `${field.name}_${culture}`,
          kind,
          source: { kind: 'field', field: field.name, culture },
        });
        const fields = cultureSelect.get(culture) ?? [entity.idField];
        fields.push(field.name);
        cultureSelect.set(culture, fields);
      }
    }
    if (field.references === 'AttributeSets' && field.name.endsWith('_id') && !field.multiple) {
      const header = `${field.name.slice(0, -3)}_name`;
      if (!entity.field(header))
        columns.push({ header, kind: 'text', source: { kind: 'setName', idField: field.name } });
    }
    const link = refLinkOf(entity, field, model);
    if (link) {
      refLinks.push(link);
      columns.push({ header: refColumnName(field.name)!, kind: 'text', source: { kind: 'ref', ...link } });
    }
  }
  return { entity, columns, baseSelect: ordered.map((f) => f.name), cultureSelect, refLinks };
}

/** The schema's fields the user selected, in the schema's order; the id and ref fields always. */
function selectedFields(entity: EntityModel, model: TenantModel, select: string[] | undefined): FieldModel[] {
  if (!select) return entity.fields;
  const wanted = new Set([entity.idField, entity.refField]);
  for (const name of select) {
    const field = entity.field(name) ?? derivedRefSource(entity, name, model);
    if (!field) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--select ${name}: not a field of ${entity.name}; its fields are ${entity.fields.map((f) => f.name).join(', ')}`,
      );
    }
    wanted.add(field.name);
  }
  return entity.fields.filter((f) => wanted.has(f.name));
}

/** `cat_refs` selected: the id field it is derived from. */
function derivedRefSource(entity: EntityModel, name: string, model: TenantModel): FieldModel | undefined {
  return entity.fields.find((f) => refColumnName(f.name) === name && refLinkOf(entity, f, model));
}

/** `X_ids` -> `X_refs`, `X_id` -> `X_ref`: the import's names for reference columns. */
export function refColumnName(idField: string): string | undefined {
  if (idField.endsWith('_ids')) return `${idField.slice(0, -4)}_refs`;
  if (idField.endsWith('_id')) return `${idField.slice(0, -3)}_ref`;
  return undefined;
}

/**
 * A reference column is added for an id field that links to another entity of the tenant (one with refs),
 * unless the entity already has a field of that name (the server then fills it itself).
 */
function refLinkOf(entity: EntityModel, field: FieldModel, model: TenantModel): RefLink | undefined {
  if (field.name === entity.idField) return undefined;
  const references = field.references ?? implicitReference(entity, field.name);
  if (!references) return undefined;
  const target = model.entities.find(
    (e) => e.kind === references.toLowerCase() || e.name === references.toLowerCase(),
  );
  const column = refColumnName(field.name);
  if (!target || !column || entity.field(column)) return undefined;
  return { idField: field.name, target: target.name, multiple: field.multiple };
}

/** The spec's own links, for tenants whose `$metadata` does not mark them (as the import assumes too). */
function implicitReference(entity: EntityModel, idField: string): string | undefined {
  if (entity.kind === 'variants' && idField === 'prod_id') return 'Products';
  if (entity.kind === 'categories' && idField === 'cat_parent_id') return 'Categories';
  return undefined;
}

function hasCulture(field: FieldModel, culture: string): boolean {
  return !field.languages || field.languages.includes(culture);
}

/** Numbers as numbers, dates as dates; codes, refs and multi-values as text (EANs keep their zeros). */
export function columnKind(field: FieldModel): ColumnKind {
  if (field.multiple) return 'text';
  switch (field.type) {
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'date-time':
      return 'date-time';
    case 'date':
      return 'date';
    default:
      return 'text';
  }
}

/** `--languages all|en,fr` against the tenant: base language first, always included, tenant spelling. */
export function resolveLanguages(model: TenantModel, wanted: string[] | 'all' | undefined): string[] {
  if (wanted === undefined || wanted === 'all') return [...model.languages];
  const out = [model.baseLanguage];
  for (const name of wanted) {
    const known = model.languages.find((l) => l.toLowerCase() === name.trim().toLowerCase());
    if (!known) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--languages ${name}: not a language of this tenant (${model.languages.join(', ')})`,
      );
    }
    if (!out.includes(known)) out.push(known);
  }
  return model.languages.filter((l) => out.includes(l));
}
