// The sandbox's OData query engine: pure parsing and evaluation of $filter, $orderby, $select,
// $top and $skip against a QuerySchema. See types.ts for the contract.

export { cultureUsed, equalityValues, fieldsUsed } from './filter.analyze.js';
export { compileFilter, evaluateFilter } from './filter.evaluate.js';
export { parseFilter } from './filter.parse.js';
export { printFilter, printLiteral } from './filter.print.js';
export { compareForOrder, type OrderByOptions, parseOrderBy } from './orderby.js';
export { parseIntOption } from './paging.js';
export { parseSelect } from './select.js';
export * from './types.js';
