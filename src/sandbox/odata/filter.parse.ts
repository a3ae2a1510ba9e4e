// $filter parser: recursive descent over the tokens, checking each property and literal against the
// schema as it goes, so a bad filter fails on its first mistake with the property and value named.
//
//   or      := and ('or' and)*
//   and     := unary ('and' unary)*
//   unary   := 'not' unary | primary
//   primary := '(' or ')' | func '(' field ',' string ')' [('eq'|'ne') bool]
//            | field op literal | literal op field | field 'in' '(' literal (',' literal)* ')' | boolField

import { lookupField } from './fields.js';
import { fieldsUsed } from './filter.analyze.js';
import { type Token, tokenize } from './lexer.js';
import { nestedPropertyError, propertyError, syntaxError, unknownPropertyError } from './messages.js';
import type {
  ComparisonOp,
  FilterExpr,
  Literal,
  ODataError,
  ODataType,
  QueryField,
  QuerySchema,
} from './types.js';

const PARAMETER = '$filter';
const COMPARISON_OPS: readonly string[] = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'];
const FUNCTIONS: readonly string[] = ['contains', 'startswith', 'endswith'];
const KEYWORDS: readonly string[] = [...COMPARISON_OPS, 'and', 'or', 'not', 'in'];
/** OData functions this service does not implement; anything else is reported as unknown. */
const UNSUPPORTED_FUNCTIONS: readonly string[] = [
  'length',
  'tolower',
  'toupper',
  'trim',
  'concat',
  'substringof',
  'substring',
  'indexof',
  'matchespattern',
  'year',
  'month',
  'day',
  'hour',
  'minute',
  'second',
  'fractionalseconds',
  'date',
  'time',
  'now',
  'totaloffsetminutes',
  'totalseconds',
  'maxdatetime',
  'mindatetime',
  'round',
  'floor',
  'ceiling',
  'cast',
  'isof',
  'geo.distance',
  'geo.intersects',
  'geo.length',
  'hassubset',
  'hassubsequence',
];
const FLIPPED: Record<ComparisonOp, ComparisonOp> = {
  eq: 'eq',
  ne: 'ne',
  gt: 'lt',
  ge: 'le',
  lt: 'gt',
  le: 'ge',
};
/** Bounds recursion so deeply nested input is a clear error instead of a stack overflow. */
const MAX_DEPTH = 100;
/**
 * Bounds the number of conditions: and/or chains build left-deep trees that later passes walk
 * recursively. 2,000 is far above what fits in a URL of the service's ~8,000-character limit.
 */
const MAX_CONDITIONS = 2000;

type FieldToken = { field: QueryField; culture?: string; name: string };
type LiteralToken = Extract<Token, { kind: 'string' | 'number' | 'date' | 'datetime' | 'word' }>;

export function parseFilter(text: string, schema: QuerySchema): FilterExpr {
  const tokens = tokenize(text, { allowOffsets: schema.allowOffsets === true });
  const expr = new FilterParser(text, schema, tokens).parseAll();
  checkRequires(expr, text, schema);
  return expr;
}

class FilterParser {
  private index = 0;
  private depth = 0;
  private conditions = 0;
  /** The one culture this filter may use, fixed by the first `<field>_<culture>` seen. */
  private culture: { name: string; from: string } | undefined;

  constructor(
    private readonly text: string,
    private readonly schema: QuerySchema,
    private readonly tokens: Token[],
  ) {}

  parseAll(): FilterExpr {
    if (this.peek().kind === 'end') throw this.error(this.peek(), 'the filter is empty.');
    const expr = this.parseOr();
    const next = this.peek();
    if (next.kind !== 'end') {
      const detail =
        next.kind === 'rparen'
          ? "found ')' without a matching '('."
          : `expected 'and', 'or' or the end of the filter, found ${this.describe(next)}.`;
      throw this.error(next, detail);
    }
    return expr;
  }

