// The one redactor of the project: credential-like query parameters of any URL in any text, the user
// and password of a URL, and the API key registered once the settings are read, wherever they turn up.
import { describe, expect, it } from 'vitest';
import { masker } from '../../src/api/errors.js';
import { redactFields, redactText, redactUrl, registerSecret, registerSecretsIn } from '../../src/secrets.js';

describe('redactUrl', () => {
  const names = [
    'pwd',
    'password',
    'passwd',
    'token',
    'access_token',
    'key',
    'api_key',
    'apikey',
    'secret',
    'client_secret',
    'signature',
    'X-Amz-Signature',
    'sig',
    'auth',
    'Authorization',
    'X-Amz-Credential',
    'session',
    'jwt',
  ];
  for (const name of names) {
    it(`masks ${name}=`, () => {
      const shown = redactUrl(`https://feeds.example.com/f.csv?page=2&${name}=hunter2&lang=fr`);
      expect(shown).toBe(`https://feeds.example.com/f.csv?page=2&${name}=***&lang=fr`);
    });
  }

  it('masks user and password, and leaves a URL with nothing to hide exactly as written', () => {
    expect(redactUrl('https://bob:pa55@h.example/f.csv')).toBe('https://***@h.example/f.csv');
    expect(redactUrl('http://evil\\path?page=2')).toBe('http://evil\\path?page=2');
  });
});

describe('redactText', () => {
  it('redacts every URL in a sentence and keeps JSON valid', () => {
    const text = JSON.stringify({
      message: 'image "http://cdn.example/a.jpg?sig=S1" failed; see https://h.example/x?token=T2',
    });
    const shown = redactText(text);
    expect(shown).not.toMatch(/S1|T2/);
    expect(JSON.parse(shown).message).toBe(
      'image "http://cdn.example/a.jpg?sig=***" failed; see https://h.example/x?token=***',
    );
  });

  it('masks a registered key anywhere, and every string of a secret given in another shape', () => {
    registerSecret('sk_live_registered_0001');
    registerSecretsIn({ apiKey: ['sk_live_in_a_list_0002', { deep: 'sk_live_in_an_object_0003' }] });
    const shown = redactText(
      'GET https://h.example/sk_live_registered_0001/Products failed: sk_live_in_a_list_0002, sk_live_in_an_object_0003',
    );
    expect(shown).toBe('GET https://h.example/***/Products failed: ***, ***');
    const line = { location: 'line 2', message: 'key sk_live_registered_0001', value: 'plain' };
    expect(redactFields(line)).toEqual({ location: 'line 2', message: 'key ***', value: 'plain' });
    const clean = { location: 'line 3', message: 'fine' };
    expect(redactFields(clean)).toBe(clean);
  });

  it('masks a short key as the API clients do: from four characters', () => {
    // A key of five characters used to pass the registry (six and up) while the clients masked it.
    registerSecret('k9Zq5');
    registerSecret('ab3');
    expect(redactText('rejected key k9Zq5 for tenant ab3')).toBe('rejected key *** for tenant ab3');
    expect(masker(['k9Zq5', 'ab3'])('rejected key k9Zq5 for tenant ab3')).toBe(
      'rejected key *** for tenant ab3',
    );
  });
});
