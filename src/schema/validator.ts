// Checks drafts against the write-schemas: Ajv schemas compiled ONCE per run (lazily, per entity and mode),
// errors turned into sentences that name the source column and value.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { CatalogIoError } from '../errors.js';
import type { Draft, DraftLinks, FieldValue, RowIssue } from '../mappers/types.js';
import { isCanonicalDateTime, isFullDate } from './dates.js';
import { sentenceFor } from './messages.js';
import type { EntityModel, TenantModel } from './model.js';
import {
  buildFastCheck,
  buildFieldChecks,
  buildWriteSchema,
  type FastCheck,
  type FieldCheck,
  type FormatTest,
  type WriteMode,
} from './write-schema.js';

/** The answer for the common valid draft: one shared empty list (callers only read it). */
const NO_ISSUES: readonly RowIssue[] = [];

// ajv-formats is CommonJS: at run time the default import is the plugin function itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** What validating one entity needs, worked out once per run. */
interface EntityChecks {
  entity: EntityModel;
  multilingual: Set<string>;
  create?: ValidateFunction;
  upsert?: ValidateFunction;
  fastCreate?: FastCheck;
  fastUpsert?: FastCheck;
  fields?: Map<string, FieldCheck>;
  /** The same tests for values whose date or date-time format the caller has already checked. */
  fieldsSettled?: Map<string, Map<string, FieldCheck>>;
}

/** One validator per model: it holds only what it compiled, so checkers of the same model share it. */
const shared = new WeakMap<TenantModel, DraftValidator>();

export class DraftValidator {
  private readonly ajv: Ajv;
  private readonly checks = new Map<string, EntityChecks>();

  /** The model's validator, compiled once however many checkers use it. */
  static for(model: TenantModel): DraftValidator {
    let validator = shared.get(model);
    if (!validator) {
      validator = new DraftValidator(model);
      shared.set(model, validator);
    }
    return validator;
  }

  constructor(private readonly model: TenantModel) {
    // The write-schemas are built here, from the model: not checked against the meta-schema at run time
    // (test/schema covers them), which saves compiling it on every start. Ajv's optimizing pass is left
    // out too: a write-schema is compiled at a file's first doubtful row, and its code then runs only for
    // rows the fast checks doubt (a fifth less compiling, on every run with an invalid row).
    this.ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, code: { optimize: false } });
    addFormats(this.ajv, ['date', 'date-time']);
  }

  validate(draft: Draft): readonly RowIssue[] {
    const checks = this.checksFor(draft.entity);
    const { entity } = checks;
    if (draft.command === 'DELETE') {
      return draft.ref
        ? []
        : [
            issueFor(
              draft,
              entity.refField,
              undefined,
              `the reference ${entity.refField} is missing: every row needs one`,
            ),
          ];
    }
    const mode = draft.command === 'NEW' ? 'create' : 'upsert';
    let issues = NO_ISSUES as RowIssue[];
    // The common valid row is settled here without a body or Ajv; any doubt goes to Ajv for the messages.
    const certainlyValid = this.fastCheckFor(checks, mode)(draft.fields, draft.cultures);
    const body = certainlyValid ? undefined : bodyOf(draft, checks.multilingual, this.model.baseLanguage);
    const check = body && this.schemaFor(checks, mode);
    if (body && check && !check(body)) {
      const seen = new Set<string>();
      for (const error of check.errors ?? []) {
        const sentence = sentenceFor(error, { model: this.model, entity, body });
        const key = `${sentence.field ?? ''}\u0000${sentence.brief}`;
        // A multi-type schema can report one bad value twice (type, then enum): the first says enough.
        if (seen.has(sentence.field ?? key)) continue;
        seen.add(sentence.field ?? key);
        if (issues === NO_ISSUES) issues = [];
        issues.push(issueFor(draft, sentence.field, sentence.value, sentence.brief, sentence.message));
      }
    }
    const { links } = draft;
    for (const kind in links) {
      // Paths of titles are not references: the refs made from them are checked as categoryRefs.
      if (kind === 'categoryPaths') continue;
      const refs = links[kind as keyof DraftLinks]!;
      const empty =
        kind === 'byField'
          ? Object.values(refs as Record<string, string | string[]>).some(hasEmptyRef)
          : hasEmptyRef(refs as string | string[]);
      if (!empty) continue;
      if (issues === NO_ISSUES) issues = [];
      issues.push(issueFor(draft, `link:${kind}`, refs, 'a reference to another record is empty'));
    }
    return issues;
  }

  private checksFor(name: string): EntityChecks {
    let checks = this.checks.get(name);
    if (!checks) {
      const entity = this.model.entity(name);
      if (!entity)
        throw new CatalogIoError('SCHEMA_UNKNOWN_ENTITY', `Entity "${name}" is not in this tenant`);
      checks = {
        entity,
        multilingual: new Set(entity.fields.filter((f) => f.multilingual).map((f) => f.name)),
      };
      this.checks.set(name, checks);
    }
    return checks;
  }

  /**
   * The test one value of `field` (in `culture`; undefined: the base language) must pass for the fast
   * check to accept a draft holding it; undefined when the fast check leaves that value to Ajv. For
   * callers that check a row's values one by one before any draft is built. `settledFormat`: the caller
   * has read the value in that format's canonical form already (`date`, `date-time`), so it is not tested
   * twice.
   */
  fieldCheck(
    entityName: string,
    field: string,
    culture: string | undefined,
    settledFormat?: string,
  ): FieldCheck['value'] | undefined {
    const checks = this.checksFor(entityName);
    let fields: Map<string, FieldCheck>;
    if (settledFormat === undefined) {
      checks.fields ??= buildFieldChecks(checks.entity, this.model, (name) => formatTestOf(this.ajv, name));
      fields = checks.fields;
    } else {
      checks.fieldsSettled ??= new Map();
      let settled = checks.fieldsSettled.get(settledFormat);
      if (!settled) {
        settled = buildFieldChecks(checks.entity, this.model, (name) =>
          name === settledFormat ? passes : formatTestOf(this.ajv, name),
        );
        checks.fieldsSettled.set(settledFormat, settled);
      }
      fields = settled;
    }
    const check = fields.get(field);
    if (!check) return undefined;
    if (check.multilingual) {
      if (!check.languages.has(culture ?? this.model.baseLanguage)) return undefined;
    } else if (culture !== undefined) return undefined;
    return check.value;
  }

  /** Built on first use, once per run, with Ajv's own format tests. */
  private fastCheckFor(checks: EntityChecks, mode: WriteMode): FastCheck {
    const key = mode === 'create' ? 'fastCreate' : 'fastUpsert';
    let fn = checks[key];
    if (!fn) {
      fn = buildFastCheck(checks.entity, this.model, mode, (name) => formatTestOf(this.ajv, name));
      checks[key] = fn;
    }
    return fn;
  }

  /** Compiled on first use, once per run. */
  private schemaFor(checks: EntityChecks, mode: WriteMode): ValidateFunction {
    let fn = checks[mode];
    if (!fn) {
      fn = this.ajv.compile(buildWriteSchema(checks.entity, this.model, mode));
      checks[mode] = fn;
    }
    return fn;
  }
}

