// What `validate` can tell of a row's image and file URLs without registering them: the DAM's URL rules
// the mapper does not check (the host: loopback, private ranges and the cloud metadata endpoint are
// refused), a cell holding several URLs read as one (a list without its separator: never registered),
// a file name the catalog refuses in a record (the mapper's verdict on the name, `AssetRef.unusable`:
// never registered, the DAM would take it), and two URLs of the file with the same file name (the DAM
// keys assets by file name: the second is refused). The import writes such a row without the asset and warns (or, under `--on-asset-error
// fail`, fails it); validate says the same. The rest (does the URL answer, is it an image) only a registration can tell: a warning,
// `image not checked`.
import type { AssetRef, Draft } from '../mappers/types.js';

/** File names remembered with their URL to find a second URL of the same name: past this, no more are. */
const NAMES_LIMIT = 100_000;
/** Where a second URL starts inside one value: `, https://`, `|http://`, ` https://`. */
const SECOND_URL = /[\s,;|]+https?:\/\//i;

/**
 * Why a value that holds several URLs (a list without its separator) is not registered, or undefined.
 * The DAM might even take it as one URL, named after the last file: the import leaves it out instead.
 */
export function severalUrls(url: string): string | undefined {
  return SECOND_URL.test(url.slice(8))
    ? 'it holds several URLs read as one (give the column its list separator: "split")'
    : undefined;
}

/** What the check says of a row's assets. */
export interface AssetFindings {
  /** Assets the import would leave out (or, under `--on-asset-error fail`, fail the row for). */
  leftOut: Array<{ field: string; column: string; value: string; message: string }>;
  /** What only the import can tell, or what looks wrong without being refused: warnings either way. */
  notes: string[];
}

const NONE: AssetFindings = { leftOut: [], notes: [] };

export class AssetCheck {
  private readonly urlOfName = new Map<string, string>();

  /** `fetchedFrom`: `host:port` of the DAM itself (a sandbox fetches from its own asset host on loopback). */
  constructor(private readonly fetchedFrom: readonly string[] = []) {}

  /** The findings on a row's drafts (none for a row without URLs). */
  row(drafts: readonly Draft[]): AssetFindings {
    let found: AssetFindings | undefined;
    const unchecked: AssetRef[] = [];
    for (const d of drafts) {
      for (const a of d.assets) {
        // A plain name (no URL) is checked by its name only; the DAM lookup tells the rest.
        const { unusable } = a;
        if (a.url === undefined && unusable === undefined) continue;
        found ??= { leftOut: [], notes: [] };
        const refused =
          a.url === undefined ? unusable : (severalUrls(a.url) ?? unusable ?? this.refusal(a, a.url));
        if (!refused) {
          unchecked.push(a);
          continue;
        }
        const path = a.culture ? `${a.field}.${a.culture}` : a.field;
        const value = a.url ?? a.name;
        found.leftOut.push({
          field: path,
          column: d.source.columns[path] ?? d.source.columns[a.field] ?? a.field,
          value,
          message: `${a.kind} '${value}': ${refused}`,
        });
      }
    }
    if (!found) return NONE;
    if (unchecked.length) found.notes.push(notChecked(unchecked));
    return found;
  }

  /** Some row's image or file name is remembered: a later row's verdict may depend on it. */
  get remembers(): boolean {
    return this.urlOfName.size > 0;
  }

  /** Why the DAM refuses this URL, told from the URL alone, or undefined. */
  private refusal(a: AssetRef, href: string): string | undefined {
    const url = parsed(href);
    if (url && refusedHost(url.hostname.toLowerCase()) && !this.fetchedFrom.includes(url.host))
      return `the DAM refuses the host '${url.hostname}'`;
    const first = this.urlOfName.get(`${a.kind}:${a.name}`);
    if (first === undefined) {
      if (this.urlOfName.size < NAMES_LIMIT) this.urlOfName.set(`${a.kind}:${a.name}`, href);
      return undefined;
    }
    if (first !== href)
      return `the file name '${a.name}' is already used by ${first} (the DAM keys assets by file name)`;
    return undefined;
  }
}

function notChecked(assets: readonly AssetRef[]): string {
  if (assets.length === 1)
    return `${assets[0]!.kind} not checked: the DAM fetches ${assets[0]!.url} on import`;
  const kind = assets.every((a) => a.kind === assets[0]!.kind) ? `${assets[0]!.kind}s` : 'images or files';
  return `${assets.length} ${kind} not checked: the DAM fetches their URLs on import`;
}

function parsed(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * A host the DAM refuses by its name or address alone (DAM spec, POST /images `url`): loopback, private
 * ranges, link-local (the cloud metadata endpoint). A name that resolves to such an address is found only
 * by the DAM.
 */
export function refusedHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const v6 = host.startsWith('[') ? host.slice(1, -1) : undefined;
  if (v6 !== undefined) {
    return (
      v6 === '::1' || v6 === '::' || /^f[cd]/i.test(v6) || /^fe[89ab]/i.test(v6) || v6.startsWith('::ffff:')
    );
  }
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return false;
  const [a, b] = parts.map(Number) as [number, number];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}
