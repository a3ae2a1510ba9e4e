// Ajv errors -> sentences a person who never saw JSON Schema understands, with the source column and the
// value found: `column "Price": must be a number, got "12,5O"`. Callers add the location.
import type { ErrorObject } from 'ajv';
import type { Cell } from '../readers/types.js';
import type { EntityModel, FieldModel, TenantModel } from './model.js';

/** A value as a person would recognise it in their file: text quoted, long text cut, lists joined. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null || value === '') return 'an empty value';
  if (Array.isArray(value)) return `[${value.map((v) => describeValue(v)).join(', ')}]`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return String(value);
}

/** What a field holds, in words: "a number", "a date (YYYY-MM-DD)", "a list of whole numbers". */
export function expectedOf(field: FieldModel): string {
  const one = scalarWords(field);
  return field.multiple ? `a list of ${plural(one)}` : one;
}

function scalarWords(field: FieldModel): string {
  if (field.asset) return `a DAM ${field.asset} name or URL`;
  switch (field.type) {
    case 'integer':
      return 'a whole number';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'yes or no';
    case 'date':
      return 'a date (YYYY-MM-DD)';
    case 'date-time':
      return 'a date and time (YYYY-MM-DDThh:mm:ssZ)';
    default:
      return 'text';
  }
}

function plural(words: string): string {
  return words.replace(/^an? /, '').replace(/(number|name|date)\b/, '$1s');
}

export interface ErrorContext {
  model: TenantModel;
  entity: EntityModel;
  /** The body that was validated, to quote the value. */
  body: Record<string, unknown>;
}

export interface Sentence {
  /** `prod_title.fr`, `frmt_price`, or undefined for the whole row. */
  field?: string;
  value?: unknown;
  message: string;
  /** The message without the value, for counting equal problems. */
  brief: string;
}

/** One Ajv error as a sentence (without column or location: the caller knows the source). */
export function sentenceFor(error: ErrorObject, ctx: ErrorContext): Sentence {
  const segments = error.instancePath.split('/').slice(1).map(unescapePointer);
  const fieldName = segments[0];
  const field = fieldName ? ctx.entity.field(fieldName) : undefined;
  const culture = field?.multilingual && segments[1] && !/^\d+$/.test(segments[1]) ? segments[1] : undefined;
  const path = fieldName ? (culture ? `${fieldName}.${culture}` : fieldName) : undefined;
  const value = valueAt(ctx.body, segments);
  // Invalid rows of a large file each come here: the value is described only for a message that shows it.
  const make = (brief: string, withValue = true): Sentence => {
    const sentence: Sentence = {
      brief,
      message: withValue ? `${brief}, got ${describeValue(value)}` : brief,
    };
    if (path !== undefined) sentence.field = path;
    if (withValue) sentence.value = value;
    return sentence;
  };
  const withFound = (expected: string): Sentence => {
    const said = `${expected} (found ${describeValue(value)})`;
    const sentence: Sentence = { value, brief: said, message: said };
    if (path !== undefined) sentence.field = path;
    return sentence;
  };
  switch (error.keyword) {
    case 'required': {
      const missing = String(error.params.missingProperty);
      const brief =
        missing === ctx.entity.refField
          ? `the reference ${missing} is missing: every row needs one`
          : `${missing} is required when a new ${singular(ctx.entity)} is created`;
      return { field: missing, brief, message: brief };
    }
    case 'additionalProperties': {
      const extra = String(error.params.additionalProperty);
      if (field?.multilingual) {
        const brief = field.languages
          ? `has no language "${extra}": this field's languages are ${field.languages.join(', ')}`
          : `has no language "${extra}": this tenant's languages are ${ctx.model.languages.join(', ')}`;
        return {
          field: `${fieldName}.${extra}`,
          value: valueAt(ctx.body, [...segments, extra]),
          brief,
          message: brief,
        };
      }
      const known = ctx.entity.field(extra);
      const brief = known?.readOnly
        ? `${extra} is read-only: the server sets it, leave it out`
        : `${extra} is not a field of ${ctx.entity.name}`;
      return { field: extra, value: ctx.body[extra], brief, message: brief };
    }
    case 'type':
      return make(`must be ${field ? expectedOf(field) : String(error.params.type)}`);
    case 'format':
      return make(`must be ${field ? scalarWords(field) : `in the ${String(error.params.format)} format`}`);
    case 'maxLength':
      return make(
        `must be at most ${String(error.params.limit)} characters, got ${String(value).length}`,
        false,
      );
    case 'minLength':
      return make(
        value === '' ? 'must not be empty' : `must be at least ${String(error.params.limit)} characters`,
      );
    // The value found is part of the brief too: the summary's line of the problem quotes it (the few
    // values outside a list repeat; a pattern's misfits are told apart by what they are).
    case 'pattern':
      return withFound(`must match the pattern ${String(error.params.pattern)}`);
    case 'enum':
      return withFound(
        `must be one of ${(error.params.allowedValues as unknown[]).map((v) => describeValue(v)).join(', ')}`,
      );
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return make(`must be ${String(error.params.comparison)} ${String(error.params.limit)}`);
    case 'maxItems':
      return make(`must hold at most ${String(error.params.limit)} values`);
    default:
      return make(error.message ?? 'is not valid');
  }
}

/** `line 17, column "Price": must be a number, got "12,5O"`. */
export function fullSentence(
  location: string | undefined,
  column: string | undefined,
  message: string,
): string {
  const where = [location, column !== undefined ? `column "${column}"` : undefined]
    .filter(Boolean)
    .join(', ');
  return where ? `${where}: ${message}` : message;
}

/** The cell text as it appears in a report: lists joined with `|`. */
export function cellText(cell: Cell | undefined): string {
  if (cell === undefined || cell === null) return '';
  if (Array.isArray(cell)) return cell.map(cellText).join('|');
  return String(cell);
}

function singular(entity: EntityModel): string {
  if (entity.kind === 'custom') return `${entity.denominator ?? 'custom entity'} item`;
  return { products: 'product', variants: 'variant', categories: 'category' }[entity.kind];
}

function valueAt(body: unknown, segments: string[]): unknown {
  let at: unknown = body;
  for (const s of segments) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[s];
  }
  return at;
}

function unescapePointer(segment: string): string {
  return segment.includes('~') ? segment.replace(/~1/g, '/').replace(/~0/g, '~') : segment;
}
