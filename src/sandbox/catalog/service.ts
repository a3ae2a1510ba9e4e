// The catalog API over HTTP: routes a SandboxRequest (prefix stripped, auth checked) to metadata,
// collection reads, entity reads, writes, changelogs, layouts and attribute sets, and answers in the
// spec's shapes. State and its rules live in CatalogStore; this file only translates.
import type { AssetDirectory, ServiceContext } from '../context.js';
import {
  BodyParseError,
  json,
  methodNotAllowed,
  noContent,
  notFoundPath,
  problem,
  type SandboxRequest,
  type SandboxResponse,
  type SandboxService,
  type ValidationFailure,
  validationFailures,
} from '../http.js';
import { ODataError } from '../odata/types.js';
import { type BulkOptions, bulkProducts } from '../seed/bulk.js';
import { tenantSchema } from '../seed/tenant.js';
import { AttributeSetsV2 } from './attribute-sets.js';
import { bodyFailure, objectBody } from './body.js';
import { changelogCollection } from './changelog.js';
import { requestCulture } from './culture.js';
import { CatalogJournal } from './journal.js';
import { copyLayout, layoutProblems } from './layouts.js';
import { MetadataDocuments, metadataEnvelope } from './metadata.js';
import type { FieldDef, Layout } from './model.js';
import { parsePath, type Segment } from './path.js';
import {
  type CollectionView,
  odataFailure,
  parseExpand,
  parseSelectOption,
  runCollectionQuery,
} from './query.js';
import { type CatalogState, CatalogStore, type Resource, type WriteResult } from './store.js';
import { attributeSetView, resourceView } from './views.js';

export class CatalogService implements SandboxService {
  readonly store: CatalogStore;
  readonly journal: CatalogJournal;
  private readonly metadata: MetadataDocuments;
  private readonly views = new Map<Resource, CollectionView>();
  private readonly setView: CollectionView;
  private readonly v2: AttributeSetsV2;

  constructor(
    private readonly ctx: ServiceContext,
    assets: AssetDirectory,
  ) {
    this.store = new CatalogStore(tenantSchema(), assets, () => ctx.now());
    this.journal = new CatalogJournal(this.store);
    this.metadata = new MetadataDocuments(this.store.tenant, () => this.base);
    for (const r of [
      this.store.products,
      this.store.variants,
      this.store.categories,
      ...this.store.custom.values(),
    ]) {
      this.views.set(r, resourceView(this.store, r));
    }
    this.setView = attributeSetView(this.store);
    this.v2 = new AttributeSetsV2(this.store, ctx);
  }

  private get base(): string {
    return this.ctx.urls.catalogUrl;
  }

  private view(r: Resource): CollectionView {
    return this.views.get(r)!;
  }

  /** Large tenants without HTTP (tests, benchmarks): see seedBulkProducts. No changelog entries. */
  addBulkProducts(n: number, options: BulkOptions = {}): { firstId: number; lastId: number } {
    const range = bulkProducts(this.store, n, this.ctx.now(), options);
    this.ctx.markDirty();
    return range;
  }

  close(): void {
    // No timers or workers to stop.
  }

  snapshot(): CatalogState {
    return this.store.snapshot();
  }

  /** Throws on a snapshot of another format: the caller then starts from the seed. */
  restore(state: unknown): void {
    const s = state as Partial<CatalogState> | null;
    const tables = s && typeof s === 'object' ? s.tables : undefined;
    const valid =
      s?.version === 1 &&
      tables !== undefined &&
      Object.values(tables).every((t) => t && Array.isArray(t.fields) && Array.isArray(t.rows));
    if (!valid) throw new Error('the catalog snapshot is in an unknown format');
    this.store.restore(s as CatalogState);
  }

  async handle(req: SandboxRequest): Promise<SandboxResponse> {
    try {
      return this.route(req);
    } catch (err) {
      if (err instanceof ODataError) return odataFailure(err);
      if (err instanceof BodyParseError)
        return bodyFailure(`The request body is not valid JSON: ${err.message}`, req.body);
      throw err;
    }
  }

