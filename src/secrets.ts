// Secrets never leave the process in what it prints or stores. Two rules, applied where text goes out
// (stderr, summaries, reports and the journal): a URL loses its `user:password@` and the values of
// query parameters that look like credentials, and the values registered here (the API key, once the
// settings are read, in whatever shape a config file gave it) are replaced by `***` wherever they
// appear.

/**
 * Query parameter names whose values are credentials: any name containing one of these (`api_key`,
 * `access_token`, `X-Amz-Signature`, `client_secret`, `pwd`, `sig`, ...). Masking one parameter too
 * many costs nothing; one too few leaks a secret.
 */
const SECRET_PARAM =
  /key|token|secret|sig|pass|pwd|auth|credential|session|code|jwt|bearer|hmac|private|otp|sas/i;

const secrets = new Set<string>();

/**
 * Secrets shorter than this are not masked: they would mangle ordinary text. One rule for the values
 * registered here and for the API clients' own masking of their answers (api/errors.ts).
 */
export const MIN_SECRET_CHARS = 4;

/** A value that must never be shown. */
export function registerSecret(value: string): void {
  if (value.length >= MIN_SECRET_CHARS) secrets.add(value);
}

/** The values registered so far (handed to a worker thread, whose registry starts empty). */
export function registeredSecrets(): string[] {
  return [...secrets];
}

/** Every string inside a JSON value (a secret given as `["sk_live_..."]` or `{"v": "..."}`). */
export function registerSecretsIn(value: unknown): void {
  if (typeof value === 'string') registerSecret(value.trim());
  else if (Array.isArray(value)) for (const v of value) registerSecretsIn(v);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value as Record<string, unknown>)) registerSecretsIn(v);
}

/** A URL as it may be shown: credentials and secret-looking query values replaced by `***`. */
export function redactUrl(spec: string): string {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    return spec.replace(/\/\/[^/@\s]*@/, '//***@').replace(/\?.*$/, '?***');
  }
  let masked = false;
  if (url.username || url.password) {
    url.username = '***';
    url.password = '';
    masked = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (!SECRET_PARAM.test(name)) continue;
    url.searchParams.set(name, '***');
    masked = true;
  }
  // A URL with nothing to hide is shown exactly as written (not as the URL parser would spell it).
  if (!masked) return spec;
  // URLSearchParams encodes `*`; keep the mask readable.
  return url.toString().replaceAll('%2A%2A%2A', '***');
}

/** A URL inside text: up to a space, a quote or a backslash (which may escape a quote in JSON). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`\\]+/gi;

/** Free text as it may be shown: every URL in it redacted, every registered secret masked. */
export function redactText(text: string): string {
  let out = text.includes('://') ? text.replace(URL_IN_TEXT, (url) => redactUrl(url)) : text;
  for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, '***');
  return out;
}

/** The record itself when no text field needs redacting (the usual case), else a redacted copy. */
export function redactFields<T extends object>(record: T): T {
  let out: Record<string, unknown> | undefined;
  // By key, not Object.entries (a pair per field): this runs for every line of a journal and report.
  for (const key in record) {
    const value: unknown = record[key];
    if (typeof value !== 'string') continue;
    const safe = redactText(value);
    if (safe === value) continue;
    const copy: Record<string, unknown> = out ?? { ...(record as Record<string, unknown>) };
    copy[key] = safe;
    out = copy;
  }
  return (out as T | undefined) ?? record;
}
