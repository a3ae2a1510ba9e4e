// What a row yields: its command (the `_command` column) and which of its drafts go out — a product once
// per group of variant rows, each variant linked to its product, or by the parent column.
import type { Cell } from '../readers/types.js';
import { describeValue } from '../schema/messages.js';
import { linkProduct, type Part } from './drafts.js';
import type { ProductGroups } from './grouping.js';
import { COMMANDS, type Command, type Draft, type MappedRow, type RowIssue } from './types.js';
import { isBlank } from './values.js';

/** The row's command: MERGE when the cell is blank (or not a command, which is an issue). */
export function readCommand(cell: Cell | undefined, column: string, issues: RowIssue[]): Command {
  if (isBlank(cell)) return 'MERGE';
  const text = String(cell).trim().toUpperCase();
  if ((COMMANDS as readonly string[]).includes(text)) return text as Command;
  issues.push({
    code: 'MAP_COERCE',
    severity: 'error',
    column,
    value: cell,
    message: `must be one of ${COMMANDS.join(', ')} (found ${describeValue(cell)})`,
    brief: `must be one of ${COMMANDS.join(', ')} (found ${describeValue(cell)})`,
  });
  return 'MERGE';
}

/** Puts the row's parts into the result: a product once per group, its variant linked to it. */
export function collect(
  result: MappedRow,
  parts: Part[],
  command: Command,
  groups: ProductGroups | undefined,
): void {
  const [main, variant] = parts as [Part, Part | undefined];
  if (!variant || !groups) {
    result.drafts.push(main.draft);
    return;
  }
  if (variant.touched && main.draft.ref)
    linkProduct(variant.draft, main.draft.ref, main.draft.asWritten?.ref);
  const productOnly = !variant.touched;
  // A command applies to the most specific entity of the row: DELETE on a variant row deletes the variant.
  if (!productOnly && command !== 'MERGE') main.draft.command = 'MERGE';
  if (main.touched && (productOnly || command !== 'DELETE')) {
    const seen = groups.see(main.draft, result.location.text);
    if (seen.conflicts.length) result.issues.push(...seen.conflicts);
    if (seen.first) result.drafts.push(main.draft);
  }
  if (variant.touched) result.drafts.push(variant.draft);
}

/**
 * Parent-column feeds: a row with a parent is that product's variant; a row without one is a product, and
 * with `ownVariant` also its own variant when it gives variant values (a simple product's price).
 */
export function collectByParent(
  result: MappedRow,
  parts: Part[],
  parent: Cell | undefined,
  by: { parentColumn: string; ownVariant: boolean | readonly string[] },
  cellOf: (column: string) => Cell | undefined,
): void {
  const [main, variant] = parts as [Part, Part];
  const [drafted, dropped] = isBlank(parent) ? [main, variant] : [variant, main];
  if (dropped.touched) {
    const why = isBlank(parent)
      ? `a row without "${by.parentColumn}" is a product`
      : `a row with "${by.parentColumn}" is a variant of that product`;
    const lost = notWritten(dropped, drafted, cellOf, why);
    if (dropped === variant && ownsVariant(by.ownVariant, lost)) {
      linkProduct(variant.draft, main.draft.ref, main.draft.asWritten?.ref);
      result.drafts.push(main.draft, variant.draft);
      return;
    }
    result.issues.push(...lost);
  }
  if (drafted === variant) linkProduct(variant.draft, String(parent).trim(), String(parent));
  result.drafts.push(drafted.draft);
}

/** `ownVariant`: true for any variant value left out, or a list of the columns whose value counts. */
function ownsVariant(own: boolean | readonly string[], lost: readonly RowIssue[]): boolean {
  if (own === true) return lost.length > 0;
  return Array.isArray(own) && lost.some((issue) => issue.column !== undefined && own.includes(issue.column));
}

/** The words of a not-written warning. */
const NOT_WRITTEN = 'not written: this row drafts no';

/**
 * A warning per column whose value went to the part the row does not draft (a simple product's price on
 * the variant), unless the column is written on the drafted part too (the SKU: the product's ref and the
 * variant's). Constants and templates are the profile's, not the row's: they are not named.
 */
function notWritten(
  dropped: Part,
  drafted: Part,
  cellOf: (column: string) => Cell | undefined,
  why: string,
): RowIssue[] {
  const written = new Set<string>();
  for (const path of writePaths(drafted.draft)) {
    const column = drafted.draft.source.columns[path];
    if (column !== undefined) written.add(column);
  }
  const issues: RowIssue[] = [];
  const named = new Set<string>();
  for (const path of writePaths(dropped.draft)) {
    const column = dropped.draft.source.columns[path];
    if (column === undefined || written.has(column) || named.has(column) || isBlank(cellOf(column))) continue;
    named.add(column);
    const target = `${dropped.entity.name}.${path.replace(/^link:/, '')}`;
    const message = `column ${JSON.stringify(column)} (${target}) ${NOT_WRITTEN} ${entityWord(dropped)} (${why})`;
    issues.push({
      code: 'MAP_NOT_WRITTEN',
      severity: 'warning',
      column,
      field: path,
      message,
      brief: message,
    });
  }
  return issues;
}

/** The write paths a draft holds values for, as `draft.source.columns` keys them. */
function* writePaths(draft: Draft): Iterable<string> {
  yield* Object.keys(draft.fields);
  for (const [culture, fields] of Object.entries(draft.cultures))
    for (const field of Object.keys(fields)) yield `${field}.${culture}`;
  for (const [link, value] of Object.entries(draft.links))
    if (link !== 'categoryPaths' && value !== undefined) yield `link:${link}`;
}

/** `variant`, `product`: the entity's record in a sentence. */
function entityWord(part: Part): string {
  return part.entity.kind === 'variants'
    ? 'variant'
    : part.entity.kind === 'products'
      ? 'product'
      : part.entity.name;
}
