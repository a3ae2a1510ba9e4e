// `validate --check-refs`: a row's references (a variant's product, a category's parent, a product's
// categories) must name a record of the file (a row before it, or up to a few hundred rows after) or of
// the tenant. The file's refs are kept as 56-bit hashes (RefTracker, bounded); the refs not in the file
// are asked of the tenant 100 per request, and the answers kept for the next rows (a bounded cache).
import type { Draft } from '../mappers/types.js';
import type { EntityModel, TenantModel } from '../schema/model.js';
import { RefTracker } from './ref-tracker.js';

/** Asks the tenant which of these refs it has (the caller sends 100 per request). */
export type TenantRefLookup = (entity: EntityModel, refs: readonly string[]) => Promise<Set<string>>;

export interface Reference {
  entity: EntityModel;
  ref: string;
  /** The source column that named it. */
  column: string;
}

/** Refs remembered as found in the tenant: past this, the cache starts again. */
const CACHE_LIMIT = 50_000;

export class ReferenceCheck {
  private readonly inFile = new RefTracker();
  private readonly inTenant = new Map<string, Set<string>>();
  private cached = 0;

  constructor(
    private readonly model: TenantModel,
    private readonly lookup: TenantRefLookup | undefined,
  ) {}

  /** Notes the records a row defines, and gives back the references it makes that are not known yet. */
  row(drafts: readonly Draft[]): Reference[] {
    for (const d of drafts) if (d.ref) this.inFile.check(d.entity, d.ref, '', 0);
    const open: Reference[] = [];
    for (const d of drafts) {
      for (const reference of this.referencesOf(d)) {
        if (!this.known(reference)) open.push(reference);
      }
    }
    return open;
  }

  /** Of these references, those that name no record of the file (so far) nor of the tenant. */
  async missing(references: readonly Reference[]): Promise<Set<Reference>> {
    const ask = new Map<EntityModel, Set<string>>();
    for (const r of references) {
      if (this.known(r) || !this.lookup) continue;
      const refs = ask.get(r.entity) ?? new Set<string>();
      refs.add(r.ref);
      ask.set(r.entity, refs);
    }
    for (const [entity, refs] of ask) {
      const found = await this.lookup!(entity, [...refs]);
      if (this.cached + found.size > CACHE_LIMIT) {
        this.inTenant.clear();
        this.cached = 0;
      }
      const known = this.inTenant.get(entity.name) ?? new Set<string>();
      for (const ref of found) known.add(ref);
      this.inTenant.set(entity.name, known);
      this.cached += found.size;
    }
    return new Set(references.filter((r) => !this.known(r)));
  }

  private known(r: Reference): boolean {
    return this.inFile.has(r.entity.name, r.ref) || this.inTenant.get(r.entity.name)?.has(r.ref) === true;
  }

  private referencesOf(d: Draft): Reference[] {
    const out: Reference[] = [];
    const add = (entityName: string, ref: string | undefined, link: string) => {
      const entity = this.model.entity(entityName);
      if (entity && ref) out.push({ entity, ref, column: d.source.columns[link] ?? link });
    };
    add('products', d.links.productRef, 'link:productRef');
    // Categories named by paths are found or created by the import: they always resolve.
    if (d.links.categoryPaths) return out;
    add('categories', d.links.parentRef, 'link:parentRef');
    for (const ref of d.links.categoryRefs ?? []) add('categories', ref, 'link:categoryRefs');
    return out;
  }
}
