// GET /images: $filter on the allowed fields (names case-insensitive), $orderby (first expression
// honoured), $top 1..100, $skip >= 0, @count always, links only with hypermedia enrichment, and the
// demo seed.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AssetDirectory } from '../../src/sandbox/context.js';
import { DEMO_FILES, DEMO_IMAGES } from '../../src/sandbox/seed/assets.js';
import { call, useSandbox } from '../helpers/sandbox.js';

type Page = {
  value: Array<{ id: number; reference: string; status: string }>;
  '@count': number;
  '@readLink'?: string;
  '@nextLink'?: string;
};

const plain = useSandbox({ seed: 'empty', processingMs: 5 });
const linked = useSandbox({ seed: 'empty', processingMs: 5, damLinks: true });
const demo = useSandbox({ seed: 'demo' });

const NAMES = ['a-one.png', 'b-two.jpg', 'c-three.png', 'd-four.gif', 'e-five.png'];

async function fill(fx: typeof plain) {
  for (const name of NAMES) {
    const res = await call(fx.sb.damUrl, '/images', {
      method: 'POST',
      key: fx.sb.apiKey,
      body: { url: `${fx.sb.assetsUrl}/${name}` },
    });
    expect(res.status).toBe(201);
  }
}

async function list(fx: typeof plain, query: Record<string, string>) {
  const qs = new URLSearchParams(query).toString();
  return call(fx.sb.damUrl, `/images${qs ? `?${qs}` : ''}`, { key: fx.sb.apiKey });
}

async function page(fx: typeof plain, query: Record<string, string>): Promise<Page> {
  const res = await list(fx, query);
  expect(res.status).toBe(200);
  return res.body as Page;
}

beforeAll(async () => {
  await fill(plain);
  await fill(linked);
});

describe('paging', () => {
  it('pages by $skip with @count on every page and no links by default', async () => {
    const seen: string[] = [];
    for (let skip = 0; ; skip += 2) {
      const body = await page(plain, { $top: '2', $skip: String(skip) });
      expect(body['@count']).toBe(5);
      expect(body['@nextLink']).toBeUndefined();
      expect(body['@readLink']).toBeUndefined();
      seen.push(...body.value.map((i) => i.reference));
      if (body.value.length < 2) break;
    }
    expect(seen).toEqual(NAMES);
  });

  it('@count counts all matches, ignoring $top and $skip; a skip past the end is an empty page', async () => {
    const body = await page(plain, { $skip: '50' });
    expect(body.value).toEqual([]);
    expect(body['@count']).toBe(5);
  });

  it('with hypermedia enrichment: @readLink echoes the request, @nextLink until the last page', async () => {
    const first = await page(linked, { $top: '2' });
    expect(first['@readLink']).toBe(`${linked.sb.damUrl}/images?%24top=2`);
    expect(first['@nextLink']).toBeDefined();
    const second = (await call(first['@nextLink']!, '', { key: linked.sb.apiKey })).body as Page;
    expect(second.value.map((i) => i.reference)).toEqual(NAMES.slice(2, 4));
    const last = (await call(second['@nextLink']!, '', { key: linked.sb.apiKey })).body as Page;
    expect(last.value.map((i) => i.reference)).toEqual(NAMES.slice(4));
    expect(last['@nextLink']).toBeUndefined();
  });

  it('$top outside 1..100 and a negative $skip are 400 keyed by the parameter', async () => {
    for (const [name, value] of [
      ['$top', '0'],
      ['$top', '101'],
      ['$top', 'ten'],
      ['$skip', '-1'],
    ] as const) {
      const res = await list(plain, { [name]: value });
      expect(res.status, `${name}=${value}`).toBe(400);
      const failures = (res.body as { validationFailures: Record<string, Array<Record<string, unknown>>> })
        .validationFailures;
      expect(Object.keys(failures)).toEqual([name]);
      expect(failures[name]![0]).toMatchObject({ PropertyName: name, AttemptedValue: value });
      expect(typeof failures[name]![0]!.ErrorMessage).toBe('string');
    }
  });

  it('$top=100 is accepted', async () => {
    expect((await page(plain, { $top: '100' })).value).toHaveLength(5);
  });
});

