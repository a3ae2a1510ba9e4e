// A ref whose cell had spaces at its ends (`"R1 "`, read as `R1` by the default trim). A tenant may hold
// such a ref, made outside this tool, and an untouched export of it must find it again. So the import asks
// the tenant for both spellings, in the lookups it makes anyway, and uses the one as written when the
// tenant has a record of exactly it; else the trimmed one (a supplier's padded cell), with a warning.
// validate's reference check asks and says the same (`references.ts`).
import type { Draft } from '../../mappers/types.js';

/** The warning of a ref read trimmed because the tenant has no record spelled as the cell wrote it. */
export function trimmedRefWarning(
  column: string | undefined,
  entity: string,
  written: string,
  ref: string,
): string {
  const where = column === undefined ? '' : `column ${JSON.stringify(column)}: `;
  return `${where}the reference ${JSON.stringify(written)} is read trimmed, as ${JSON.stringify(ref)}: the tenant has no ${entity} record ${JSON.stringify(written)} as written`;
}

/**
 * The draft's own ref, once the tenant's records of both spellings are known (`has`): as written when the
 * tenant has that record (its ref field written so too), else trimmed, with the warning. Chosen once.
 */
export function settleOwnRef(
  draft: Draft,
  entity: { name: string; refField: string },
  has: (ref: string) => boolean,
): void {
  const written = draft.asWritten?.ref;
  if (written === undefined) return;
  delete draft.asWritten!.ref;
  if (has(written)) {
    draft.ref = written;
    draft.fields[entity.refField] = written;
  } else
    warn(draft, trimmedRefWarning(draft.source.columns[entity.refField], entity.name, written, draft.ref));
}

/**
 * One link ref of the draft (given in the column of write path `key`), once the target's records of both
 * spellings are known (`has`): the spelling the import links to, with the warning when it is trimmed.
 */
export function linkSpelling(
  draft: Draft,
  ref: string,
  key: string,
  target: string,
  has: (ref: string) => boolean,
): string {
  const written = draft.asWritten?.links?.[ref];
  if (written === undefined) return ref;
  if (has(written)) return written;
  warn(draft, trimmedRefWarning(draft.source.columns[key], target, written, ref));
  return ref;
}

/** The spellings the draft's refs may have as written: the lookups ask them too. */
export function writtenLinkRef(draft: Draft, ref: string): string | undefined {
  return draft.asWritten?.links?.[ref];
}

function warn(draft: Draft, warning: string): void {
  draft.warnings ??= [];
  if (!draft.warnings.includes(warning)) draft.warnings.push(warning);
}
