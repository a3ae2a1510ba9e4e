// The catalog's state and the rules that keep it consistent: records of every resource, attribute
// sets, layouts and the changelog; creation, modification and deletion with their cascades. No HTTP
// here: the routes turn requests into these calls and outcomes into responses.
import type { AssetDirectory } from '../context.js';
import { API_AUTHOR, type ChangelogState, ChangelogStore, SYSTEM_AUTHOR } from './changelog.js';
import type { CustomEntityDef, FieldDef, Layout, ResourceDef, StoredRecord, TenantSchema } from './model.js';
import { Table } from './table.js';
import {
  applyChange,
  emptyRecord,
  type FieldFailure,
  presentValue,
  sameValue,
  validateWrite,
} from './values.js';

export type Author = { type: 'api' | 'system'; id: string };
export const API: Author = { type: 'api', id: API_AUTHOR };
export const SYSTEM: Author = { type: 'system', id: SYSTEM_AUTHOR };

/** What a write can end with, besides success. */
export type WriteFailure =
  | { kind: 'invalid'; failures: FieldFailure[] }
  /** PATCH naming a DAM asset that does not exist: the spec's 404 whose message carries the reason. */
  | { kind: 'missing-asset'; failures: FieldFailure[] }
  | { kind: 'not-found'; detail: string };

export type WriteResult = { ok: true; id: number } | { ok: false; failure: WriteFailure };

/** One resource: its definition, its table and its changelog name. */
export interface Resource {
  def: ResourceDef;
  table: Table;
  logName: string;
}

export interface AttributeSetRecord extends StoredRecord {
  typ_id: number;
  typ_title: string;
  typ_stat: 'active' | 'archived';
  typ_default: boolean;
  product_layout: Layout;
  variant_layout: Layout;
}

export interface CatalogState {
  version: 1;
  /** Per table: the field names once, then one array of values per record (half the size of objects). */
  tables: Record<string, { nextId: number; fields: string[]; rows: unknown[][] }>;
  categoryLayout: Layout | null;
  customLayouts: Record<string, Layout>;
  changelog: ChangelogState;
}

export class CatalogStore {
  readonly products: Resource;
  readonly variants: Resource;
  readonly categories: Resource;
  readonly custom = new Map<string, Resource & { def: CustomEntityDef }>();
  readonly attributeSets = new Table('typ_id', 'typ_ref');
  readonly changelog = new ChangelogStore();
  categoryLayout: Layout | null = null;
  readonly customLayouts = new Map<string, Layout>();

  constructor(
    readonly tenant: TenantSchema,
    private assets: AssetDirectory,
    private readonly now: () => Date,
  ) {
    this.products = {
      def: tenant.product,
      table: new Table('prod_id', 'prod_ref', ['cat_ids', 'typ_id']),
      logName: 'Products',
    };
    this.variants = {
      def: tenant.variant,
      table: new Table('frmt_id', 'frmt_ref', ['prod_id']),
      logName: 'Variants',
    };
    this.categories = {
      def: tenant.category,
      table: new Table('cat_id', 'cat_ref', ['cat_parent_id']),
      logName: 'Categories',
    };
    for (const def of tenant.customEntities) {
      this.custom.set(def.denominator, {
        def,
        table: new Table(def.key, def.ref),
        logName: `CustomEntities('${def.denominator}')`,
      });
    }
  }

  /** Runs `fn` with every DAM name taken as existing (seeding, before the DAM has registered them). */
  trustingAssets<T>(fn: () => T): T {
    const real = this.assets;
    this.assets = { imageExists: () => true, fileExists: () => true };
    try {
      return fn();
    } finally {
      this.assets = real;
    }
  }

  get languages(): string[] {
    return this.tenant.languages;
  }

  /** Every table under its persisted name. */
  allTables(): Array<[string, Table]> {
    return [
      ['Products', this.products.table],
      ['Variants', this.variants.table],
      ['Categories', this.categories.table],
      ['AttributeSets', this.attributeSets],
      ...[...this.custom].map(([d, r]): [string, Table] => [`CustomEntities('${d}')`, r.table]),
    ];
  }

  // ---------- reading ----------

  /** Fields derived from other records rather than stored. */
  derived(resource: Resource, record: StoredRecord, field: string): { value: unknown } | undefined {
    if (resource === this.variants && field === 'prod_ref') {
      const product =
        typeof record.prod_id === 'number' ? this.products.table.get(record.prod_id) : undefined;
      return { value: (product?.prod_ref as string | undefined) ?? '' };
    }
    if (resource === this.categories && field === 'cat_parent_ref') {
      const parent =
        typeof record.cat_parent_id === 'number'
          ? this.categories.table.get(record.cat_parent_id)
          : undefined;
      return { value: (parent?.cat_ref as string | undefined) ?? null };
    }
    return undefined;
  }

  read(resource: Resource, record: StoredRecord, field: FieldDef, culture: string): unknown {
    const d = this.derived(resource, record, field.name);
    return d ? d.value : presentValue(field, record[field.name], culture);
  }