  private route(req: SandboxRequest): SandboxResponse {
    const segments = parsePath(req.path);
    if (!segments || segments.length === 0) return notFoundPath(req.method, req.rawPath);
    const culture = requestCulture(req.headers['accept-language'], this.store.languages);
    const [first, ...rest] = segments as [Segment, ...Segment[]];

    if (first.name === '$metadata' && !first.key && rest.length === 0) {
      return this.only(req, ['GET'], () => this.meta(req, this.metadata.root()));
    }
    if (first.name === 'v2' && !first.key && rest[0]?.name === 'AttributeSets' && rest.length === 1) {
      return this.v2.handle(req, rest[0]);
    }
    if (first.name === 'AttributeSets') return this.legacyAttributeSets(req, first, rest, culture);
    if (first.name === 'CustomEntities') return this.customEntities(req, first, rest, culture);
    const resource = this.resourceByCollection(first.name);
    if (!resource) return notFoundPath(req.method, req.rawPath);
    return this.resourceRoute(req, resource, first, rest, culture);
  }

  private resourceByCollection(name: string): Resource | undefined {
    if (name === 'Products') return this.store.products;
    if (name === 'Variants') return this.store.variants;
    if (name === 'Categories') return this.store.categories;
    return undefined;
  }

  private only(req: SandboxRequest, allowed: string[], run: () => SandboxResponse): SandboxResponse {
    if (!allowed.includes(req.method)) return methodNotAllowed(req.method, req.rawPath, allowed);
    return run();
  }

  private meta(req: SandboxRequest, schema: Record<string, unknown>): SandboxResponse {
    return json(200, metadataEnvelope(this.base + req.rawPath, schema));
  }

  // ---------- Products, Variants, Categories (and custom entities through the same helpers) ----------

  private resourceRoute(
    req: SandboxRequest,
    resource: Resource,
    first: Segment,
    rest: Segment[],
    culture: string,
  ): SandboxResponse {
    const collectionUrl = `${this.base}/${first.name}`;
    if (!first.key) {
      if (rest.length === 0) {
        return this.only(req, ['GET', 'POST'], () =>
          req.method === 'GET'
            ? this.list(req, resource, collectionUrl, culture)
            : this.create(req, resource, collectionUrl, culture),
        );
      }
      const [next] = rest;
      if (rest.length === 1 && next!.name === '$metadata' && !next!.key) {
        return this.only(req, ['GET'], () => this.meta(req, this.metadata.resource(resource.def)));
      }
      if (rest.length === 1 && next!.name === 'Changelog' && !next!.key) {
        return this.only(req, ['GET'], () => this.changelog(req, resource));
      }
      if (rest.length === 1 && next!.name === 'layout' && !next!.key && resource === this.store.categories) {
        const store = this.store;
        return this.layout(
          req,
          {
            get: () => store.categoryLayout,
            set: (l) => {
              store.categoryLayout = l;
            },
          },
          resource.def.fields,
        );
      }
      return notFoundPath(req.method, req.rawPath);
    }
    const id = intKey(first);
    const record = id === undefined ? undefined : resource.table.get(id);
    const entityUrl = `${collectionUrl}(${id})`;
    if (rest.length === 0) {
      return this.only(req, ['GET', 'PATCH', 'DELETE'], () => {
        if (id === undefined || (!record && req.method !== 'PATCH')) return this.notFound(resource, first);
        if (req.method === 'GET') return this.entity(req, resource, id, entityUrl, culture);
        if (req.method === 'PATCH') return this.patch(req, resource, id, culture);
        return this.remove(resource, id);
      });
    }
    const [sub, ...deeper] = rest as [Segment, ...Segment[]];
    // The changelog outlives its item (rule 7): a deleted item's entries stay readable.
    if (id !== undefined && sub.name === 'Changelog' && !sub.key && deeper.length === 0) {
      return this.only(req, ['GET'], () => this.changelog(req, resource, id));
    }
    if (id === undefined || !record) return this.notFound(resource, first);
    // Embedded collections: /Products(1)/Variants, /Categories(1)/Products, /Categories(1)/Variants.
    const embedded = this.embedded(resource, id, sub.name);
    if (!embedded || deeper.length > 0) return notFoundPath(req.method, req.rawPath);
    const [target, scope] = embedded;
    const url = `${entityUrl}/${sub.name}`;
    if (!sub.key) {
      return this.only(req, ['GET'], () =>
        runCollectionQuery(this.view(target), {
          url,
          context: `${this.base}/$metadata#${target.def.collection}`,
          query: req.query,
          culture,
          scope,
        }),
      );
    }
    return this.only(req, ['GET'], () => {
      const childId = intKey(sub);
      if (childId === undefined || !scope.includes(childId)) {
        return problem(
          404,
          'Not Found',
          `${first.name}(${id}) has no ${target.def.title.toLowerCase()} with id ${sub.key!.value}`,
          req.rawPath,
        );
      }
      return this.entity(req, target, childId, `${this.base}/${target.def.collection}(${childId})`, culture);
    });
  }

