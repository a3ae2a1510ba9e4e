// Values checked against the tenant schema: types, maxLength, enum, pattern, read-only and unknown
// fields, multilingual shapes, links, and bodies that are not JSON objects.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/sandbox.js';
import { catalogSandbox, failuresOf } from './catalog.fixtures.js';

const { fixture, client } = catalogSandbox();

const post = (path: string, body: unknown, headers?: Record<string, string>) =>
  client.send('POST', path, body, headers);

describe('write validation', () => {
  it('a value of the wrong type is a 400 keyed by the field, with PropertyName, ErrorMessage, AttemptedValue', async () => {
    const f = failuresOf(
      await post('/Products', { prod_ref: 'T-1', prod_pack_size: '12' }),
      'prod_pack_size',
    );
    expect(f).toEqual([
      {
        PropertyName: 'prod_pack_size',
        ErrorMessage: "Invalid value for prod_pack_size: expected an integer, found the text '12'",
        AttemptedValue: '12',
      },
    ]);
    failuresOf(await post('/Products', { prod_ref: 'T-1', prod_pack_size: 1.5 }), 'prod_pack_size');
    failuresOf(await post('/Products', { prod_ref: 'T-1', prod_weight: '1.5' }), 'prod_weight');
    failuresOf(await post('/Products', { prod_ref: 'T-1', prod_is_new: 'true' }), 'prod_is_new');
    failuresOf(await post('/Products', { prod_ref: 'T-1', prod_brand: 12 }), 'prod_brand');
    failuresOf(await post('/Products', { prod_ref: 'T-1', prod_tags: 'a,b' }), 'prod_tags');
    failuresOf(
      await post('/Products', { prod_ref: 'T-1', prod_release_date: '2024-02-30' }),
      'prod_release_date',
    );
  });

  it('every failing field is reported in one answer', async () => {
    const r = await post('/Products', { prod_ref: 'T-1', prod_pack_size: 'x', prod_season: 'monsoon' });
    expect(Object.keys((r.body as { validationFailures: object }).validationFailures).sort()).toEqual([
      'prod_pack_size',
      'prod_season',
    ]);
  });

  it('maxLength, enum and pattern are enforced', async () => {
    expect(
      failuresOf(await post('/Products', { prod_ref: 'T-1', prod_brand: 'x'.repeat(101) }), 'prod_brand')[0]!
        .ErrorMessage,
    ).toContain('maximum is 100');
    expect(
      failuresOf(await post('/Products', { prod_ref: 'x'.repeat(65) }), 'prod_ref')[0]!.ErrorMessage,
    ).toContain('maximum is 64');
    expect(
      failuresOf(await post('/Variants', { frmt_ref: 'V-1', frmt_stat: 'gone' }), 'frmt_stat')[0]!
        .ErrorMessage,
    ).toContain('active, inactive, discontinued');
    failuresOf(
      await post('/Products', { prod_ref: 'T-1', prod_labels: ['organic', 'plastic'] }),
      'prod_labels',
    );
    expect(
      failuresOf(await post('/Variants', { frmt_ref: 'V-1', frmt_ean: '12345' }), 'frmt_ean')[0]!
        .ErrorMessage,
    ).toContain('^[0-9]{13}$');
    expect(
      (await post('/Variants', { frmt_ref: 'V-OK', frmt_ean: '3760000000017', frmt_stat: 'discontinued' }))
        .status,
    ).toBe(201);
  });

  it('read-only fields are refused as non assignable; unknown fields are refused', async () => {
    expect(
      failuresOf(await post('/Products', { prod_ref: 'T-1', prod_id: 5 }), 'prod_id')[0]!.ErrorMessage,
    ).toBe('Attribute prod_id is non assignable');
    failuresOf(
      await post('/Products', { prod_ref: 'T-1', prod_modified_at: '2024-01-01T00:00:00Z' }),
      'prod_modified_at',
    );
    expect(
      failuresOf(await post('/Products', { prod_ref: 'T-1', prod_colour: 'red' }), 'prod_colour')[0]!
        .ErrorMessage,
    ).toContain("Unknown attribute 'prod_colour'");
  });

  it('a POST without its reference is a 400 naming the required field', async () => {
    expect(failuresOf(await post('/Products', { prod_brand: 'A' }), 'prod_ref')[0]!.ErrorMessage).toBe(
      'Attribute prod_ref is required',
    );
  });

  it('date-times must be UTC: an offset is a 400', async () => {
    failuresOf(
      await post('/Products', { prod_ref: 'T-1', prod_date: '2024-01-01T10:00:00+02:00' }),
      'prod_date',
    );
    failuresOf(await post('/Products', { prod_ref: 'T-1', prod_date: 'yesterday' }), 'prod_date');
  });

  it('maxLength counts characters as the schema does (code points): an emoji is one', async () => {
    const ok = await post('/Products', { prod_ref: 'EMOJI-1', prod_brand: '\u{1F389}'.repeat(100) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(
      failuresOf(
        await post('/Products', { prod_ref: 'EMOJI-2', prod_brand: '\u{1F389}'.repeat(101) }),
        'prod_brand',
      )[0]!.ErrorMessage,
    ).toContain('is 101 characters long; the maximum is 100');
  });

  it('dates of the years 0-99 are dates; a time past 23:59 is not one', async () => {
    const early = await post('/Products', { prod_ref: 'Y-0099', prod_release_date: '0099-12-31' });
    expect(early.status, JSON.stringify(early.body)).toBe(201);
    const first = await post('/Products', { prod_ref: 'Y-0001', prod_release_date: '0001-01-01' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    failuresOf(
      await post('/Products', { prod_ref: 'Y-0002', prod_release_date: '0099-02-29' }),
      'prod_release_date',
    );
    for (const late of ['2024-03-01T24:00:00Z', '2024-03-01T10:60:00Z', '0099-02-29T10:00:00Z'])
      failuresOf(await post('/Products', { prod_ref: 'T-24', prod_date: late }), 'prod_date');
  });

  it('a multilingual string is written in the Accept-Language culture, else the base language', async () => {
    const id = client.idOf(
      await post('/Products', { prod_ref: 'ML-1', prod_title: 'Titre' }, { 'accept-language': 'fr' }),
    );
    const read = async (lang: string) =>
      (
        (await client.get(`/Products(${id})`, { 'accept-language': lang })).body as {
          value: { prod_title: unknown };
        }
      ).value.prod_title;
    expect(await read('fr')).toBe('Titre');
    expect(await read('en')).toBe(null);
    const id2 = client.idOf(await post('/Products', { prod_ref: 'ML-2', prod_title: 'Title' }));
    expect(
      ((await client.get(`/Products(${id2})`)).body as { value: { prod_title: unknown } }).value.prod_title,
    ).toBe('Title');
  });

  it('a multilingual object takes tenant cultures only; a language the field does not have is a 400', async () => {
    const id = client.idOf(
      await post('/Products', { prod_ref: 'ML-3', prod_title: { en: 'Hat', fr: 'Chapeau', es: 'Sombrero' } }),
    );
    expect(id).toBeGreaterThan(0);
    expect(
      failuresOf(await post('/Products', { prod_ref: 'ML-4', prod_title: { de: 'Hut' } }), 'prod_title')[0]!
        .ErrorMessage,
    ).toContain("no language 'de'");
    failuresOf(await post('/Variants', { frmt_ref: 'ML-V', frmt_color: { es: 'Rojo' } }), 'frmt_color');
    failuresOf(
      await post('/Variants', { frmt_ref: 'ML-V', frmt_color: 'Rojo' }, { 'accept-language': 'es' }),
      'frmt_color',
    );
    failuresOf(await post('/Products', { prod_ref: 'ML-5', prod_brand: { en: 'A' } }), 'prod_brand');
  });

  it('links must name existing records', async () => {
    failuresOf(await post('/Products', { prod_ref: 'L-1', cat_ids: [1, 99999] }), 'cat_ids');
    failuresOf(await post('/Products', { prod_ref: 'L-1', typ_id: 99999 }), 'typ_id');
    failuresOf(await post('/Variants', { frmt_ref: 'L-V', prod_id: 99999 }), 'prod_id');
  });

  it('a body that is not JSON, not an object, or missing is a 400 keyed by body, never a 500', async () => {
    const raw = await call(fixture.sb.catalogUrl, '/Products', {
      key: fixture.sb.apiKey,
      method: 'POST',
      body: '{"prod_ref": ',
      headers: { 'content-type': 'application/json' },
    });
    failuresOf(raw, 'body');
    expect(failuresOf(await post('/Products', [{ prod_ref: 'A' }]), 'body')[0]!.ErrorMessage).toContain(
      'found an array',
    );
    failuresOf(await post('/Products', '"text"'), 'body');
    failuresOf(await post('/Products', 'null'), 'body');
    failuresOf(await client.send('POST', '/Products'), 'body');
    failuresOf(await client.send('PATCH', '/Products(1)', '[1,2]'), 'body');
  });
});
