// $orderby: `<property> [asc|desc]`. The catalog takes a single property (singleOnly); the DAM
// honours only the first expression and ignores the rest (firstOnly).

import { lookupField } from './fields.js';
import { nestedPropertyError, propertyError, syntaxError, unknownPropertyError } from './messages.js';
import type { OrderBy, QuerySchema } from './types.js';

const PARAMETER = '$orderby';

export interface OrderByOptions {
  /** Several expressions are a 400 (catalog). This is also the behaviour when neither option is set. */
  singleOnly?: boolean;
  /** Only the first expression is honoured; the others are not even checked (DAM). */
  firstOnly?: boolean;
}

export function parseOrderBy(text: string, schema: QuerySchema, opts: OrderByOptions = {}): OrderBy {
  const items = text.split(',');
  if (items.length > 1 && !opts.firstOnly) {
    throw propertyError(
      PARAMETER,
      text,
      PARAMETER,
      `Only one property can be used in $orderby; found ${items.length} expressions in '${text}'.`,
    );
  }
  const item = items[0]!;
  const parts = item.trim().split(/\s+/);
  const name = parts[0] ?? '';
  if (name === '') throw syntaxError(PARAMETER, text, 0, 'expected a property name.');
  if (parts.length > 2) {
    throw syntaxError(
      PARAMETER,
      text,
      item.indexOf(parts[2]!),
      `expected 'asc' or 'desc' only once after '${name}', found '${parts[2]}'.`,
    );
  }
  const direction =
    parts[1] === undefined ? 'asc' : schema.caseInsensitive ? parts[1].toLowerCase() : parts[1];
  if (direction !== 'asc' && direction !== 'desc') {
    throw syntaxError(
      PARAMETER,
      text,
      item.indexOf(parts[1]!),
      `expected 'asc' or 'desc' after '${name}', found '${parts[1]}'.`,
    );
  }
  if (name.includes('/')) throw nestedPropertyError(PARAMETER, text, name);
  const found = lookupField(name, schema);
  if (!found.found) {
    if (found.reason === 'language') {
      throw propertyError(
        PARAMETER,
        text,
        name,
        `The language '${found.culture}' is not available for property '${found.field.name}'; the catalog has: ${schema.languages.join(', ') || 'none'}.`,
      );
    }
    throw unknownPropertyError(PARAMETER, text, name, schema);
  }
  if (found.field.sortable === false) {
    throw propertyError(PARAMETER, text, name, `The property '${name}' cannot be used in $orderby.`);
  }
  const order: OrderBy = { field: found.field.name, descending: direction === 'desc' };
  if (found.culture !== undefined) order.culture = found.culture;
  return order;
}

/**
 * Sort order of two field values, ascending: null/undefined first, then by value (numbers and big
 * integers numerically, strings by UTF-16 code unit, false before true, dates by instant). Values of
 * different kinds are grouped by kind so the order stays total.
 */
export function compareForOrder(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return 0;
    case 1: {
      const x = a as number | bigint;
      const y = b as number | bigint;
      if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : 0;
      if (Number.isInteger(Number(x)) && Number.isInteger(Number(y))) {
        const bx = BigInt(x);
        const by = BigInt(y);
        return bx < by ? -1 : bx > by ? 1 : 0;
      }
      return Math.sign(Number(x) - Number(y));
    }
    case 2:
      return Number(a) - Number(b);
    case 3:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    case 4: {
      const x = a as string;
      const y = b as string;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 5:
      return compareArrays(a as unknown[], b as unknown[]);
    default:
      return 0;
  }
}

function compareArrays(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareForOrder(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function rank(value: unknown): number {
  if (value === null || value === undefined || (typeof value === 'number' && Number.isNaN(value))) return 0;
  if (typeof value === 'number' || typeof value === 'bigint') return 1;
  if (typeof value === 'boolean') return 2;
  if (value instanceof Date) return 3;
  if (typeof value === 'string') return 4;
  if (Array.isArray(value)) return 5;
  return 6;
}
