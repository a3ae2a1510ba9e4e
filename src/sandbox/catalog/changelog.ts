// The changelog: one entry per changed attribute of every creation and modification (never
// deletions), kept per collection with an index by item, and queried with the spec's seven rules.
import { json, type SandboxResponse } from '../http.js';
import {
  compareForOrder,
  evaluateFilter,
  parseFilter,
  parseIntOption,
  parseOrderBy,
} from '../odata/index.js';
import type { FilterExpr, QueryField, QuerySchema } from '../odata/types.js';
import { withQuery } from './query.js';

export interface ChangelogEntry {
  id: number;
  item_id: number;
  /** UTC ISO 8601 with Z. */
  modified_at: string;
  /** `api` for writes through the API, `system` for changes the service makes itself (cascades, seeding). */
  author_type: 'api' | 'system';
  author_id: string;
  /** The field key that changed. */
  attribute_id: string;
  operation: 'created' | 'modified';
  changes: { old_value: unknown; new_value: unknown };
}

export interface ChangelogState {
  nextId: number;
  logs: Record<string, ChangelogEntry[]>;
}

/** Who wrote through the API. Never the API key itself: a stable, harmless name for it. */
export const API_AUTHOR = 'sandbox-api-client';
export const SYSTEM_AUTHOR = 'catalog-service';

class Log {
  readonly entries: ChangelogEntry[] = [];
  readonly byItem = new Map<number, ChangelogEntry[]>();

  add(e: ChangelogEntry): void {
    this.entries.push(e);
    const list = this.byItem.get(e.item_id);
    if (list) list.push(e);
    else this.byItem.set(e.item_id, [e]);
  }
}

export class ChangelogStore {
  private nextId = 1;
  private readonly logs = new Map<string, Log>();
  /** Entries added since the last takeAdded(), when tracking. */
  private added: Array<{ log: string; entry: ChangelogEntry }> | undefined;

  trackChanges(): void {
    this.added ??= [];
  }

  takeAdded(): Array<{ log: string; entry: ChangelogEntry }> {
    if (!this.added || this.added.length === 0) return [];
    return this.added.splice(0);
  }

  /** Replays an entry of the write log; one already held (its id is taken) is skipped. */
  replay(logName: string, entry: ChangelogEntry): void {
    if (entry.id < this.nextId) return;
    this.log(logName).add(entry);
    this.nextId = entry.id + 1;
  }

  private log(name: string): Log {
    let log = this.logs.get(name);
    if (!log) {
      log = new Log();
      this.logs.set(name, log);
    }
    return log;
  }

  record(
    logName: string,
    itemId: number,
    at: Date,
    author: { type: 'api' | 'system'; id: string },
    operation: 'created' | 'modified',
    changes: Array<{ attribute: string; old: unknown; new: unknown }>,
  ): void {
    const log = this.log(logName);
    const modified_at = at.toISOString();
    for (const c of changes) {
      const entry: ChangelogEntry = {
        id: this.nextId++,
        item_id: itemId,
        modified_at,
        author_type: author.type,
        author_id: author.id,
        attribute_id: c.attribute,
        operation,
        changes: { old_value: c.old ?? null, new_value: c.new ?? null },
      };
      log.add(entry);
      this.added?.push({ log: logName, entry });
    }
  }

  /** Entries of a collection, or of one item, oldest first. */
  entries(logName: string, itemId?: number): readonly ChangelogEntry[] {
    const log = this.logs.get(logName);
    if (!log) return [];
    return itemId === undefined ? log.entries : (log.byItem.get(itemId) ?? []);
  }

  snapshot(): ChangelogState {
    const logs: Record<string, ChangelogEntry[]> = {};
    for (const [name, log] of this.logs) logs[name] = log.entries;
    return { nextId: this.nextId, logs };
  }

  restore(state: ChangelogState): void {
    this.logs.clear();
    this.nextId = state.nextId;
    for (const [name, entries] of Object.entries(state.logs)) {
      const log = this.log(name);
      for (const e of entries) log.add(e);
    }
  }

  clear(): void {
    this.logs.clear();
    this.nextId = 1;
  }
}

const RESTRICTED = new Set(['author_type', 'attribute_id']);

