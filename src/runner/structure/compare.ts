// Layouts compared as JSON documents: equal whatever the order of an object's keys (array order
// counts: it is the order of the form), and the differences as `path: old -> new` for a plan.

/** Deep equality of JSON values; object key order is ignored. */
export function sameDocument(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameDocument(item, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameDocument((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Most differences listed for one document; the rest are counted. */
const MAX_DIFFERENCES = 12;

/** Where two documents differ, as `where: old -> new` lines (at most a dozen, then a count). */
export function documentDiff(where: string, before: unknown, after: unknown): string[] {
  const out: string[] = [];
  walk(where, before, after, out);
  if (out.length <= MAX_DIFFERENCES) return out;
  return [...out.slice(0, MAX_DIFFERENCES), `${where}: ${out.length - MAX_DIFFERENCES} more differences`];
}

function walk(path: string, a: unknown, b: unknown, out: string[]): void {
  if (sameDocument(a, b)) return;
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects = isObject(a) && isObject(b);
  // A list of field names reads best whole: `[a, b] -> [a, c]`.
  if (
    bothArrays &&
    (a as unknown[]).every((v) => typeof v !== 'object') &&
    (b as unknown[]).every((v) => typeof v !== 'object')
  ) {
    out.push(`${path}: ${show(a)} -> ${show(b)}`);
    return;
  }
  if (bothArrays) {
    const xs = a as unknown[];
    const ys = b as unknown[];
    for (let i = 0; i < Math.max(xs.length, ys.length); i++) walk(`${path}[${i}]`, xs[i], ys[i], out);
    return;
  }
  if (bothObjects) {
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    for (const k of keys)
      walk(`${path}.${k}`, (a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], out);
    return;
  }
  out.push(`${path}: ${show(a)} -> ${show(b)}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  if (v === undefined) return '(none)';
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The field names a layout names (`rows[].fields[]` of every section). */
export function layoutFields(document: unknown): string[] {
  const out: string[] = [];
  const sections = isObject(document) ? document.sections : undefined;
  if (!Array.isArray(sections)) return out;
  for (const section of sections) {
    const rows = isObject(section) ? section.rows : undefined;
    if (!Array.isArray(rows)) continue;
    for (const row of rows) {
      const fields = isObject(row) ? row.fields : undefined;
      if (Array.isArray(fields)) for (const f of fields) if (typeof f === 'string') out.push(f);
    }
  }
  return out;
}
