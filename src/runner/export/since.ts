// Incremental export: which items changed after a moment, from the entity's changelog, and the record
// of past exports that `--since last` reads (`.catalog-io/exports/<tenant>.json`).
// The changelog records creations and modifications, never deletions: a deleted item never shows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogClient } from '../../api/catalog.js';
import { gt, utcDateTime } from '../../api/filter.js';
import { CatalogIoError } from '../../errors.js';
import { jsonText, replaceFileSync } from '../../replace-file.js';
import type { EntityModel } from '../../schema/model.js';

/**
 * The ids of the items with a changelog entry after `since`, ascending. The set holds one id per changed
 * item (not per entry): an incremental export is expected to touch a fraction of the catalog.
 */
export async function changedIds(
  catalog: CatalogClient,
  entity: EntityModel,
  since: Date,
): Promise<Array<number | string>> {
  const ids = new Set<number | string>();
  for await (const entry of catalog.changelog<{ item_id?: unknown }>(entity.path, {
    filter: gt('modified_at', since),
    orderby: 'id asc',
  })) {
    const id = entry.item_id;
    if (typeof id === 'number' || (typeof id === 'string' && id !== '')) ids.add(id);
  }
  return [...ids].sort((a, b) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b)),
  );
}

/**
 * Where `--since last` should start next time, in the service's own clock: just before the newest
 * changelog entry at the start of this export (client and server clocks need not agree). Undefined when
 * the changelog is empty. One request.
 */
export async function changelogMark(catalog: CatalogClient, entity: EntityModel): Promise<Date | undefined> {
  for await (const entry of catalog.changelog<{ modified_at?: unknown }>(entity.path, {
    orderby: 'modified_at desc',
    pageSize: 1,
  })) {
    const at = typeof entry.modified_at === 'string' ? new Date(entry.modified_at) : undefined;
    // 1 ms earlier: a change in the same millisecond as the newest entry is exported again, never missed.
    return at && !Number.isNaN(at.getTime()) ? new Date(at.getTime() - 1) : undefined;
  }
  return undefined;
}

/** `--since` as given: an ISO date-time with its zone, or `last`. */
export function parseSince(text: string): Date | 'last' {
  if (text.trim().toLowerCase() === 'last') return 'last';
  const iso = text.trim();
  // A plain day means its start, in UTC.
  const value = /^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00Z` : iso;
  try {
    return utcDateTime(value);
  } catch {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `--since ${text}: expected an ISO date-time with its zone (2024-05-01T08:00:00Z) or "last"`,
    );
  }
}

/** Start times of the last successful export of each entity of one tenant. */
export class ExportHistory {
  readonly file: string;

  constructor(cwd: string, tenant: string) {
    this.file = join(cwd, '.catalog-io', 'exports', `${tenant.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
  }

  /** When the last successful export of `entity` started, if one is recorded. */
  last(entity: string): Date | undefined {
    const at = this.read()[entity];
    if (typeof at !== 'string') return undefined;
    const date = new Date(at);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }

  /** Records a successful export of `entity` that started at `startedAt` (written atomically). */
  record(entity: string, startedAt: Date): void {
    const all = { ...this.read(), [entity]: startedAt.toISOString() };
    replaceFileSync(this.file, jsonText(all));
  }

  private read(): Record<string, unknown> {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return {};
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    } catch {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `The export history ${this.file} is not valid JSON: fix or delete it (the next --since last then exports everything)`,
      );
    }
  }
}
