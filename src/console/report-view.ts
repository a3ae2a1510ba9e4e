// What the grid asks of a report: a page of its lines filtered by outcome, searched by ref or value,
// sorted by a column. A filter's or sort's result is kept as ordinals (4 bytes a line), never as rows;
// the rows of the page asked for are then read by their offsets (report-index.ts).
import { takeOldest } from '../bounded-map.js';
import { Growing, type ReportIndex, type ReportRow, rawField } from './report-index.js';

export interface ReportQuery {
  outcomes?: string[];
  /** Text to find in the ref, the value or the changed fields (case does not matter). */
  search?: string;
  sort?: { field: SortField; dir: 'asc' | 'desc' };
  page: number;
  size: number;
}

export const SORT_FIELDS = [
  'n',
  'location',
  'entity',
  'ref',
  'outcome',
  'id',
  'status',
  'column',
  'message',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export interface ReportPage {
  /** Lines that match, in all. */
  total: number;
  last_page: number;
  data: Array<ReportRow & { n: number }>;
}

/** Sort keys are cut to this many characters: an order good for people, bounded in memory. */
const SORT_KEY_CHARS = 24;

/** The ordinals of one filter and order: computed once, reused while the report does not grow. */
interface View {
  count: number;
  ordinals: Uint32Array | undefined;
  total: number;
}

export class ReportViews {
  private readonly views = new Map<string, View>();

  constructor(private readonly index: ReportIndex) {}

  async page(query: ReportQuery): Promise<ReportPage> {
    await this.index.refresh();
    const view = await this.view(query);
    const size = Math.max(1, Math.min(query.size, 1000));
    const first = Math.max(0, (query.page - 1) * size);
    const last = Math.min(view.total, first + size);
    const ordinals: number[] = [];
    const descending = query.sort?.field === 'n' && query.sort.dir === 'desc';
    for (let i = first; i < last; i++) {
      const k = descending && !view.ordinals ? view.total - 1 - i : i;
      ordinals.push(view.ordinals ? view.ordinals[k]! : k);
    }
    return {
      total: view.total,
      last_page: Math.max(1, Math.ceil(view.total / size)),
      data: await this.index.read(ordinals),
    };
  }

  private async view(query: ReportQuery): Promise<View> {
    const key = JSON.stringify([query.outcomes ?? [], query.search ?? '', query.sort ?? null]);
    const known = this.views.get(key);
    if (known && known.count === this.index.count) return known;
    const view = await this.compute(query);
    this.views.delete(key);
    this.views.set(key, view);
    // A few recent views per report: each is at most 4 bytes a line.
    if (this.views.size > 6) takeOldest(this.views);
    return view;
  }

  private async compute(query: ReportQuery): Promise<View> {
    const count = this.index.count;
    const search = query.search?.trim().toLowerCase();
    const sort = query.sort && query.sort.field !== 'n' ? query.sort : undefined;
    if (!search && !sort) {
      if (!query.outcomes?.length) return { count, ordinals: undefined, total: count };
      const ordinals = await this.index.withOutcomes(query.outcomes);
      if (query.sort?.dir === 'desc') ordinals.reverse();
      return { count, ordinals, total: ordinals.length };
    }
    const outcomes = query.outcomes?.length ? new Set(query.outcomes) : undefined;
    const found = new Growing();
    const keys: Array<string | number> = [];
    // Lines that cannot match are passed over on their raw text, without being parsed.
    const needle = search && JSON.stringify(search).slice(1, -1);
    const outcomeKeys = outcomes && [...outcomes].map((o) => `"outcome":${JSON.stringify(o)}`);
    const maybe = (text: string) =>
      (!needle || text.toLowerCase().includes(needle)) &&
      (!outcomeKeys || outcomeKeys.some((k) => text.includes(k)));
    // The outcome test on the text is exact (`"outcome":"failed"`, quotes included); a search found in
    // the text is checked on the parsed row; a sort key is read from the text.
    for await (const [n, text] of this.index.scan(maybe)) {
      const row = search ? this.index.parse(text) : undefined;
      if (row && search && !matches(row, search)) continue;
      found.push(n);
      if (sort)
        keys.push(
          sortKey(
            row ? (row as Record<string, unknown>)[sort.field] : rawField(text, sort.field),
            sort.field,
          ),
        );
    }
    let ordinals = found.done();
    if (sort) {
      const order = new Uint32Array(ordinals.length);
      for (let i = 0; i < order.length; i++) order[i] = i;
      const sign = sort.dir === 'desc' ? -1 : 1;
      // Keys of one field are all numbers or all texts: one comparison each, no conversions.
      const numeric = typeof keys[0] === 'number';
      const byKey = numeric
        ? (a: number, b: number) => (keys[a] as number) - (keys[b] as number)
        : (a: number, b: number) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0);
      order.sort((a, b) => sign * byKey(a, b) || a - b);
      ordinals = order.map((i) => ordinals[i]!);
    } else if (query.sort?.dir === 'desc') ordinals.reverse();
    return { count, ordinals, total: ordinals.length };
  }
}

function matches(row: ReportRow, search: string): boolean {
  return [row.ref, row.value, row.changed].some((text) => text?.toLowerCase().includes(search));
}

function sortKey(value: unknown, field: SortField): string | number {
  if (field === 'id' || field === 'status') {
    const number = Number(value);
    return value === '' || value === undefined || Number.isNaN(number) ? Number.NEGATIVE_INFINITY : number;
  }
  return String(value ?? '').slice(0, SORT_KEY_CHARS);
}
