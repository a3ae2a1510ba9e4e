// The v2 (typed) attribute-set endpoints: `{ identifier, name, isDefault, ProductLayout, VariantLayout }`,
// `default` as a case-insensitive id, and a default set that cannot be deleted. They share their
// records with the legacy OData-style view (typ_id, typ_title, typ_stat).
import type { ServiceContext } from '../context.js';
import {
  json,
  methodNotAllowed,
  noContent,
  problem,
  type SandboxRequest,
  type SandboxResponse,
  type ValidationFailure,
  validationFailures,
} from '../http.js';
import { objectBody } from './body.js';
import { copyLayout, layoutProblems } from './layouts.js';
import type { Layout } from './model.js';
import type { Segment } from './path.js';
import type { AttributeSetRecord, CatalogStore } from './store.js';
import { codePoints } from './values.js';

export class AttributeSetsV2 {
  constructor(
    private readonly store: CatalogStore,
    private readonly ctx: ServiceContext,
  ) {}

  private get base(): string {
    return this.ctx.urls.catalogUrl;
  }

  handle(req: SandboxRequest, segment: Segment): SandboxResponse {
    const url = `${this.base}/v2/AttributeSets`;
    const sets = this.store.attributeSets;
    if (!segment.key) {
      return only(req, ['GET', 'POST'], () => {
        if (req.method === 'GET')
          return json(200, { value: [...sets.values()].map((r) => v2Shape(r as AttributeSetRecord)) });
        const body = objectBody(req);
        if ('response' in body) return body.response;
        const checked = this.checkV2Body(body.value, 'create');
        if ('response' in checked) return checked.response;
        const empty: Layout = { sections: [] };
        const id = this.store.createAttributeSet(
          checked.name!,
          checked.productLayout ?? empty,
          checked.variantLayout ?? structuredClone(empty),
        );
        this.ctx.markDirty();
        return json(201, v2Shape(sets.get(id) as AttributeSetRecord), { location: `${url}(${id})` });
      });
    }
    const k = segment.key;
    const isDefault = k.kind === 'word' && k.value.toLowerCase() === 'default';
    if (!isDefault && !(k.kind === 'int' && k.value > 0)) {
      return validationFailures({
        id: [
          {
            PropertyName: 'id',
            ErrorMessage: `The attribute set id must be a positive integer or 'default', found '${k.value}'`,
            AttemptedValue: k.value,
          },
        ],
      });
    }
    const id = isDefault ? this.store.defaultAttributeSetId() : (k.value as number);
    const record = id === undefined ? undefined : (sets.get(id) as AttributeSetRecord | undefined);
    return only(req, ['GET', 'PATCH', 'DELETE'], () => {
      if (!record || id === undefined)
        return problem(404, 'Not Found', `No attribute set with id ${k.value}`, req.rawPath);
      if (req.method === 'GET') return json(200, v2Shape(record));
      if (req.method === 'DELETE') {
        if (isDefault || record.typ_default) {
          return validationFailures({
            id: [
              {
                PropertyName: 'id',
                ErrorMessage: 'The default attribute set cannot be deleted',
                AttemptedValue: k.value,
              },
            ],
          });
        }
        this.store.deleteAttributeSet(id);
        this.ctx.markDirty();
        return noContent();
      }
      const body = objectBody(req);
      if ('response' in body) return body.response;
      const checked = this.checkV2Body(body.value, 'update');
      if ('response' in checked) return checked.response;
      const updated: AttributeSetRecord = { ...record };
      if (checked.name !== undefined) updated.typ_title = checked.name;
      if (checked.productLayout) updated.product_layout = checked.productLayout;
      if (checked.variantLayout) updated.variant_layout = checked.variantLayout;
      sets.replace(updated);
      this.ctx.markDirty();
      return noContent();
    });
  }

  private checkV2Body(
    body: Record<string, unknown>,
    mode: 'create' | 'update',
  ): { name?: string; productLayout?: Layout; variantLayout?: Layout } | { response: SandboxResponse } {
    // Keys come from the request body: a plain `{}` would find `constructor` on its prototype.
    const failures: Record<string, ValidationFailure[]> = Object.create(null);
    const add = (key: string, message: string, attempted: unknown) => {
      failures[key] = [
        ...(failures[key] ?? []),
        { PropertyName: key, ErrorMessage: message, AttemptedValue: attempted ?? null },
      ];
    };
    for (const key of Object.keys(body)) {
      if (!['name', 'ProductLayout', 'VariantLayout'].includes(key))
        add(key, `Unknown member '${key}': use name, ProductLayout, VariantLayout`, body[key]);
    }
    const name = body.name;
    if (name !== undefined || mode === 'create') {
      if (typeof name !== 'string' || name.trim() === '')
        add('name', 'name is required: a non-empty text', name);
      else if (codePoints(name) > 255)
        add('name', `name is ${codePoints(name)} characters long; the maximum is 255`, name);
    }
    const layouts: Record<string, Layout | undefined> = Object.create(null);
    for (const [key, fields] of [
      ['ProductLayout', this.store.products.def.fields],
      ['VariantLayout', this.store.variants.def.fields],
    ] as const) {
      if (body[key] === undefined) continue;
      const problems = layoutProblems(body[key], new Set(fields.map((f) => f.name)), key);
      if (problems.length) add(key, problems.join('; '), body[key]);
      else layouts[key] = copyLayout(body[key] as Layout);
    }
    if (Object.keys(failures).length) return { response: validationFailures(failures) };
    return {
      name: typeof name === 'string' ? name : undefined,
      productLayout: layouts.ProductLayout,
      variantLayout: layouts.VariantLayout,
    };
  }
}

function only(req: SandboxRequest, allowed: string[], run: () => SandboxResponse): SandboxResponse {
  if (!allowed.includes(req.method)) return methodNotAllowed(req.method, req.rawPath, allowed);
  return run();
}

function v2Shape(r: AttributeSetRecord): Record<string, unknown> {
  return {
    identifier: r.typ_id,
    name: r.typ_title,
    isDefault: r.typ_default,
    ProductLayout: r.product_layout,
    VariantLayout: r.variant_layout,
  };
}
