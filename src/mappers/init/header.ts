// Reading a header's parts: `Gewicht (kg)` is weight in kilograms, `Price (EUR)` a price in euros,
// `Title (FR)`, `title_de`, `Name DE` a title in one language.

/** Units and currencies a header may name; they say how to read the values, not which field. */
const UNITS = new Set([
  'kg',
  'g',
  'gr',
  'mg',
  'lb',
  'lbs',
  'oz',
  't',
  'mm',
  'cm',
  'm',
  'in',
  'inch',
  'ft',
  'ml',
  'cl',
  'l',
  'eur',
  'usd',
  'gbp',
  'chf',
  'jpy',
  'sek',
  'nok',
  'dkk',
  'pln',
  'czk',
  'cad',
  'aud',
  '€',
  '$',
  '£',
  '¥',
  'stk',
  'pcs',
  'pc',
  'pieces',
  'units',
  '%',
]);

/** Two-letter language codes a header suffix may carry (the tenant decides which of them are usable). */
const LANGUAGES = new Set([
  'en',
  'de',
  'fr',
  'es',
  'it',
  'nl',
  'pt',
  'pl',
  'sv',
  'da',
  'fi',
  'no',
  'nb',
  'cs',
  'sk',
  'hu',
  'ro',
  'el',
  'tr',
  'ru',
  'uk',
  'ja',
  'zh',
  'ko',
  'ar',
  'he',
  'bg',
  'hr',
  'sl',
  'et',
  'lv',
  'lt',
]);

export interface HeaderParts {
  /** The header without its unit and language: `Gewicht`, `Title`. */
  base: string;
  /** A unit or currency the header names, lower case: `kg`, `eur`, `€`. */
  unit?: string;
  /** A language code the header names (`fr`, `de`, `pt-br`), whether or not the tenant has it. */
  language?: string;
  /** The header says its cells are lists: PrestaShop's `Tags (x,y,z...)` -> `,`. */
  list?: string;
}

/** Splits off, from the end, a unit or currency and a language in any order: `Preis (EUR) DE`. */
export function headerParts(header: string): HeaderParts {
  // `Name *` (required), `Reference #`: marks, not words.
  let base = header.trim().replace(/\s*[*#]+$/, '');
  const parts: HeaderParts = { base };
  // A format hint in brackets says how to read the cells, not which field: `(x,y,z...)`, `(0/1)`, `(yyyy-mm-dd)`.
  for (let hint = /^(.*?)\s*\(([^()]*[^\p{L}()][^()]*)\)\s*[*#]?$/u.exec(base); hint?.[1]; ) {
    const list = /^\s*x\s*([,;|])\s*y/.exec(hint[2]!);
    if (list) parts.list = list[1];
    base = hint[1].trim();
    hint = /^(.*?)\s*\(([^()]*[^\p{L}()][^()]*)\)\s*$/u.exec(base);
  }
  for (let round = 0; round < 2; round++) {
    const m =
      /^(.*?)\s*(?:\(([^()]+)\)|\[([^[\]]+)\]|(?:[:_\-./]|\s+in\s+|\s+)\s*([\p{L}€$£¥%]{1,6}(?:[-_][A-Za-z]{2,4})?))\s*$/u.exec(
        base,
      );
    if (!m?.[1]) break;
    const token = (m[2] ?? m[3] ?? m[4] ?? '').trim();
    const lower = token.toLowerCase();
    const language = languageCode(lower);
    if (!parts.unit && UNITS.has(lower)) parts.unit = lower;
    else if (!parts.language && language) parts.language = language;
    else break;
    base = m[1].trim();
  }
  parts.base = base;
  return parts;
}

/** `fr`, `FR`, `pt-BR`, `pt_br` -> `fr`, `fr`, `pt-br`; anything else -> undefined. */
function languageCode(token: string): string | undefined {
  const m = /^([a-z]{2})(?:[-_]([a-z]{2,4}))?$/.exec(token);
  if (!m || !LANGUAGES.has(m[1]!)) return undefined;
  return m[2] ? `${m[1]}-${m[2]}` : m[1];
}

/** Levenshtein distance, stopping early once it exceeds `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}
