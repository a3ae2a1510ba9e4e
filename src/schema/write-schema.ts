// Write-schemas: the tenant's read schemas (as a TenantModel) adapted to what a POST/PATCH body may hold.
// Read-only fields are left out (additionalProperties refuses them), the ref is always required (rows are
// matched by it), other required fields only on create; multilingual fields take a value or
// `{culture: value}` for tenant languages; asset fields take names (one, or a list when several).
import type { EntityModel, FieldModel, TenantModel } from './model.js';

export type JsonSchema = Record<string, unknown>;

export type WriteMode = 'create' | 'upsert';

export function buildWriteSchema(entity: EntityModel, model: TenantModel, mode: WriteMode): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of entity.fields) {
    if (field.readOnly) continue;
    properties[field.name] = fieldSchema(field, model);
  }
  const required = new Set([entity.refField]);
  if (mode === 'create') for (const f of entity.fields) if (f.required && !f.readOnly) required.add(f.name);
  return { type: 'object', properties, required: [...required], additionalProperties: false };
}

export function fieldSchema(field: FieldModel, model: TenantModel): JsonSchema {
  const one = valueSchema(field);
  if (!field.multilingual) return one;
  // One schema for both write shapes: keywords of the value apply to strings/arrays, the object keywords
  // to `{culture: value}`; no anyOf, so an error points at the one culture that is wrong.
  const languages = Object.fromEntries((field.languages ?? model.languages).map((l) => [l, one]));
  return { ...one, type: [...types(one), 'object'], properties: languages, additionalProperties: false };
}

function valueSchema(field: FieldModel): JsonSchema {
  const scalar = scalarSchema(field);
  const nullable = (s: JsonSchema): JsonSchema =>
    field.required ? s : { ...s, type: [...types(s), 'null'] };
  if (field.multiple) {
    // Several values: a list; asset fields also take one comma-separated string, as the API does.
    return nullable({ type: field.asset ? ['array', 'string'] : 'array', items: scalar });
  }
  return nullable(scalar);
}

function scalarSchema(field: FieldModel): JsonSchema {
  if (field.asset) return { type: 'string' };
  const s: JsonSchema = {};
  switch (field.type) {
    case 'integer':
    case 'number':
    case 'boolean':
      s.type = field.type;
      break;
    case 'date':
    case 'date-time':
      s.type = 'string';
      s.format = field.type;
      break;
    case 'string':
      s.type = 'string';
      if (field.format === 'date' || field.format === 'date-time') s.format = field.format;
      break;
    default:
      // object / array / unknown: the tenant's schema says too little to check more than "something".
      break;
  }
  if (field.maxLength !== undefined) s.maxLength = field.maxLength;
  if (field.pattern !== undefined) s.pattern = field.pattern;
  if (field.enum) s.enum = field.enum;
  return s;
}

function types(s: JsonSchema): string[] {
  const t = s.type;
  if (t === undefined) return ['string', 'number', 'integer', 'boolean', 'array'];
  return Array.isArray(t) ? (t as string[]) : [t as string];
}