  defaultAttributeSetId(): number | undefined {
    for (const r of this.attributeSets.values()) if (r.typ_default) return r.typ_id as number;
    return undefined;
  }

  /** Products of an attribute set; the default set also owns products with `typ_id` null. */
  productIdsOfSet(setId: number): number[] {
    const values: unknown[] = setId === this.defaultAttributeSetId() ? [setId, null] : [setId];
    return this.products.table.idsWhere('typ_id', values);
  }

  variantIdsOfProducts(productIds: readonly number[]): number[] {
    return this.variants.table.idsWhere('prod_id', productIds);
  }

  // ---------- writing ----------

  create(
    resource: Resource,
    body: Record<string, unknown>,
    culture: string,
    author: Author = API,
  ): WriteResult {
    const { def, table } = resource;
    const v = validateWrite(def, body, {
      culture,
      languages: this.languages,
      assets: this.assets,
      mode: 'create',
    });
    if (v.failures.length) return { ok: false, failure: { kind: 'invalid', failures: v.failures } };
    const record = emptyRecord(def);
    for (const [name, change] of v.changes) {
      const field = def.fields.find((f) => f.name === name)!;
      record[name] = applyChange(field, record[name], change, this.languages);
    }
    const ref = record[def.ref] as string;
    if (table.idOfRef(ref) !== undefined) {
      return invalid(
        def.ref,
        `Reference '${ref}' already exists: ${def.ref} must be unique (references are case-sensitive)`,
        ref,
      );
    }
    const linkProblem = this.checkLinks(resource, record, undefined);
    if (linkProblem) return { ok: false, failure: linkProblem };

    const id = table.allocateId();
    const at = this.now();
    record[def.key] = id;
    record[def.createdField] = at.toISOString();
    record[def.modifiedField] = at.toISOString();
    table.insert(record);
    const changes = def.fields
      .filter((f) => v.changes.has(f.name))
      .map((f) => ({ attribute: f.name, old: null, new: record[f.name] }));
    this.changelog.record(resource.logName, id, at, author, 'created', changes);
    return { ok: true, id };
  }

  update(
    resource: Resource,
    id: number,
    body: Record<string, unknown>,
    culture: string,
    author: Author = API,
  ): WriteResult {
    const { def, table } = resource;
    const old = table.get(id);
    if (!old) return { ok: false, failure: { kind: 'not-found', detail: `No ${def.title} with id ${id}` } };
    const v = validateWrite(def, body, {
      culture,
      languages: this.languages,
      assets: this.assets,
      mode: 'update',
    });
    if (v.failures.some((f) => !f.missingAsset))
      return { ok: false, failure: { kind: 'invalid', failures: v.failures } };
    if (v.failures.length) return { ok: false, failure: { kind: 'missing-asset', failures: v.failures } };
    const record: StoredRecord = { ...old };
    for (const [name, change] of v.changes) {
      const field = def.fields.find((f) => f.name === name)!;
      record[name] = applyChange(field, old[name], change, this.languages);
    }
    const linkProblem = this.checkLinks(resource, record, id);
    if (linkProblem) return { ok: false, failure: linkProblem };
    this.commit(resource, old, record, author);
    return { ok: true, id };
  }

  /** Stores a modified record: changelog entries for changed attributes and a new modification date. */
  private commit(
    resource: Resource,
    old: StoredRecord,
    record: StoredRecord,
    author: Author,
    extra: string[] = [],
  ): void {
    const { def, table } = resource;
    const changed = def.fields.filter(
      (f) =>
        f.name !== def.modifiedField && (!sameValue(old[f.name], record[f.name]) || extra.includes(f.name)),
    );
    if (changed.length === 0) return; // nothing changed: no entry, no new date
    const at = this.now();
    record[def.modifiedField] = at.toISOString();
    table.replace(record);
    const id = record[def.key] as number;
    this.changelog.record(
      resource.logName,
      id,
      at,
      author,
      'modified',
      changed.map((f) => ({ attribute: f.name, old: old[f.name], new: record[f.name] })),
    );
  }

  delete(resource: Resource, id: number): WriteResult {
    const { def, table } = resource;
    const old = table.get(id);
    if (!old) return { ok: false, failure: { kind: 'not-found', detail: `No ${def.title} with id ${id}` } };
    table.delete(id);
    if (resource === this.products) {
      // Variants stay, without a product: empty prod_ref and a new modification date.
      for (const vid of this.variants.table.idsWhere('prod_id', [id])) {
        const v = this.variants.table.get(vid)!;
        const changed = { ...v, prod_id: null };
        this.commitWithDerived(this.variants, v, changed, old.prod_ref);
      }
    } else if (resource === this.categories) {
      // Children move to the root; products lose the link.
      for (const cid of this.categories.table.idsWhere('cat_parent_id', [id])) {
        const c = this.categories.table.get(cid)!;
        this.commit(this.categories, c, { ...c, cat_parent_id: null }, SYSTEM);
      }
      for (const pid of this.products.table.idsWhere('cat_ids', [id])) {
        const p = this.products.table.get(pid)!;
        this.commit(
          this.products,
          p,
          { ...p, cat_ids: (p.cat_ids as number[]).filter((c) => c !== id) },
          SYSTEM,
        );
      }
    }
    return { ok: true, id };
  }

