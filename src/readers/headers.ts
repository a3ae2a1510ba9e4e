// Header checks shared by the CSV and XLSX readers: a trailing empty header (from a line ending in
// the delimiter) is dropped; any other empty or repeated name is a file error naming it.
import { CatalogIoError } from '../errors.js';

export function checkHeaders(raw: string[], location: string): string[] {
  const names = raw.map((name) => name.trim());
  while (names.length > 0 && names[names.length - 1] === '') names.pop();
  if (names.length === 0) {
    throw new CatalogIoError('CSV_HEADER_EMPTY', 'No header: the header row is empty', { location });
  }
  const empty = names.flatMap((name, i) => (name === '' ? [i + 1] : []));
  if (empty.length > 0) {
    throw new CatalogIoError(
      'CSV_HEADER_EMPTY',
      `Empty column name in the header: column ${empty.join(', ')} has no name; every column needs one`,
      { location, columns: empty },
    );
  }
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) duplicates.add(name);
    seen.add(name);
  }
  if (duplicates.size > 0) {
    const list = [...duplicates].map((name) => `"${name}"`).join(', ');
    throw new CatalogIoError('CSV_HEADER_DUPLICATE', `Duplicate column name in the header: ${list}`, {
      location,
      columns: [...duplicates],
    });
  }
  return names;
}

/** Cells keyed by header with a null prototype, so `__proto__` or `constructor` are ordinary keys. */
export function emptyCells<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