describe('$filter', () => {
  it('field names are case-insensitive', async () => {
    const body = await page(plain, { $filter: "REFERENCE eq 'b-two.jpg'" });
    expect(body.value.map((i) => i.reference)).toEqual(['b-two.jpg']);
    expect(body['@count']).toBe(1);
    expect((await page(plain, { $filter: "FileType eq 'png'" })).value.map((i) => i.reference)).toEqual([
      'a-one.png',
      'c-three.png',
      'e-five.png',
    ]);
  });

  it('operators and functions on the allowed fields', async () => {
    const ids = (await page(plain, {})).value.map((i) => i.id);
    expect((await page(plain, { $filter: `id in (${ids[0]}, ${ids[1]})` }))['@count']).toBe(2);
    expect((await page(plain, { $filter: `id gt ${ids[2]} and numLinks eq 0` }))['@count']).toBe(2);
    expect(
      (await page(plain, { $filter: "startswith(reference,'c-') or endswith(reference,'.gif')" }))['@count'],
    ).toBe(2);
    expect(
      (await page(plain, { $filter: "not contains(reference,'o')" })).value.map((i) => i.reference),
    ).toEqual(['c-three.png', 'e-five.png']);
    expect((await page(plain, { $filter: "status eq 'Ok' or status eq 'Up'" }))['@count']).toBe(5);
  });

  it('dates compare as UTC with Z; an offset is refused', async () => {
    expect(
      (
        await page(plain, {
          $filter: 'createdOn ge 2000-01-01T00:00:00Z and modifiedOn lt 2999-01-01T00:00:00Z',
        })
      )['@count'],
    ).toBe(5);
    const res = await list(plain, { $filter: 'createdOn ge 2000-01-01T00:00:00+02:00' });
    expect(res.status).toBe(400);
    expect(Object.keys((res.body as { validationFailures: object }).validationFailures)).toEqual(['$filter']);
  });

  it('a field outside the allowed list is 400 keyed by $filter', async () => {
    for (const field of ['width', 'tags', 'originalUrl', 'sizeInBytes']) {
      const res = await list(plain, { $filter: `${field} eq 1` });
      expect(res.status, field).toBe(400);
      const failure = (res.body as { validationFailures: Record<string, Array<Record<string, unknown>>> })
        .validationFailures.$filter![0]!;
      expect(failure.PropertyName).toBe(field);
      expect(failure.AttemptedValue).toBe(`${field} eq 1`);
    }
  });

  it('invalid syntax is 400 keyed by $filter', async () => {
    const res = await list(plain, { $filter: "reference eq 'unterminated" });
    expect(res.status).toBe(400);
    expect(Object.keys((res.body as { validationFailures: object }).validationFailures)).toEqual(['$filter']);
  });
});

describe('$orderby, $select, $expand', () => {
  it('sorts on an allowed field, asc or desc, names case-insensitive', async () => {
    const desc = await page(plain, { $orderby: 'Reference desc' });
    expect(desc.value.map((i) => i.reference)).toEqual([...NAMES].reverse());
    const byId = await page(plain, { $orderby: 'id asc' });
    expect(byId.value.map((i) => i.reference)).toEqual(NAMES);
  });

  it('only the first expression is honoured; the rest is ignored', async () => {
    const body = await page(plain, { $orderby: 'id desc, reference asc, nonsense' });
    expect(body.value.map((i) => i.reference)).toEqual([...NAMES].reverse());
  });

  it('a field outside the allowed list is 400 keyed by $orderby', async () => {
    const res = await list(plain, { $orderby: 'width desc' });
    expect(res.status).toBe(400);
    const failure = (res.body as { validationFailures: Record<string, Array<Record<string, unknown>>> })
      .validationFailures.$orderby![0]!;
    expect(failure).toMatchObject({ PropertyName: 'width', AttemptedValue: 'width desc' });
  });

  it('$select and $expand are ignored: full records come back', async () => {
    const body = await page(plain, { $select: 'id', $expand: 'anything', $top: '1' });
    expect(Object.keys(body.value[0]!)).toContain('thumbnailUrl');
  });
});

describe('demo seed', () => {
  it('holds every demo image (status Ok, with its dimensions) and every demo file', async () => {
    const body = await page(demo, { $top: '100' });
    expect(body['@count']).toBe(DEMO_IMAGES.length);
    for (const seeded of DEMO_IMAGES) {
      const res = await call(demo.sb.damUrl, `/images(${encodeURIComponent(seeded.reference)})`, {
        key: demo.sb.apiKey,
      });
      expect(res.body).toMatchObject({
        value: { reference: seeded.reference, status: 'Ok', width: seeded.width, height: seeded.height },
      });
    }
    const directory = demo.sb.services.dam as unknown as AssetDirectory;
    for (const seeded of DEMO_FILES) expect(directory.fileExists(seeded.reference)).toBe(true);
    expect(directory.imageExists(DEMO_IMAGES[0]!.reference)).toBe(true);
  });

  it("a demo image's originalUrl serves a real image of its dimensions", async () => {
    const seeded = DEMO_IMAGES[0]!;
    const res = await call(demo.sb.damUrl, `/images(${encodeURIComponent(seeded.reference)})`, {
      key: demo.sb.apiKey,
    });
    const url = (res.body as { value: { originalUrl: string } }).value.originalUrl;
    const { imageSize } = await import('image-size');
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    expect(imageSize(bytes)).toMatchObject({ width: seeded.width, height: seeded.height });
  });
});
