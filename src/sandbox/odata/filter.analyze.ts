// Questions resources ask about a parsed filter before running it: which fields it touches,
// which culture it names, and whether an index on one field can answer it without a scan.

import type { FilterExpr, Literal } from './types.js';

/** Distinct field names the filter compares, in order of first use (cultures stripped). */
export function fieldsUsed(expr: FilterExpr): string[] {
  const names = new Set<string>();
  const visit = (e: FilterExpr): void => {
    switch (e.kind) {
      case 'and':
      case 'or':
        visit(e.left);
        visit(e.right);
        return;
      case 'not':
        visit(e.expr);
        return;
      default:
        names.add(e.field);
    }
  };
  visit(expr);
  return [...names];
}

/** The culture named by a `<field>_<culture>` in the filter (a filter holds at most one). */
export function cultureUsed(expr: FilterExpr): string | undefined {
  switch (expr.kind) {
    case 'and':
    case 'or':
      return cultureUsed(expr.left) ?? cultureUsed(expr.right);
    case 'not':
      return cultureUsed(expr.expr);
    default:
      return expr.culture;
  }
}

/**
 * The values `field` must take for a record to match, when the filter pins them down:
 * `field eq x`, `field in (...)`, either ANDed with anything, or an OR of such terms.
 * Undefined means "could be anything": scan. The list may contain null (`field eq null`).
 */
export function equalityValues(expr: FilterExpr, field: string): Literal[] | undefined {
  switch (expr.kind) {
    case 'compare':
      return expr.op === 'eq' && expr.field === field && expr.culture === undefined
        ? [expr.value]
        : undefined;
    case 'in':
      return expr.field === field && expr.culture === undefined ? expr.values : undefined;
    case 'and': {
      // Either side alone bounds the result; the shorter list means fewer index lookups.
      const left = equalityValues(expr.left, field);
      const right = equalityValues(expr.right, field);
      if (left && right) return left.length <= right.length ? left : right;
      return left ?? right;
    }
    case 'or': {
      const left = equalityValues(expr.left, field);
      const right = left && equalityValues(expr.right, field);
      return left && right ? [...left, ...right] : undefined;
    }
    default:
      return undefined;
  }
}
