// Accept-Language: one culture code, matched to a tenant language. `*`, several codes and q-values
// are refused, as the spec says; a region form (`fr-FR`) reads the tenant's `fr`.
import { ODataError } from '../odata/types.js';

export function requestCulture(header: string | undefined, languages: readonly string[]): string {
  const base = languages[0]!;
  if (header === undefined) return base;
  const value = header.trim();
  if (value === '' || value.toLowerCase() === 'null') return base;
  const refuse = (why: string) =>
    new ODataError(
      'Accept-Language',
      `Accept-Language '${value}' is not supported: ${why}`,
      'Accept-Language',
      value,
    );
  if (value === '*') throw refuse('give one culture code, not *');
  if (value.includes(',')) throw refuse('give one culture code, not several');
  if (value.includes(';')) throw refuse('q-factor weighting is not supported');
  const lower = value.toLowerCase();
  const exact = languages.find((l) => l.toLowerCase() === lower);
  if (exact) return exact;
  const language = lower.split(/[-_]/)[0]!;
  const byLanguage = /^[a-z]{2,3}([-_][a-z0-9]{2,8})*$/.test(lower)
    ? languages.find((l) => l.toLowerCase() === language)
    : undefined;
  if (byLanguage) return byLanguage;
  throw refuse(`the catalog's cultures are ${languages.join(', ')}`);
}
