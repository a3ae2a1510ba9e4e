// Cell -> values: the trim, split, value table, default, coercion to the target's type, the enum's own
// spelling and asset references of one cell, as its column's placement says. Problems become row issues.
import type { Cell } from '../readers/types.js';
import { describeValue } from '../schema/messages.js';
import { splitItems } from '../writers/list-cell.js';
import { readAssetValue, unusableName } from './assets.js';
import { coerce } from './coerce.js';
import type { Placement } from './layout.js';
import type { Target } from './targets.js';
import type { Draft, RowIssue, Value } from './types.js';
import { convertUnit, sameFamily, splitUnit, unitFactor } from './units.js';

/** Cell -> one value or a list; undefined when there is nothing to write or it could not be read. */
export function toValues(
  cell: Cell,
  place: Placement,
  column: string,
  issues: RowIssue[],
): Value | Value[] | undefined {
  const { rule, multiple, target } = place;
  // The common cell: text that needs a trim, then its type (and a split, for a list).
  if (place.plain && typeof cell === 'string') {
    const text = cell.trim();
    if (text === '') return undefined;
    if (!multiple) return place.type === 'string' ? text : toValue(text, place, column, issues);
    const separator = rule.split === undefined ? '|' : rule.split;
    if (separator !== false) {
      const out: Value[] = [];
      for (const piece of splitItems(text, separator)) {
        const item = piece.trim();
        if (item === '') continue;
        const converted = place.type === 'string' ? item : toValue(item, place, column, issues);
        if (converted === undefined) return undefined;
        out.push(converted);
      }
      return out;
    }
  }
  let items: Cell[];
  if (!multiple && rule.first) cell = firstItem(cell, rule.split);
  if (Array.isArray(cell) && !multiple && rule.join !== undefined) {
    cell = cell.map((item) => (item === null ? '' : String(item))).join(rule.join);
  }
  if (Array.isArray(cell)) {
    if (!multiple) {
      issues.push(coerceIssue(target, column, cell, 'a single value'));
      return undefined;
    }
    items = cell;
  } else {
    const trim = rule.trim !== false;
    let one: Cell = typeof cell === 'string' && trim ? cell.trim() : cell;
    if (trim && typeof one === 'string' ? one === '' : isBlank(one)) {
      if (rule.default === undefined) return undefined;
      one = rule.default;
    }
    if (!multiple) return toValue(one, place, column, issues);
    const separator = rule.split === undefined ? '|' : rule.split;
    items = typeof one === 'string' && separator !== false ? splitItems(one, separator) : [one];
  }
  const out: Value[] = [];
  const trim = rule.trim !== false;
  for (const item of items) {
    const value = typeof item === 'string' && trim ? item.trim() : item;
    if (trim && typeof value === 'string' ? value === '' : isBlank(value)) continue;
    const converted = toValue(value, place, column, issues);
    if (converted === undefined) return undefined;
    out.push(converted);
  }
  return out;
}

/**
 * The items of a reference cell whose ends the trim takes spaces off (`"R1 "`, or `"A |B"` in a list),
 * each as trimmed -> as written: a tenant may hold such a ref, and the import then uses it as written
 * (Draft.asWritten). Undefined when there are none (most cells), and for a column that is not trimmed
 * (`trim: false`) or maps its values (`map`: the value is then not the cell's text).
 */
export function untrimmedRefs(cell: Cell, place: Placement): Map<string, string> | undefined {
  const { rule } = place;
  if (rule.trim === false || rule.map !== undefined) return undefined;
  // A JSON list gives one item per entry; a text cell of a list field is split as toValues splits it.
  if (Array.isArray(cell)) {
    const out = new Map<string, string>();
    for (const item of cell) {
      if (typeof item !== 'string') continue;
      for (const [trimmed, written] of paddedItems(item, false) ?? [])
        if (!out.has(trimmed)) out.set(trimmed, written);
    }
    return out.size > 0 ? out : undefined;
  }
  if (typeof cell !== 'string') return undefined;
  return paddedItems(cell, place.multiple ? (rule.split === undefined ? '|' : rule.split) : false);
}

/** The items of `text` (split on `separator`, or the whole text) that the trim changes: trimmed -> as written. */
export function paddedItems(text: string, separator: string | false): Map<string, string> | undefined {
  if (!SPACE.test(text)) return undefined;
  const out = new Map<string, string>();
  for (const item of separator === false || separator === '' ? [text] : splitItems(text, separator)) {
    const trimmed = item.trim();
    if (trimmed !== '' && trimmed !== item && !out.has(trimmed)) out.set(trimmed, item);
  }
  return out.size > 0 ? out : undefined;
}

/** What `String.prototype.trim` takes off (white space and line ends): a cell without any needs no more look. */
const SPACE = /\s/;

/** `first`: the first non-blank item of a list value, or of a cell split by the column's separator. */
function firstItem(cell: Cell, split: string | false | undefined): Cell {
  const items = Array.isArray(cell)
    ? cell
    : typeof cell === 'string' && split !== false
      ? splitItems(cell, split ?? '|')
      : [cell];
  for (const item of items) {
    if (typeof item === 'string' ? item.trim() !== '' : !isBlank(item)) return item;
  }
  return Array.isArray(cell) ? null : cell;
}