  /** A variant losing its product: prod_id and the derived prod_ref both change. */
  private commitWithDerived(
    resource: Resource,
    old: StoredRecord,
    record: StoredRecord,
    oldProductRef: unknown,
  ): void {
    const at = this.now();
    record[resource.def.modifiedField] = at.toISOString();
    resource.table.replace(record);
    this.changelog.record(resource.logName, record[resource.def.key] as number, at, SYSTEM, 'modified', [
      { attribute: 'prod_id', old: old.prod_id, new: null },
      { attribute: 'prod_ref', old: oldProductRef, new: '' },
    ]);
  }

  /** Integer links must name existing records; a category may not become its own ancestor. */
  private checkLinks(
    resource: Resource,
    record: StoredRecord,
    selfId: number | undefined,
  ): WriteFailure | undefined {
    for (const field of resource.def.fields) {
      if (!field.references || field.readOnly) continue;
      const value = record[field.name];
      const ids = Array.isArray(value)
        ? (value as number[])
        : value === null || value === undefined
          ? []
          : [value as number];
      const target = this.linkTarget(field.references);
      const missing = ids.find((linked) => !target.get(linked));
      if (missing !== undefined) {
        return {
          kind: 'invalid',
          failures: [
            {
              field: field.name,
              message: `Invalid value for ${field.name}: there is no ${field.references} record with id ${missing}`,
              attempted: value,
            },
          ],
        };
      }
    }
    if (resource === this.categories && selfId !== undefined) {
      let parent = record.cat_parent_id as number | null;
      const seen = new Set<number>();
      while (parent !== null && parent !== undefined && !seen.has(parent)) {
        if (parent === selfId) {
          return {
            kind: 'invalid',
            failures: [
              {
                field: 'cat_parent_id',
                message: `Invalid value for cat_parent_id: category ${selfId} cannot be moved below itself or one of its descendants`,
                attempted: record.cat_parent_id,
              },
            ],
          };
        }
        seen.add(parent);
        parent = (this.categories.table.get(parent)?.cat_parent_id as number | null) ?? null;
      }
    }
    return undefined;
  }

  private linkTarget(collection: string): Table {
    switch (collection) {
      case 'Products':
        return this.products.table;
      case 'Variants':
        return this.variants.table;
      case 'Categories':
        return this.categories.table;
      case 'AttributeSets':
        return this.attributeSets;
      default:
        throw new Error(`unknown link target ${collection}`);
    }
  }

  // ---------- attribute sets (v2 and legacy share these records) ----------

  createAttributeSet(name: string, productLayout: Layout, variantLayout: Layout, isDefault = false): number {
    const id = this.attributeSets.allocateId();
    const record: AttributeSetRecord = {
      typ_id: id,
      typ_title: name,
      typ_stat: 'active',
      typ_default: isDefault,
      product_layout: productLayout,
      variant_layout: variantLayout,
    };
    this.attributeSets.insert(record);
    return id;
  }

  /** The set's products move to the default set (typ_id null). */
  deleteAttributeSet(id: number): void {
    for (const pid of this.products.table.idsWhere('typ_id', [id])) {
      const p = this.products.table.get(pid)!;
      this.commit(this.products, p, { ...p, typ_id: null }, SYSTEM);
    }
    this.attributeSets.delete(id);
  }

  // ---------- persistence ----------

  snapshot(): CatalogState {
    const tables: CatalogState['tables'] = {};
    for (const [name, table] of this.allTables()) {
      const fields = new Set<string>();
      for (const r of table.values()) for (const k of Object.keys(r)) fields.add(k);
      const names = [...fields];
      const rows: unknown[][] = [];
      for (const r of table.values()) rows.push(names.map((k) => r[k] ?? null));
      tables[name] = { nextId: table.nextId, fields: names, rows };
    }
    return {
      version: 1,
      tables,
      categoryLayout: this.categoryLayout,
      customLayouts: Object.fromEntries(this.customLayouts),
      changelog: this.changelog.snapshot(),
    };
  }

  restore(state: CatalogState): void {
    this.clear();
    for (const [name, table] of this.allTables()) {
      const saved = state.tables[name];
      if (!saved) continue;
      for (const row of saved.rows) {
        const record: StoredRecord = {};
        saved.fields.forEach((k, i) => {
          record[k] = row[i];
        });
        table.insert(record);
      }
      table.nextId = Math.max(table.nextId, saved.nextId);
    }
    this.categoryLayout = state.categoryLayout;
    for (const [d, layout] of Object.entries(state.customLayouts)) this.customLayouts.set(d, layout);
    this.changelog.restore(state.changelog);
  }

  clear(): void {
    for (const [, table] of this.allTables()) table.clear();
    this.categoryLayout = null;
    this.customLayouts.clear();
    this.changelog.clear();
  }
}

function invalid(field: string, message: string, attempted: unknown): WriteResult {
  return { ok: false, failure: { kind: 'invalid', failures: [{ field, message, attempted }] } };
}
