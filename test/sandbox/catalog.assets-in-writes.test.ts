// Image and file fields in writes: one name, an array, a comma-separated string, clearing all or
// one culture, JSON-encoded strings refused, and names the DAM does not have (400 POST, 404 PATCH).
import { describe, expect, it } from 'vitest';
import { DEMO_FILES, DEMO_IMAGES } from '../../src/sandbox/seed/assets.js';
import { catalogSandbox, expectProblem, failuresOf } from './catalog.fixtures.js';

const { client } = catalogSandbox();
const [A, B, C] = DEMO_IMAGES.map((i) => i.reference) as [string, string, string];
const FILE = DEMO_FILES[0]!.reference;

async function images(id: number, lang = 'en'): Promise<unknown> {
  const r = await client.get(`/Products(${id})?$select=prod_images`, { 'accept-language': lang });
  return (r.body as { value: { prod_images: unknown } }).value.prod_images;
}

async function product(body: Record<string, unknown>): Promise<number> {
  const r = await client.send('POST', '/Products', body);
  expect(r.status, r.text).toBe(201);
  return client.idOf(r);
}

let n = 0;
const ref = () => `ASSET-${++n}`;

describe('image and file fields in writes', () => {
  it('accept one name, an array of names or a comma-separated string', async () => {
    expect(await images(await product({ prod_ref: ref(), prod_images: A }))).toEqual([A]);
    expect(await images(await product({ prod_ref: ref(), prod_images: [A, B] }))).toEqual([A, B]);
    expect(await images(await product({ prod_ref: ref(), prod_images: `${A}, ${B},${C}` }))).toEqual([
      A,
      B,
      C,
    ]);
    const v = await client.send('POST', '/Variants', { frmt_ref: ref(), frmt_image: B });
    expect(
      ((await client.get(`/Variants(${client.idOf(v)})`)).body as { value: { frmt_image: string } }).value
        .frmt_image,
    ).toBe(B);
  });

  it('a single name of a multilingual image field goes to the base language', async () => {
    const id = await product({ prod_ref: ref(), prod_images: A });
    expect(await images(id, 'en')).toEqual([A]);
    expect(await images(id, 'fr')).toEqual([]);
  });

  it("'', [] and null clear the field in all languages", async () => {
    for (const empty of ['', [], null]) {
      const id = await product({ prod_ref: ref(), prod_images: { en: [A], fr: [B] } });
      expect((await client.send('PATCH', `/Products(${id})`, { prod_images: empty })).status).toBe(204);
      expect(await images(id, 'en')).toEqual([]);
      expect(await images(id, 'fr')).toEqual([]);
    }
    const cat = client.idOf(await client.send('POST', '/Categories', { cat_ref: ref(), cat_image: C }));
    await client.send('PATCH', `/Categories(${cat})`, { cat_image: '' });
    expect(
      ((await client.get(`/Categories(${cat})`)).body as { value: { cat_image: unknown } }).value.cat_image,
    ).toBe(null);
  });

  it("{culture: ''} clears that culture only; {culture: name} sets it", async () => {
    const id = await product({ prod_ref: ref(), prod_images: { en: [A], fr: [B] } });
    expect((await client.send('PATCH', `/Products(${id})`, { prod_images: { fr: '' } })).status).toBe(204);
    expect(await images(id, 'en')).toEqual([A]);
    expect(await images(id, 'fr')).toEqual([]);
    await client.send('PATCH', `/Products(${id})`, { prod_images: { es: C } });
    expect(await images(id, 'es')).toEqual([C]);
    expect(await images(id, 'en')).toEqual([A]);
  });

  it('a multilingual value sent as a JSON-encoded string is a 400 (invalid characters in the name)', async () => {
    const f = failuresOf(
      await client.send('POST', '/Products', { prod_ref: ref(), prod_images: JSON.stringify({ en: A }) }),
      'prod_images',
    );
    expect(f[0]!.ErrorMessage).toContain('invalid characters in the name');
  });

  it('a name the DAM does not have is a 400 naming it on POST', async () => {
    const f = failuresOf(
      await client.send('POST', '/Products', { prod_ref: ref(), prod_images: [A, 'ghost.jpg'] }),
      'prod_images',
    );
    expect(f[0]!.ErrorMessage).toBe(
      "Invalid value for prod_images: the image 'ghost.jpg' does not exist in the DAM",
    );
    failuresOf(await client.send('POST', '/Products', { prod_ref: ref(), prod_manual: A }), 'prod_manual');
  });

  it('a name the DAM does not have is a 404 on PATCH whose message carries the reason', async () => {
    const id = await product({ prod_ref: ref(), prod_images: A });
    const p = expectProblem(
      await client.send('PATCH', `/Products(${id})`, { prod_images: { fr: 'ghost.jpg' } }),
      404,
    );
    expect(p.detail).toContain("the image 'ghost.jpg' does not exist in the DAM");
    expect(await images(id)).toEqual([A]);
  });

  it('file fields take DAM file names', async () => {
    const id = await product({ prod_ref: ref(), prod_manual: FILE });
    expect(
      ((await client.get(`/Products(${id})`)).body as { value: { prod_manual: string } }).value.prod_manual,
    ).toBe(FILE);
  });

  it('a single-valued image field refuses several names', async () => {
    failuresOf(await client.send('POST', '/Variants', { frmt_ref: ref(), frmt_image: [A, B] }), 'frmt_image');
  });
});
