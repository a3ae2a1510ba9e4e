// How request URLs are spelled. The $filter builder measures URLs with the same functions the
// clients send them with, so a length budget holds for what actually goes on the wire.

export type QueryValue = string | number | boolean | undefined | null;
export type Query = Record<string, QueryValue>;

/** Percent-encodes a raw path (`/CustomEntities('Store Locations')`), keeping OData's `$ ( ) ' , =` readable. */
export function encodePath(raw: string): string {
  let out = '';
  for (const ch of raw) {
    out += /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/.test(ch) ? ch : encodeURIComponent(ch);
  }
  return out;
}

/** One query value, encoded as sent: every reserved character escaped, spaces as %20. */
export function encodeQueryValue(value: string): string {
  return encodeURIComponent(value);
}

/** `?a=1&b=2` (empty string when nothing to send). Keys are sent as written (`$filter`), values encoded. */
export function encodeQuery(query: Query | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    parts.push(`${encodeKey(key)}=${encodeQueryValue(String(value))}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

function encodeKey(key: string): string {
  return encodeURIComponent(key).replace(/^%24/, '$');
}

/** The OData key segment of a custom entity: `/CustomEntities('Store Locations')` (quotes in the name doubled). */
export function customEntityPath(denominator: string): string {
  return `/CustomEntities('${denominator.replaceAll("'", "''")}')`;
}

/** A base URL without its trailing slash. */
export function trimBase(url: string): string {
  return url.replace(/\/+$/, '');
}