  private embedded(resource: Resource, id: number, name: string): [Resource, number[]] | undefined {
    const s = this.store;
    if (resource === s.products && name === 'Variants') return [s.variants, s.variantIdsOfProducts([id])];
    if (resource === s.categories && name === 'Products')
      return [s.products, s.products.table.idsWhere('cat_ids', [id])];
    if (resource === s.categories && name === 'Variants') {
      return [s.variants, s.variantIdsOfProducts(s.products.table.idsWhere('cat_ids', [id]))];
    }
    return undefined;
  }

  private notFound(resource: Resource, segment: Segment): SandboxResponse {
    const key = segment.key?.value ?? '';
    return problem(
      404,
      'Not Found',
      `No ${resource.def.title} with id ${key}`,
      `/${resource.def.collection}(${key})`,
    );
  }

  private list(req: SandboxRequest, resource: Resource, url: string, culture: string): SandboxResponse {
    return runCollectionQuery(this.view(resource), {
      url,
      context: `${this.base}/$metadata#${contextName(resource)}`,
      query: req.query,
      culture,
    });
  }

  private entity(
    req: SandboxRequest,
    resource: Resource,
    id: number,
    entityUrl: string,
    culture: string,
  ): SandboxResponse {
    const view = this.view(resource);
    const record = resource.table.get(id)!;
    const select = parseSelectOption(req.query.get('$select'), view);
    const expand = parseExpand(req.query.get('$expand'), view.expandable);
    const modified = record[resource.def.modifiedField];
    return json(200, {
      '@readLink': entityUrl,
      '@editLink': entityUrl,
      '@etag': `W/"${typeof modified === 'string' ? Date.parse(modified) : 0}"`,
      '@context': `${this.base}/$metadata#${contextName(resource)}/$entity`,
      value: view.present(record, culture, select, expand),
    });
  }

  private create(
    req: SandboxRequest,
    resource: Resource,
    collectionUrl: string,
    culture: string,
  ): SandboxResponse {
    const body = objectBody(req);
    if ('response' in body) return body.response;
    const result = this.store.create(resource, body.value, culture);
    if (!result.ok) return this.writeFailure(result, 400);
    this.ctx.markDirty();
    const location =
      resource.def.kind === 'CustomEntity'
        ? `${collectionUrl}/item(${result.id})`
        : `${collectionUrl}(${result.id})`;
    return { status: 201, headers: { location } };
  }

  private patch(req: SandboxRequest, resource: Resource, id: number, culture: string): SandboxResponse {
    const body = objectBody(req);
    if ('response' in body) return body.response;
    const result = this.store.update(resource, id, body.value, culture);
    if (!result.ok) return this.writeFailure(result, 404);
    this.ctx.markDirty();
    return noContent();
  }