/** Rules 1, 3 and 6: the queryable fields, their operators, and the unknown-property message. */
export const CHANGELOG_QUERY_SCHEMA: QuerySchema = {
  fields: new Map<string, QueryField>([
    ['id', { name: 'id', type: 'integer' }],
    ['item_id', { name: 'item_id', type: 'integer' }],
    ['modified_at', { name: 'modified_at', type: 'date-time' }],
    // `in` is accepted so that rule 2 (only the first value applies) can be honoured.
    ['author_type', { name: 'author_type', type: 'string', operators: ['eq', 'in'], sortable: false }],
    ['author_id', { name: 'author_id', type: 'string', requires: 'author_type', sortable: false }],
    ['attribute_id', { name: 'attribute_id', type: 'string', operators: ['eq', 'in'], sortable: false }],
  ]),
  languages: [],
  unknownPropertyMessage: (name) => `Unknown property: '${name}'`,
};

/**
 * Rule 2: `in (...)` and `or` on `author_type` or `attribute_id` apply only their first value.
 * `author_type in ('a','b')` becomes `author_type eq 'a'`; `x eq 'a' or x eq 'b'` on one of those
 * fields becomes its left side.
 */
export function firstValueOnly(expr: FilterExpr): FilterExpr {
  switch (expr.kind) {
    case 'in':
      return RESTRICTED.has(expr.field) && expr.values.length > 0
        ? { kind: 'compare', op: 'eq', field: expr.field, value: expr.values[0]! }
        : expr;
    case 'or': {
      const left = firstValueOnly(expr.left);
      const right = firstValueOnly(expr.right);
      const lf = onlyField(left);
      if (lf !== undefined && RESTRICTED.has(lf) && onlyField(right) === lf) return left;
      return { kind: 'or', left, right };
    }
    case 'and':
      return { kind: 'and', left: firstValueOnly(expr.left), right: firstValueOnly(expr.right) };
    case 'not':
      return { kind: 'not', expr: firstValueOnly(expr.expr) };
    default:
      return expr;
  }
}

/** The single field an expression compares, or undefined when it uses several. */
function onlyField(expr: FilterExpr): string | undefined {
  switch (expr.kind) {
    case 'and':
    case 'or': {
      const l = onlyField(expr.left);
      return l !== undefined && l === onlyField(expr.right) ? l : undefined;
    }
    case 'not':
      return onlyField(expr.expr);
    default:
      return expr.field;
  }
}

/** A changelog read with the spec's rules; ODataError (400) for what they refuse. */
export function changelogCollection(
  all: readonly ChangelogEntry[],
  q: URLSearchParams,
  url: string,
  context: string,
): SandboxResponse {
  const filterText = q.get('$filter');
  const filter =
    filterText !== null && filterText.trim() !== ''
      ? firstValueOnly(parseFilter(filterText, CHANGELOG_QUERY_SCHEMA))
      : undefined;
  const orderText = q.get('$orderby');
  // Rule 3: several fields are unreliable; the first is used.
  const orderBy =
    orderText !== null && orderText.trim() !== ''
      ? parseOrderBy(orderText, CHANGELOG_QUERY_SCHEMA, { firstOnly: true })
      : undefined;
  const top = parseIntOption('$top', q.get('$top'), { min: 1, max: 100 }) ?? 100;
  const skip = parseIntOption('$skip', q.get('$skip'), { min: 0 }) ?? 0;

  const get = (e: ChangelogEntry, field: string): unknown => {
    const v = (e as unknown as Record<string, unknown>)[field];
    return field === 'modified_at' ? new Date(v as string) : v;
  };
  const matches = filter ? all.filter((e) => evaluateFilter(filter, e, get)) : all.slice();
  if (orderBy) {
    const direction = orderBy.descending ? -1 : 1;
    matches.sort(
      (a, b) => direction * compareForOrder(get(a, orderBy.field), get(b, orderBy.field)) || b.id - a.id,
    );
  } else {
    matches.reverse(); // newest first
  }
  const page = matches.slice(skip, skip + top);
  const body: Record<string, unknown> = {
    '@readLink': withQuery(url, q),
    '@context': context,
    '@count': matches.length,
    value: page,
  };
  if (skip + page.length < matches.length) {
    const next = new URLSearchParams(q);
    next.delete('$skipToken');
    next.set('$skip', String(skip + page.length));
    next.set('$top', String(top));
    body['@nextLink'] = withQuery(url, next);
  }
  return json(200, body);
}
