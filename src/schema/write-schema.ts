// Write-schemas: the tenant's read schemas (as a TenantModel) adapted to what a POST/PATCH body may hold.
// Read-only fields are left out (additionalProperties refuses them), the ref is always required (rows are
// matched by it), other required fields only on create; multilingual fields take a value or
// `{culture: value}` for tenant languages; asset fields take names (one, or a list when several).
import type { FieldValue, Value } from '../mappers/types.js';
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

/**
 * Says whether a draft certainly passes the write-schema, without building the body or running Ajv.
 * Why it exists: most rows are valid, and for them Ajv plus the body it needs cost more than the mapping.
 * It is one-sided on purpose: `true` only for what it fully understands (a subset of `buildWriteSchema`);
 * anything else (a wrong or unusual value, an unknown field, an untyped field) answers `false`, and the
 * caller runs Ajv, which alone writes the messages.
 */
export type FastCheck = (
  fields: Record<string, FieldValue>,
  cultures: Record<string, Record<string, FieldValue>>,
) => boolean;

/** A JSON Schema format test (Ajv's own, so both agree); undefined when it cannot be called plainly. */
export type FormatTest = (text: string) => boolean;

export interface FieldCheck {
  multilingual: boolean;
  /** Languages a `{culture: value}` may hold. */
  languages: Set<string>;
  /** A whole value (one scalar, a list, or null). */
  value: (value: FieldValue) => boolean;
}

/** The fields the fast check understands, each with its test; a field it leaves to Ajv is absent. */
export function buildFieldChecks(
  entity: EntityModel,
  model: TenantModel,
  formatTest: (format: string) => FormatTest | undefined,
): Map<string, FieldCheck> {
  const checks = new Map<string, FieldCheck>();
  for (const field of entity.fields) {
    if (field.readOnly) continue;
    const value = valueCheck(field, formatTest);
    // A multilingual schema puts `enum` beside `type: [..., 'object']`: only Ajv knows what it makes of that.
    if (!value || (field.multilingual && field.enum)) continue;
    const languages = new Set(field.languages ?? model.languages);
    checks.set(field.name, { multilingual: field.multilingual, languages, value });
  }
  return checks;
}

export function buildFastCheck(
  entity: EntityModel,
  model: TenantModel,
  mode: WriteMode,
  formatTest: (format: string) => FormatTest | undefined,
): FastCheck {
  const checks = buildFieldChecks(entity, model, formatTest);
  const required = [entity.refField];
  if (mode === 'create')
    for (const f of entity.fields)
      if (f.required && !f.readOnly && f.name !== entity.refField) required.push(f.name);
  const base = model.baseLanguage;
  return (fields, cultures) => {
    for (const name in fields) {
      const check = checks.get(name);
      if (!check?.value(fields[name]!)) return false;
      // A base-language value is sent as `{base: value}`: the field must take that language.
      if (check.multilingual && !check.languages.has(base)) return false;
    }
    for (const culture in cultures) {
      const values = cultures[culture]!;
      for (const name in values) {
        const check = checks.get(name);
        if (!check?.multilingual || !check.languages.has(culture)) return false;
        if (!check.value(values[name]!)) return false;
      }
    }
    for (const name of required) if (!has(name, fields, cultures)) return false;
    return true;
  };
}

function has(
  name: string,
  fields: Record<string, FieldValue>,
  cultures: Record<string, Record<string, FieldValue>>,
): boolean {
  if (fields[name] !== undefined) return true;
  for (const culture in cultures) if (cultures[culture]![name] !== undefined) return true;
  return false;
}

/** The test of `valueSchema(field)`, or undefined when the fast check leaves the field to Ajv. */
function valueCheck(
  field: FieldModel,
  formatTest: (format: string) => FormatTest | undefined,
): ((value: FieldValue) => boolean) | undefined {
  const scalar = scalarCheck(field, formatTest);
  if (!scalar) return undefined;
  // Ajv applies `enum` to null too (and a nullable enum field does not list null): leave null to Ajv there.
  const nullable = !field.required && !field.enum;
  if (field.multiple) {
    return (value) => {
      if (value === null) return nullable;
      // Asset fields also take one comma-separated string (no other keyword applies to it).
      if (!Array.isArray(value)) return field.asset !== undefined && typeof value === 'string';
      for (const item of value) if (!scalar(item)) return false;
      return true;
    };
  }
  return (value) => (value === null ? nullable : !Array.isArray(value) && scalar(value));
}

/** The test of `scalarSchema(field)` for one non-null value. */
function scalarCheck(
  field: FieldModel,
  formatTest: (format: string) => FormatTest | undefined,
): ((value: Value) => boolean) | undefined {
  if (field.asset) return (value) => typeof value === 'string';
  let type: (value: Value) => boolean;
  let format: string | undefined;
  switch (field.type) {
    case 'integer':
      type = (value) => Number.isInteger(value);
      break;
    case 'number':
      type = (value) => typeof value === 'number' && Number.isFinite(value);
      break;
    case 'boolean':
      type = (value) => typeof value === 'boolean';
      break;
    case 'date':
    case 'date-time':
      type = (value) => typeof value === 'string';
      format = field.type;
      break;
    case 'string':
      type = (value) => typeof value === 'string';
      if (field.format === 'date' || field.format === 'date-time') format = field.format;
      break;
    default:
      return undefined;
  }
  const tests: Array<(value: Value) => boolean> = [type];
  if (format !== undefined) {
    const test = formatTest(format);
    if (!test) return undefined;
    tests.push((value) => typeof value !== 'string' || test(value));
  }
  const { maxLength, pattern } = field;
  // UTF-16 length >= code points (what maxLength counts): within it is certainly within; beyond, Ajv decides.
  if (maxLength !== undefined) tests.push((value) => typeof value !== 'string' || value.length <= maxLength);
  if (pattern !== undefined) {
    let re: RegExp;
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      return undefined;
    }
    tests.push((value) => typeof value !== 'string' || re.test(value));
  }
  if (field.enum) {
    const allowed = new Set<unknown>(field.enum);
    tests.push((value) => allowed.has(value));
  }
  if (tests.length === 1) return type;
  return (value) => {
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
}
