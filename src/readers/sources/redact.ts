// Source names as they may be shown to people: a URL loses its user:password and the values of
// query parameters that look like secrets, so error messages and reports never leak them.

const SECRET_PARAM = /key|token|secret|sig|signature|pass|auth|credential|session|code/i;

/** The source as it may appear in messages: credentials and secret-looking query values replaced by `***`. */
export function displayName(spec: string): string {
  if (!/^https?:\/\//i.test(spec)) return spec;
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    return spec.replace(/\/\/[^/@]*@/, '//***@').replace(/\?.*$/, '?***');
  }
  if (url.username || url.password) {
    url.username = '***';
    url.password = '';
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, '***');
  }
  // URLSearchParams encodes `*`; keep the mask readable.
  return url.toString().replaceAll('%2A%2A%2A', '***');
}
