// What a row yields: its command (the `_command` column) and which of its drafts go out — a product once
// per group of variant rows, each variant linked to its product, or by the parent column.
import type { Cell } from '../readers/types.js';
import { describeValue } from '../schema/messages.js';
import type { Part } from './drafts.js';
import type { ProductGroups } from './grouping.js';
import { COMMANDS, type Command, type MappedRow, type RowIssue } from './types.js';
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
    message: `must be one of ${COMMANDS.join(', ')}, got ${describeValue(cell)}`,
    brief: `must be one of ${COMMANDS.join(', ')}`,
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
  if (variant.touched) variant.draft.links.productRef = main.draft.ref || variant.draft.links.productRef;
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

/** Parent-column feeds: a row with a parent is that product's variant; a row without one is a product. */
export function collectByParent(result: MappedRow, parts: Part[], parent: Cell | undefined): void {
  const [main, variant] = parts as [Part, Part];
  if (isBlank(parent)) {
    result.drafts.push(main.draft);
    return;
  }
  variant.draft.links.productRef = String(parent).trim();
  result.drafts.push(variant.draft);
}
