// The rule a placed column gets from its values and header: how numbers and dates are read (`12,50`,
// `31.12.2026`), the unit to convert from (`Weight (lbs)`, `12 oz`, a sibling `packageWeight.unit`), the
// separator of a list (`Images`, `Tags (x,y,z...)`), category paths, and a join for a one-item JSON list.
import type { FieldModel } from '../../schema/model.js';
import type { ColumnRule, ConversionRule } from '../profile-types.js';
import { fieldUnit, sameFamily, splitUnit, unitOf } from '../units.js';
import { headerParts } from './header.js';
import { categoryCells, urlList, wordSeparator } from './lists.js';
import type { FeedSample } from './values.js';

/** A category column: paths made into categories (the import creates what the tenant lacks). */
export interface CategoryPathRule extends ColumnRule {
  categoryPath: true | { separator: string };
}

/** Where a column goes, as the draft chose it. */
export interface Placed {
  target: string;
  field?: FieldModel;
  /** A link column's id field (`cat_ids` for `cat_refs`). */
  linkField?: FieldModel;
}

export function columnRules(
  header: string,
  placed: Placed,
  sample: FeedSample,
  headers: readonly string[],
): { rule: Partial<CategoryPathRule>; warning?: string } {
  const values = (sample.values.get(header) ?? []).map((v) => v.trim()).filter((v) => v !== '');
  const listed = sample.lists.has(header);
  const hint = headerParts(header).list;
  const link = placed.linkField;
  if (link?.references === 'Categories' && link.multiple) {
    const cells = listed ? categoryCells(values, undefined) : categoryCells(values, hint);
    const rule: Partial<CategoryPathRule> = {
      categoryPath: cells.path ? { separator: cells.path } : true,
      ...(!listed && cells.split && { split: cells.split }),
    };
    // One category per sampled cell says nothing of the rows after the sample: say what to add.
    if (listed || cells.split || values.length === 0) return { rule };
    const example = cells.path ? `A${cells.path}B, C` : 'A, B';
    return {
      rule,
      warning: `one category per cell in the sampled rows, so no "split": a later cell listing several ("${example}") would be read as one; add "split" if the feed may list several`,
    };
  }
  const field = placed.field;
  if (!field) return { rule: {} };
  const rule: ConversionRule = {};
  let warning: string | undefined;
  if (field.multiple && !listed) {
    const urls = field.asset ? urlList(values) : undefined;
    const separator = urls?.separator ?? wordSeparator(values, hint);
    if (separator && separator !== '|') rule.split = separator;
  }
  if (!field.multiple && listed && field.type === 'string' && !field.asset) rule.join = ', ';
  if (field.type === 'number' || field.type === 'integer') {
    const numbers = values.map((v) => splitUnit(v)?.number ?? v);
    Object.assign(rule, numberMarks(numbers, writesDecimalCommas(sample)));
    const unit = unitFor(header, values, sample, headers);
    const to = fieldUnit(field);
    if (unit && to && sameFamily(unit, to) && unit !== to) rule.unit = unit;
    else if (unit && to && !sameFamily(unit, to))
      warning = `the values are in ${unit}, ${field.name} holds ${to}`;
  }
  if (field.type === 'date' || field.type === 'date-time') {
    const m = values[0] ? /^\d{1,2}([./])\d{1,2}\1\d{4}$/.exec(values[0]) : null;
    if (m) rule.dateFormat = `DD${m[1]}MM${m[1]}YYYY`;
  }
  return { rule, ...(warning && { warning }) };
}

/**
 * Decimal commas (`12,50`) and thousands marks (`1.234,50`, `1,234.50`) the values show. In a feed that
 * writes decimal commas elsewhere (`feedCommas`), `1.250` and `2.000` are thousands, not decimals.
 */
function numberMarks(filled: readonly string[], feedCommas = false): ConversionRule {
  const rule: ConversionRule = {};
  if (filled.length === 0) return rule;
  const comma = filled.some((v) => isDecimalComma(v));
  if (comma) rule.decimal = ',';
  if (filled.some((v) => /\d\.\d{3},/.test(v))) rule.thousands = '.';
  else if (!comma && filled.some((v) => /\d,\d{3}\./.test(v))) rule.thousands = ',';
  else if (feedCommas && filled.some((v) => /^-?\d{1,3}(\.\d{3})+$/.test(v))) {
    rule.decimal = ',';
    rule.thousands = '.';
  }
  return rule;
}

function isDecimalComma(value: string): boolean {
  return /,\d{1,2}$|,\d{4,}$/.test(value) || /\.\d{3},/.test(value);
}

/** Some column of the sampled feed writes numbers with a decimal comma (`12,50`, `1.299,50`). */
function writesDecimalCommas(sample: FeedSample): boolean {
  // Asked for every number column: worked out once per sample.
  let known = decimalCommas.get(sample);
  if (known === undefined) {
    known = [...sample.values.values()].some((values) =>
      values.some((v) => /^-?[\d.]*\d,\d+$/.test(v.trim()) && isDecimalComma(v.trim())),
    );
    decimalCommas.set(sample, known);
  }
  return known;
}

const decimalCommas = new WeakMap<FeedSample, boolean>();

/**
 * The unit of a column's numbers: named by the header (`Weight (lbs)`), by the cells (`12 kg`, all in one
 * unit), or by a sibling column holding one unit (`packageWeight.unit` beside `packageWeight.value`).
 */
function unitFor(
  header: string,
  values: readonly string[],
  sample: FeedSample,
  headers: readonly string[],
): string | undefined {
  const named = headerParts(header).unit;
  if (named && unitOf(named)) return unitOf(named);
  const inCells = new Set(values.map((v) => splitUnit(v)?.unit));
  if (values.length > 0 && inCells.size === 1 && !inCells.has(undefined)) return [...inCells][0];
  const m = /^(.*)[._ ](value|amount|qty)$/i.exec(header);
  if (m) {
    const sibling = headers.find((h) => h !== header && h.toLowerCase() === `${m[1]!.toLowerCase()}.unit`);
    const units = new Set((sibling ? (sample.values.get(sibling) ?? []) : []).map((u) => unitOf(u.trim())));
    if (units.size === 1 && !units.has(undefined)) return [...units][0];
  }
  return undefined;
}