  private parseOr(): FilterExpr {
    let left = this.parseAnd();
    while (this.isWord('or')) {
      this.index++;
      left = { kind: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): FilterExpr {
    let left = this.parseUnary();
    while (this.isWord('and')) {
      this.index++;
      left = { kind: 'and', left, right: this.parseUnary() };
    }
    return left;
  }

  private parseUnary(): FilterExpr {
    const token = this.peek();
    this.enter(token);
    try {
      if (this.isWord('not')) {
        this.index++;
        return { kind: 'not', expr: this.parseUnary() };
      }
      return this.parsePrimary();
    } finally {
      this.depth--;
    }
  }

  private parsePrimary(): FilterExpr {
    const token = this.next();
    if (token.kind !== 'lparen' && ++this.conditions > MAX_CONDITIONS) {
      throw this.error(
        token,
        `the filter has more than ${MAX_CONDITIONS} conditions; split it into several requests.`,
      );
    }
    if (token.kind === 'lparen') {
      const expr = this.parseOr();
      const close = this.next();
      if (close.kind !== 'rparen') {
        throw this.error(
          close,
          `expected ')' to close the '(' at position ${token.pos}, found ${this.describe(close)}.`,
        );
      }
      return expr;
    }
    if (token.kind === 'word' && this.peek().kind === 'lparen' && !isValueWord(token.text)) {
      return this.parseFunction(token);
    }
    if (token.kind === 'word' && !isValueWord(token.text)) {
      if (KEYWORDS.includes(token.text))
        throw this.error(token, `expected a property name, found '${token.text}'.`);
      const field = this.resolveField(token);
      return this.parseComparison(field, token);
    }
    if (isLiteralToken(token)) return this.parseReversedComparison(token);
    throw this.error(token, `expected a property name, a function or '(', found ${this.describe(token)}.`);
  }

  /** `field op literal`, `field in (...)`, or a bare boolean property. */
  private parseComparison(target: FieldToken, fieldToken: Token): FilterExpr {
    const opToken = this.peek();
    if (opToken.kind === 'word' && opToken.text === 'in') {
      this.index++;
      return this.parseIn(target);
    }
    if (opToken.kind === 'word' && COMPARISON_OPS.includes(opToken.text)) {
      this.index++;
      const op = opToken.text as ComparisonOp;
      this.checkOperator(target, op);
      const value = this.parseLiteral(target, op);
      return this.compare(op, target, value);
    }
    if (target.field.type === 'boolean' && this.endsOperand(opToken)) {
      this.checkOperator(target, 'eq');
      return this.compare('eq', target, true);
    }
    if (opToken.kind === 'word' && KEYWORDS.includes(opToken.text.toLowerCase())) {
      throw this.error(
        opToken,
        `unknown operator '${opToken.text}'; operators are lower case ('${opToken.text.toLowerCase()}').`,
      );
    }
    throw this.error(
      opToken,
      `expected an operator ('eq', 'ne', 'gt', 'ge', 'lt', 'le' or 'in') after '${fieldToken.text}', found ${this.describe(opToken)}.`,
    );
  }

  /** `12 lt prod_id` is read as `prod_id gt 12`. */
  private parseReversedComparison(literal: LiteralToken): FilterExpr {
    const opToken = this.next();
    if (opToken.kind !== 'word' || !COMPARISON_OPS.includes(opToken.text)) {
      throw this.error(
        opToken,
        `expected a comparison operator after ${this.describe(literal)}, found ${this.describe(opToken)}.`,
      );
    }
    const fieldToken = this.next();
    if (fieldToken.kind !== 'word' || isValueWord(fieldToken.text) || KEYWORDS.includes(fieldToken.text)) {
      throw this.error(
        fieldToken,
        `a comparison needs a property on one side, found ${this.describe(fieldToken)}.`,
      );
    }
    const target = this.resolveField(fieldToken);
    const op = FLIPPED[opToken.text as ComparisonOp];
    this.checkOperator(target, op);
    const value = this.literalFor(target, literal, op);
    return this.compare(op, target, value);
  }

  private parseIn(target: FieldToken): FilterExpr {
    this.checkOperator(target, 'in');
    const open = this.next();
    if (open.kind !== 'lparen')
      throw this.error(open, `expected '(' after 'in', found ${this.describe(open)}.`);
    const values: Literal[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind === 'rparen' && values.length === 0) throw this.error(token, "the 'in' list is empty.");
      values.push(this.parseLiteral(target, 'in'));
      const separator = this.next();
      if (separator.kind === 'rparen') break;
      if (separator.kind !== 'comma') {
        throw this.error(
          separator,
          `expected ',' or ')' in the 'in' list, found ${this.describe(separator)}.`,
        );
      }
    }
    return { kind: 'in', field: target.field.name, ...cultureOf(target), values };
  }

  private parseFunction(nameToken: Token): FilterExpr {
    const name = nameToken.text;
    if (!FUNCTIONS.includes(name)) {
      const lower = name.toLowerCase();
      const why = FUNCTIONS.includes(lower)
        ? `function names are lower case ('${lower}').`
        : UNSUPPORTED_FUNCTIONS.includes(lower)
          ? 'this function is not supported; supported functions are contains, startswith and endswith.'
          : 'unknown function; supported functions are contains, startswith and endswith.';
      throw this.error(nameToken, `the function '${name}' cannot be used: ${why}`);
    }
    this.next(); // '('
    const fieldToken = this.next();
    if (fieldToken.kind !== 'word' || isValueWord(fieldToken.text) || KEYWORDS.includes(fieldToken.text)) {
      throw this.error(
        fieldToken,
        `the first argument of '${name}' must be a property name, found ${this.describe(fieldToken)}.`,
      );
    }
    const target = this.resolveField(fieldToken);
    const comma = this.next();
    if (comma.kind !== 'comma')
      throw this.error(comma, `expected ',' in '${name}(...)', found ${this.describe(comma)}.`);
    const funcName = name as 'contains' | 'startswith' | 'endswith';
    this.checkOperator(target, funcName);
    if (baseType(target.field.type) !== 'string') {
      throw this.fieldError(
        target,
        `The function '${name}' applies to text properties; '${target.name}' is of type ${target.field.type}.`,
      );
    }
    const valueToken = this.next();
    if (valueToken.kind !== 'string') {
      throw this.fieldError(
        target,
        `The second argument of '${name}' must be a string in single quotes, found ${this.describe(valueToken)}.`,
      );
    }
    const close = this.next();
    if (close.kind !== 'rparen')
      throw this.error(close, `expected ')' to close '${name}(', found ${this.describe(close)}.`);
    const call: FilterExpr = {
      kind: 'func',
      name: funcName,
      field: target.field.name,
      ...cultureOf(target),
      value: valueToken.value,
    };
    return this.parseBooleanSuffix(call);
  }

  /** `contains(f,'x') eq true` and `... eq false` are accepted as OData allows them. */
  private parseBooleanSuffix(call: FilterExpr): FilterExpr {
    const op = this.peek();
    if (op.kind !== 'word' || (op.text !== 'eq' && op.text !== 'ne')) return call;
    this.index++;
    const value = this.next();
    if (value.kind !== 'word' || (value.text !== 'true' && value.text !== 'false')) {
      throw this.error(
        value,
        `a function result can only be compared with true or false, found ${this.describe(value)}.`,
      );
    }
    return (value.text === 'true') === (op.text === 'eq') ? call : { kind: 'not', expr: call };
  }

  private parseLiteral(target: FieldToken, op: string): Literal {
    const token = this.next();
    // A bare word stands where a value should: literalFor says whether it is unquoted text or a property.
    if (token.kind === 'word' && !KEYWORDS.includes(token.text)) return this.literalFor(target, token, op);
    if (!isLiteralToken(token)) {
      throw this.error(token, `expected a value for '${target.name}', found ${this.describe(token)}.`);
    }
    return this.literalFor(target, token, op);
  }

  /** Checks a literal against the field's type and returns its value. */
  private literalFor(target: FieldToken, token: LiteralToken, op: string): Literal {
    const type = baseType(target.field.type);
    if (token.kind === 'word') {
      if (token.text === 'null') return null;
      if (token.text === 'true' || token.text === 'false') {
        if (type !== 'boolean') throw this.mismatch(target, token);
        return token.text === 'true';
      }
      if (token.text.includes('/') || this.peek().kind === 'slash') {
        throw nestedPropertyError(PARAMETER, this.text, token.text);
      }
      const other = lookupField(token.text, this.schema);
      if (other.found) {
        throw this.fieldError(
          target,
          `Comparing two properties is not supported: found '${target.name} ${op} ${token.text}'.`,
        );
      }
      if (type === 'string') {
        throw this.fieldError(
          target,
          `The value for '${target.name}' is text without quotes: found ${token.text}; write it in single quotes ('${token.text}').`,
        );
      }
      throw this.mismatch(target, token);
    }
    if (type === 'string' && token.kind === 'string') return token.value;
    if ((type === 'integer' || type === 'number') && token.kind === 'number') return token.value;
    if ((type === 'date' || type === 'date-time') && (token.kind === 'date' || token.kind === 'datetime')) {
      return token.value;
    }
    throw this.mismatch(target, token);
  }

  private compare(op: ComparisonOp, target: FieldToken, value: Literal): FilterExpr {
    return { kind: 'compare', op, field: target.field.name, ...cultureOf(target), value };
  }

  private resolveField(token: Token): FieldToken {
    if (this.peek().kind === 'slash') {
      let path = token.text;
      while (this.peek().kind === 'slash') {
        this.index++;
        const part = this.peek();
        if (part.kind !== 'word') break;
        path += `/${part.text}`;
        this.index++;
      }
      throw nestedPropertyError(PARAMETER, this.text, path);
    }
    const found = lookupField(token.text, this.schema);
    if (found.found) {
      if (found.culture !== undefined) this.useCulture(found.culture, token.text);
      return { field: found.field, culture: found.culture, name: token.text };
    }
    if (found.reason === 'language') {
      const available = this.schema.languages.join(', ') || 'none';
      throw propertyError(
        PARAMETER,
        this.text,
        token.text,
        `The language '${found.culture}' is not available for property '${found.field.name}'; the catalog has: ${available}.`,
      );
    }
    throw unknownPropertyError(PARAMETER, this.text, token.text, this.schema);
  }

  private useCulture(culture: string, from: string): void {
    if (!this.culture) {
      this.culture = { name: culture, from };
      return;
    }
    if (this.culture.name !== culture) {
      throw propertyError(
        PARAMETER,
        this.text,
        from,
        `A filter may use only one language: found '${this.culture.from}' (${this.culture.name}) and '${from}' (${culture}).`,
      );
    }
  }

  private checkOperator(target: FieldToken, op: string): void {
    const allowed = target.field.operators as readonly string[] | undefined;
    if (allowed && !allowed.includes(op)) {
      throw this.fieldError(
        target,
        `The operator '${op}' cannot be used with property '${target.name}'; allowed: ${allowed.join(', ')}.`,
      );
    }
  }

  private mismatch(target: FieldToken, token: LiteralToken): ODataError {
    return this.fieldError(
      target,
      `Type mismatch for property '${target.name}': expected ${expectedValue(target.field.type)}, found ${this.describe(token)}.`,
    );
  }

  private fieldError(target: FieldToken, detail: string): ODataError {
    return propertyError(PARAMETER, this.text, target.name, detail);
  }

  private enter(token: Token): void {
    if (++this.depth > MAX_DEPTH) {
      throw this.error(token, `the filter is nested more than ${MAX_DEPTH} levels deep.`);
    }
  }

  private endsOperand(token: Token): boolean {
    return (
      token.kind === 'end' ||
      token.kind === 'rparen' ||
      (token.kind === 'word' && (token.text === 'and' || token.text === 'or'))
    );
  }

  private isWord(text: string): boolean {
    const token = this.peek();
    return token.kind === 'word' && token.text === text;
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private next(): Token {
    const token = this.tokens[this.index]!;
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private describe(token: Token): string {
    switch (token.kind) {
      case 'end':
        return 'the end of the filter';
      case 'string':
        return `the string ${token.text}`;
      case 'number':
        return `the number ${token.text}`;
      case 'date':
        return `the date ${token.text}`;
      case 'datetime':
        return `the date-time ${token.text}`;
      default:
        return `'${token.text}'`;
    }
  }

  private error(token: Token, detail: string): ODataError {
    return syntaxError(PARAMETER, this.text, token.pos, detail);
  }
}

function isValueWord(text: string): boolean {
  return text === 'null' || text === 'true' || text === 'false';
}

function isLiteralToken(token: Token): token is LiteralToken {
  return (
    token.kind === 'string' ||
    token.kind === 'number' ||
    token.kind === 'date' ||
    token.kind === 'datetime' ||
    (token.kind === 'word' && isValueWord(token.text))
  );
}

function baseType(type: ODataType): 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'date-time' {
  return type === 'string[]' ? 'string' : type === 'integer[]' ? 'integer' : type;
}

function expectedValue(type: ODataType): string {
  switch (baseType(type)) {
    case 'string':
      return 'a string in single quotes';
    case 'integer':
    case 'number':
      return 'a number without quotes';
    case 'boolean':
      return 'true or false';
    case 'date':
      return 'a date such as 2023-12-01';
    case 'date-time':
      return 'a UTC date-time such as 2023-12-01T00:00:00Z (or a date)';
  }
}

function cultureOf(target: FieldToken): { culture?: string } {
  return target.culture === undefined ? {} : { culture: target.culture };
}

/** `requires`: a field usable only when another field is compared in the same filter. */
function checkRequires(expr: FilterExpr, text: string, schema: QuerySchema): void {
  const used = fieldsUsed(expr);
  for (const name of used) {
    const field = [...schema.fields.values()].find((f) => f.name === name);
    if (field?.requires && !used.includes(field.requires)) {
      throw propertyError(
        PARAMETER,
        text,
        name,
        `The property '${name}' can only be filtered together with '${field.requires}'.`,
      );
    }
  }
}
