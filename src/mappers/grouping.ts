// One row per variant: the product columns repeat on every row of the product. The product is drafted the
// first time its ref is seen; later rows must agree with it. Memory is bounded: only the last `window`
// product refs are remembered (consecutive rows always group; a ref that comes back after more than
// `window` other products is drafted again, which the import's MERGE makes harmless).
import { takeOldest } from '../bounded-map.js';
import { describeValue } from '../schema/messages.js';
import type { Draft, FieldValue, RowIssue } from './types.js';

interface Remembered {
  location: string;
  values: Map<string, string>;
}

export class ProductGroups {
  private readonly recent = new Map<string, Remembered>();

  constructor(private readonly window: number) {}

  /** `first`: draft the product; `conflicts`: values that disagree with the row that drafted it. */
  see(product: Draft, location: string): { first: boolean; conflicts: RowIssue[] } {
    if (!product.ref) return { first: true, conflicts: [] };
    const values = flatten(product);
    const known = this.recent.get(product.ref);
    if (!known) {
      this.recent.set(product.ref, { location, values });
      if (this.recent.size > this.window) takeOldest(this.recent);
      return { first: true, conflicts: [] };
    }
    // Refresh the entry: it is the most recently used now.
    this.recent.delete(product.ref);
    this.recent.set(product.ref, known);
    const conflicts: RowIssue[] = [];
    for (const [path, value] of values) {
      const before = known.values.get(path);
      if (before !== undefined && before !== value) {
        const brief = `disagrees with ${known.location} for product "${product.ref}"`;
        conflicts.push({
          code: 'VALIDATION',
          severity: 'error',
          field: path,
          column: product.source.columns[path] ?? product.source.columns[path.split('.')[0]!],
          value: JSON.parse(value),
          message: `${brief}: ${describeValue(JSON.parse(value))} here, ${describeValue(JSON.parse(before))} there`,
          brief,
        });
      }
    }
    return { first: false, conflicts };
  }
}

function flatten(draft: Draft): Map<string, string> {
  const out = new Map<string, string>();
  const put = (path: string, v: FieldValue | string[] | undefined) => {
    if (v !== undefined) out.set(path, JSON.stringify(v));
  };
  for (const [field, v] of Object.entries(draft.fields)) put(field, v);
  for (const [culture, fields] of Object.entries(draft.cultures)) {
    for (const [field, v] of Object.entries(fields)) put(`${field}.${culture}`, v);
  }
  put('link:categoryRefs', draft.links.categoryRefs);
  return out;
}