/** One value: value table, then coercion to the target's type, then the enum's own spelling. */
function toValue(item: Cell, place: Placement, column: string, issues: RowIssue[]): Value | undefined {
  const { rule, target } = place;
  if (Array.isArray(item)) {
    issues.push(coerceIssue(target, column, item, 'a single value in each list item'));
    return undefined;
  }
  let value: Exclude<Cell, Cell[]> = item;
  if (rule.map && value !== null) value = lookup(rule.map, String(value)) ?? value;
  if (value === null) return null;
  const enumValues = target.kind === 'field' ? target.field.enum : undefined;
  // Text needs no conversion: the most common cell skips the coercion's result object.
  if (place.type === 'string') return canonicalEnum(String(value), enumValues);
  if (place.unit) return inUnit(value, place, column, issues);
  const coerced = coerce(value, place.type, rule);
  if (!coerced.ok) {
    issues.push(coerceIssue(target, column, item, coerced.expected));
    return undefined;
  }
  return canonicalEnum(coerced.value, enumValues);
}

/** A number in the column's unit (or the one the cell names: `12 kg`), converted to the field's unit. */
function inUnit(
  value: Exclude<Cell, Cell[]>,
  place: Placement,
  column: string,
  issues: RowIssue[],
): Value | undefined {
  const unit = place.unit!;
  let factor = unit.factor;
  let number: Exclude<Cell, Cell[]> = value;
  const named = typeof value === 'string' ? splitUnit(value) : undefined;
  if (named) {
    if (!sameFamily(named.unit, unit.to)) {
      issues.push(
        coerceIssue(place.target, column, value, `a number in ${unit.from} or a unit like ${unit.to}`),
      );
      return undefined;
    }
    number = named.number;
    factor = unitFactor(named.unit, unit.to);
  }
  const coerced = coerce(number, 'number', place.rule);
  if (!coerced.ok) {
    issues.push(coerceIssue(place.target, column, value, `${coerced.expected} (in ${unit.from})`));
    return undefined;
  }
  const converted = convertUnit(coerced.value as number, factor);
  if (place.type === 'integer' && !Number.isInteger(converted)) {
    issues.push(coerceIssue(place.target, column, value, `a whole number of ${unit.to}`));
    return undefined;
  }
  return converted;
}

/**
 * The values of an image or file field -> DAM names; each http(s) URL is added to the draft's assets to
 * register. Each reference carries the catalog's verdict on its name (`unusable`), the only place it is
 * decided. Undefined (and an issue) when a value is neither a URL nor a name.
 */
export function toAssets(
  values: Value | Value[],
  kind: 'image' | 'file',
  place: Placement,
  draft: Draft,
  column: string,
  issues: RowIssue[],
): Value | Value[] | undefined {
  const names: Value[] = [];
  const field = place.target.kind === 'field' ? place.target.field.name : '';
  const single = place.target.kind === 'field' && !place.target.field.multiple;
  const { culture } = place;
  const tags = place.rule.tags;
  for (const value of Array.isArray(values) ? values : [values]) {
    if (value === null || value === '') {
      names.push(value);
      continue;
    }
    const asset = readAssetValue(String(value), kind);
    if (!asset.ok) {
      issues.push({
        code: 'MAP_COERCE',
        severity: 'error',
        field: culture ? `${field}.${culture}` : field,
        column,
        value,
        message: `must be ${asset.expected}, got ${describeValue(value)}`,
        brief: `must be ${asset.expected}`,
      });
      return undefined;
    }
    // A field of one name reads a comma as a separator: the verdict depends on the field, not the name alone.
    const unusable = unusableName(asset.name, single);
    draft.assets.push({
      field,
      ...(culture && { culture }),
      ...(asset.url && { url: asset.url }),
      name: asset.name,
      kind,
      ...(unusable !== undefined && { unusable }),
      ...(tags && asset.url && { tags }),
    });
    names.push(asset.name);
  }
  return Array.isArray(values) ? names : names[0];
}

/** Exact key first, then case-insensitive. */
function lookup(table: Record<string, Value>, key: string): Value | undefined {
  if (Object.hasOwn(table, key)) return table[key];
  const lower = key.toLowerCase();
  for (const [k, v] of Object.entries(table)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** `in stock` -> `In Stock` when the enum has it in another case; anything else is left for the validator. */
function canonicalEnum(value: Value, allowed: Array<string | number> | undefined): Value {
  if (!allowed || typeof value !== 'string' || allowed.includes(value)) return value;
  const lower = value.toLowerCase();
  const match = allowed.find((a) => String(a).toLowerCase() === lower);
  return match === undefined ? value : match;
}

export function isBlank(cell: Cell | undefined): boolean {
  return (
    cell === undefined ||
    cell === null ||
    (typeof cell === 'string' && cell.trim() === '') ||
    (Array.isArray(cell) && cell.length === 0)
  );
}

function coerceIssue(target: Target, column: string, value: Cell, expected: string): RowIssue {
  const field =
    target.kind === 'link'
      ? `${target.idField.name}`
      : target.culture
        ? `${target.field.name}.${target.culture}`
        : target.field.name;
  return {
    code: 'MAP_COERCE',
    severity: 'error',
    field,
    column,
    value,
    message: `must be ${expected}, got ${describeValue(value)}`,
    brief: `must be ${expected}`,
  };
}
