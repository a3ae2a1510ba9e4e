// Prints a parsed filter back to $filter text that parses to the same tree. Used by tests and handy
// for logging; children of and/or/not are always parenthesised so no precedence is assumed.

import type { FilterExpr, Literal } from './types.js';

export function printFilter(expr: FilterExpr): string {
  switch (expr.kind) {
    case 'and':
    case 'or':
      return `(${printFilter(expr.left)}) ${expr.kind} (${printFilter(expr.right)})`;
    case 'not':
      return `not (${printFilter(expr.expr)})`;
    case 'compare':
      return `${fieldName(expr.field, expr.culture)} ${expr.op} ${printLiteral(expr.value)}`;
    case 'in':
      return `${fieldName(expr.field, expr.culture)} in (${expr.values.map(printLiteral).join(',')})`;
    case 'func':
      return `${expr.name}(${fieldName(expr.field, expr.culture)},${printLiteral(expr.value)})`;
  }
}

export function printLiteral(value: Literal): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') {
    if (Object.is(value, -0)) return '-0';
    const text = String(value);
    // A huge integral double must not read back as a big integer.
    return Number.isInteger(value) && !Number.isSafeInteger(value) && !text.includes('e')
      ? `${text}.0`
      : text;
  }
  return String(value);
}

function fieldName(field: string, culture: string | undefined): string {
  return culture === undefined ? field : `${field}_${culture}`;
}