  private remove(resource: Resource, id: number): SandboxResponse {
    const result = this.store.delete(resource, id);
    if (!result.ok) return this.writeFailure(result, 404);
    this.ctx.markDirty();
    return noContent();
  }

  /** Missing DAM assets: 400 on POST, 404 (message with the reason) on PATCH, as the spec says. */
  private writeFailure(
    result: Exclude<WriteResult, { ok: true }>,
    missingAssetStatus: 400 | 404,
  ): SandboxResponse {
    const f = result.failure;
    if (f.kind === 'not-found') return problem(404, 'Not Found', f.detail);
    if (f.kind === 'missing-asset' && missingAssetStatus === 404) {
      return problem(404, 'Not Found', f.failures.map((x) => x.message).join('; '));
    }
    // Field names come from the request body: a plain `{}` would find `constructor` on its prototype.
    const byField: Record<string, ValidationFailure[]> = Object.create(null);
    for (const x of f.failures) {
      const list = byField[x.field] ?? [];
      list.push({ PropertyName: x.field, ErrorMessage: x.message, AttemptedValue: x.attempted ?? null });
      byField[x.field] = list;
    }
    return validationFailures(byField);
  }

  // ---------- changelog ----------

  private changelog(req: SandboxRequest, resource: Resource, itemId?: number): SandboxResponse {
    const entries = this.store.changelog.entries(resource.logName, itemId);
    return changelogCollection(
      entries,
      req.query,
      `${this.base}${req.rawPath}`,
      `${this.base}/$metadata#Changelog`,
    );
  }

  // ---------- layouts ----------

  private layout(
    req: SandboxRequest,
    slot: { get(): Layout | null; set(layout: Layout): void },
    fields: FieldDef[],
  ): SandboxResponse {
    return this.only(req, ['GET', 'PUT'], () => {
      const current = slot.get();
      if (!current) return problem(404, 'Not Found', 'No form layout exists for this resource', req.rawPath);
      if (req.method === 'GET') return json(200, current);
      const body = req.json();
      const problems = layoutProblems(body, new Set(fields.map((f) => f.name)));
      if (problems.length) return layoutFailure(problems, body);
      slot.set(copyLayout(body as Layout));
      this.ctx.markDirty();
      return noContent();
    });
  }

  // ---------- custom entities ----------

  private customEntities(
    req: SandboxRequest,
    first: Segment,
    rest: Segment[],
    culture: string,
  ): SandboxResponse {
    if (!first.key) {
      if (rest.length === 1 && rest[0]!.name === '$metadata' && !rest[0]!.key) {
        return this.only(req, ['GET'], () => this.meta(req, this.metadata.customEntities()));
      }
      return notFoundPath(req.method, req.rawPath);
    }
    const denominator = String(first.key.value);
    const resource = first.key.kind === 'string' ? this.store.custom.get(denominator) : undefined;
    if (!resource) {
      const known = [...this.store.custom.keys()].map((d) => `'${d}'`).join(', ');
      return problem(
        404,
        'Not Found',
        `No custom entity '${denominator}'; this tenant has ${known}`,
        req.rawPath,
      );
    }
    const collectionUrl = `${this.base}/CustomEntities('${encodeURIComponent(denominator).replace(/'/g, "''")}')`;
    if (rest.length === 0) {
      return this.only(req, ['GET', 'POST'], () =>
        req.method === 'GET'
          ? this.list(req, resource, collectionUrl, culture)
          : this.create(req, resource, collectionUrl, culture),
      );
    }
    const [sub] = rest as [Segment];
    if (rest.length > 1) return notFoundPath(req.method, req.rawPath);
    if (sub.name === '$metadata' && !sub.key)
      return this.only(req, ['GET'], () => this.meta(req, this.metadata.resource(resource.def)));
    if (sub.name === 'layout' && !sub.key) {
      const layouts = this.store.customLayouts;
      return this.layout(
        req,
        { get: () => layouts.get(denominator) ?? null, set: (l) => layouts.set(denominator, l) },
        resource.def.fields,
      );
    }
    if (sub.name === 'Changelog') {
      if (!sub.key) return this.only(req, ['GET'], () => this.changelog(req, resource));
      const itemId = intKey(sub);
      if (itemId === undefined)
        return problem(404, 'Not Found', `No ${denominator} item with id ${sub.key.value}`, req.rawPath);
      return this.only(req, ['GET'], () => this.changelog(req, resource, itemId));
    }
    if (sub.name === 'item' && sub.key) {
      const id = intKey(sub);
      return this.only(req, ['GET', 'PATCH', 'DELETE'], () => {
        if (id === undefined || (!resource.table.get(id) && req.method !== 'PATCH')) {
          return problem(404, 'Not Found', `No ${denominator} item with id ${sub.key!.value}`, req.rawPath);
        }
        if (req.method === 'GET')
          return this.entity(req, resource, id, `${collectionUrl}/item(${id})`, culture);
        if (req.method === 'PATCH') return this.patch(req, resource, id, culture);
        return this.remove(resource, id);
      });
    }
    return notFoundPath(req.method, req.rawPath);
  }