/** The body as the import would send it: multilingual values as `{culture: value}` objects. */
export function writeBody(draft: Draft, model: TenantModel): Record<string, unknown> {
  const fields = model.entity(draft.entity)?.fields ?? [];
  return bodyOf(draft, new Set(fields.filter((f) => f.multilingual).map((f) => f.name)), model.baseLanguage);
}

function bodyOf(draft: Draft, multilingual: Set<string>, base: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name in draft.fields) {
    const value = draft.fields[name]!;
    body[name] = multilingual.has(name) ? { [base]: value } : value;
  }
  for (const culture in draft.cultures) {
    const fields = draft.cultures[culture]!;
    for (const name in fields) {
      const value = fields[name]!;
      const current = body[name];
      const perCulture: Record<string, FieldValue> =
        current && typeof current === 'object' && !Array.isArray(current)
          ? (current as Record<string, FieldValue>)
          : {};
      perCulture[culture] = value;
      body[name] = perCulture;
    }
  }
  return body;
}

const passes: FormatTest = () => true;

/** The format as Ajv tests it, when it is a plain synchronous test. */
function formatTestOf(ajv: Ajv, name: string): FormatTest | undefined {
  const test = ajvFormatTest(ajv, name);
  // The usual date cell is read here in one pass; anything else is left to ajv-formats' own test.
  if (name === 'date' && test) return (text) => (text.length === 10 ? isFullDate(text) : test(text));
  // The canonical UTC date-time likewise; any other form (or an impossible value) goes to ajv-formats.
  if (name === 'date-time' && test) return (text) => isCanonicalDateTime(text) === true || test(text);
  return test;
}

function ajvFormatTest(ajv: Ajv, name: string): FormatTest | undefined {
  const format = ajv.formats[name];
  if (typeof format === 'function') return (text) => format(text) === true;
  if (format instanceof RegExp) return (text) => format.test(text);
  if (format && typeof format === 'object' && !format.async) {
    const { validate } = format;
    if (typeof validate === 'function') return (text) => (validate as (t: string) => unknown)(text) === true;
    if (validate instanceof RegExp) return (text) => validate.test(text);
  }
  return undefined;
}

function hasEmptyRef(refs: string | string[]): boolean {
  if (!Array.isArray(refs)) return typeof refs !== 'string' || refs.trim() === '';
  for (const ref of refs) if (typeof ref !== 'string' || ref.trim() === '') return true;
  return false;
}

function issueFor(
  draft: Draft,
  field: string | undefined,
  value: unknown,
  brief: string,
  message = brief,
): RowIssue {
  const columns = draft.source.columns;
  const column = field === undefined ? undefined : (columns[field] ?? columns[field.split('.')[0]!]);
  return {
    code: 'VALIDATION',
    severity: 'error',
    ...(field !== undefined && { field }),
    ...(column !== undefined && { column }),
    ...(value !== undefined && { value }),
    message,
    brief,
  };
}