  // ---------- attribute sets ----------

  private legacyAttributeSets(
    req: SandboxRequest,
    first: Segment,
    rest: Segment[],
    culture: string,
  ): SandboxResponse {
    const url = `${this.base}/AttributeSets`;
    if (!first.key) {
      if (rest.length === 0) {
        return this.only(req, ['GET'], () =>
          runCollectionQuery(this.setView, {
            url,
            context: `${this.base}/$metadata#AttributeSets`,
            query: req.query,
            culture,
          }),
        );
      }
      if (rest.length === 1 && rest[0]!.name === '$metadata' && !rest[0]!.key) {
        return this.only(req, ['GET'], () => this.meta(req, this.metadata.attributeSet()));
      }
      return notFoundPath(req.method, req.rawPath);
    }
    const id = intKey(first);
    const record = id === undefined ? undefined : this.store.attributeSets.get(id);
    if (!record) return problem(404, 'Not Found', `No attribute set with id ${first.key.value}`, req.rawPath);
    const entityUrl = `${url}(${id})`;
    if (rest.length === 0) {
      return this.only(req, ['GET'], () => {
        const select = parseSelectOption(req.query.get('$select'), this.setView);
        const expand = parseExpand(req.query.get('$expand'), this.setView.expandable);
        return json(200, {
          '@readLink': entityUrl,
          '@editLink': entityUrl,
          '@etag': `W/"${id}"`,
          '@context': `${this.base}/$metadata#AttributeSets/$entity`,
          value: this.setView.present(record, culture, select, expand),
        });
      });
    }
    if (rest.length === 1 && rest[0]!.name === 'Products' && !rest[0]!.key) {
      return this.only(req, ['GET'], () =>
        runCollectionQuery(this.view(this.store.products), {
          url: `${entityUrl}/Products`,
          context: `${this.base}/$metadata#Products`,
          query: req.query,
          culture,
          scope: this.store.productIdsOfSet(id!),
        }),
      );
    }
    return notFoundPath(req.method, req.rawPath);
  }
}

/** The `@context` fragment: the collection, or `CustomEntities('<denominator>')` percent-encoded. */
function contextName(resource: Resource): string {
  const def = resource.def;
  return def.kind === 'CustomEntity'
    ? `CustomEntities('${encodeURIComponent(def.collection)}')`
    : def.collection;
}

function intKey(segment: Segment): number | undefined {
  return segment.key?.kind === 'int' ? segment.key.value : undefined;
}

function layoutFailure(problems: string[], attempted: unknown): SandboxResponse {
  return validationFailures({
    layout: problems.map((p) => ({
      PropertyName: 'layout',
      ErrorMessage: p,
      AttemptedValue: attempted ?? null,
    })),
  });
}
