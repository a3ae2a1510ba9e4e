// Image lifecycle: Up -> Ok / Er by the background worker, 409 while processing, PATCH and DELETE,
// the library quota, and what the catalog sees through AssetDirectory.
import { describe, expect, it } from 'vitest';
import type { AssetDirectory } from '../../src/sandbox/context.js';
import { call, useSandbox } from '../helpers/sandbox.js';

type Image = {
  status: string;
  width: number;
  height: number;
  sizeInBytes: number;
  tags: string[];
  originalUrl: string;
  thumbnailUrl: string;
  thumbnailMediumUrl: string;
  thumbnailPreviewUrl: string;
  fileType: string;
  modifiedOn: string;
};

const fast = useSandbox({ seed: 'empty', processingMs: 20 });
const slow = useSandbox({ seed: 'empty', processingMs: 600_000 });
const quota = useSandbox({ seed: 'empty', processingMs: 10, imageQuota: 2 });

function post(fx: typeof fast, url: string, tags?: string[]) {
  return call(fx.sb.damUrl, '/images', { method: 'POST', key: fx.sb.apiKey, body: { url, tags } });
}

async function read(fx: typeof fast, reference: string): Promise<Image> {
  const res = await call(fx.sb.damUrl, `/images(${encodeURIComponent(reference)})`, { key: fx.sb.apiKey });
  expect(res.status).toBe(200);
  return (res.body as { value: Image }).value;
}

/** Polls until the worker has moved the image out of Up (short sleeps, bounded). */
async function settled(fx: typeof fast, reference: string): Promise<Image> {
  for (let i = 0; i < 500; i++) {
    const image = await read(fx, reference);
    if (image.status !== 'Up') return image;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`image ${reference} still Up`);
}

function patch(fx: typeof fast, reference: string, body: unknown) {
  return call(fx.sb.damUrl, `/images(${encodeURIComponent(reference)})`, {
    method: 'PATCH',
    key: fx.sb.apiKey,
    body,
  });
}

function remove(fx: typeof fast, reference: string) {
  return call(fx.sb.damUrl, `/images(${encodeURIComponent(reference)})`, {
    method: 'DELETE',
    key: fx.sb.apiKey,
  });
}

describe('background processing', () => {
  it('Up -> Ok: the worker records width, height, sizeInBytes and thumbnail URLs that serve real renditions', async () => {
    expect((await post(fast, `${fast.sb.assetsUrl}/ok.png?w=640&h=320`)).status).toBe(201);
    const image = await settled(fast, 'ok.png');
    expect(image.status).toBe('Ok');
    expect([image.width, image.height]).toEqual([640, 320]);
    const original = await fetch(image.originalUrl);
    expect(image.sizeInBytes).toBe((await original.arrayBuffer()).byteLength);
    for (const url of [image.thumbnailUrl, image.thumbnailMediumUrl, image.thumbnailPreviewUrl]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      await res.arrayBuffer();
    }
    expect(image.thumbnailUrl).toContain('w=150&h=75');
  });

  it('Up -> Er: content carrying the processing-failure marker passes the POST checks but fails processing', async () => {
    for (const name of ['fail.png', 'fail.jpg', 'fail.webp']) {
      expect((await post(fast, `${fast.sb.assetsUrl}/${name}?process=fail`)).status).toBe(201);
      const image = await settled(fast, name);
      expect(image.status, name).toBe('Er');
      expect(image.thumbnailUrl).toBe('');
      expect(image.width).toBe(0);
    }
  });

  it('an image in Er can be deleted', async () => {
    await post(fast, `${fast.sb.assetsUrl}/er-delete.png?process=fail`);
    expect((await settled(fast, 'er-delete.png')).status).toBe('Er');
    expect((await remove(fast, 'er-delete.png')).status).toBe(204);
  });
});

describe('409 while processing (status Up)', () => {
  it('PATCH and DELETE of an image in Up answer 409 {error}; the image stays', async () => {
    expect((await post(slow, `${slow.sb.assetsUrl}/busy.png`)).status).toBe(201);
    expect((await read(slow, 'busy.png')).status).toBe('Up');
    const p = await patch(slow, 'busy.png', { tags: ['x'] });
    expect(p.status).toBe(409);
    expect(p.body).toEqual({
      error: "Image 'busy.png' is being processed (status Up); try again once its status is Ok or Er",
    });
    const d = await remove(slow, 'busy.png');
    expect(d.status).toBe(409);
    expect(typeof (d.body as { error: string }).error).toBe('string');
    expect((await read(slow, 'busy.png')).status).toBe('Up');
  });
});

describe('PATCH /images(<reference>)', () => {
  it('tags replace all tags; 200 with the record', async () => {
    await post(fast, `${fast.sb.assetsUrl}/tags.png`, ['a', 'b']);
    await settled(fast, 'tags.png');
    const res = await patch(fast, 'tags.png', { tags: ['c'] });
    expect(res.status).toBe(200);
    expect((res.body as { value: Image }).value.tags).toEqual(['c']);
    expect((await read(fast, 'tags.png')).status).toBe('Ok');
  });

  it('url replaces the content under the same reference, from any filename, back to Up then processed', async () => {
    await post(fast, `${fast.sb.assetsUrl}/replace.png?w=10&h=10`);
    const before = await settled(fast, 'replace.png');
    const replacement = `${fast.sb.assetsUrl}/${'r'.repeat(300)}.png?w=30&h=40`;
    const res = await patch(fast, 'replace.png', { url: replacement });
    expect(res.status).toBe(200);
    const during = (res.body as { value: Image }).value;
    expect(during.status).toBe('Up');
    expect(during.originalUrl).toBe(replacement);
    const after = await settled(fast, 'replace.png');
    expect(after.status).toBe('Ok');
    expect([after.width, after.height]).toEqual([30, 40]);
    expect(after.fileType).toBe('png');
    expect(after.modifiedOn > before.modifiedOn).toBe(true);
  });

  it('a replacement must have the content type of the current file type', async () => {
    await post(fast, `${fast.sb.assetsUrl}/typed.png`);
    await settled(fast, 'typed.png');
    const res = await patch(fast, 'typed.png', { url: `${fast.sb.assetsUrl}/other.jpg` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      validationFailures: {
        error: [
          "URL returns Content-Type image/jpeg, which does not match the image's file type 'png'. Expected: image/png",
        ],
      },
    });
    const served = await patch(fast, 'typed.png', { url: `${fast.sb.assetsUrl}/other.jpg?type=image/png` });
    expect(served.status).toBe(200);
  });

  it('a replacement follows the same probe rules: redirects rejected, hosts checked', async () => {
    await post(fast, `${fast.sb.assetsUrl}/probe.png`);
    await settled(fast, 'probe.png');
    const redirected = await patch(fast, 'probe.png', { url: `${fast.sb.assetsUrl}/new.png?redirect=1` });
    expect(redirected.body).toEqual({
      validationFailures: { error: ['URL is not accessible. HTTP status: 302 Found'] },
    });
    const privateHost = await patch(fast, 'probe.png', { url: 'http://10.0.0.8/new.png' });
    expect(privateHost.body).toEqual({
      validationFailures: { error: ["URL host '10.0.0.8' is not allowed."] },
    });
    const empty = await patch(fast, 'probe.png', { tags: ['ok', ' '] });
    expect(empty.body).toEqual({ validationFailures: { error: ['Tags cannot contain empty values'] } });
  });

  it('needs url or tags', async () => {
    await post(fast, `${fast.sb.assetsUrl}/needs.png`);
    await settled(fast, 'needs.png');
    const res = await patch(fast, 'needs.png', {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      validationFailures: { error: ["At least one of 'url' or 'tags' is required"] },
    });
  });

  it('404 for an unknown reference', async () => {
    const res = await patch(fast, 'nope.png', { tags: ['a'] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Image 'nope.png' was not found" });
  });
});

describe('DELETE /images(<reference>)', () => {
  it('204, then 404 on read and on a second delete', async () => {
    await post(fast, `${fast.sb.assetsUrl}/bye.png`);
    await settled(fast, 'bye.png');
    expect((await remove(fast, 'bye.png')).status).toBe(204);
    expect((await call(fast.sb.damUrl, '/images(bye.png)', { key: fast.sb.apiKey })).status).toBe(404);
    expect((await remove(fast, 'bye.png')).status).toBe(404);
  });
});

describe('library quota (409)', () => {
  it('refuses a new image once the quota is reached, and frees a slot on delete', async () => {
    expect((await post(quota, `${quota.sb.assetsUrl}/q1.png`)).status).toBe(201);
    expect((await post(quota, `${quota.sb.assetsUrl}/q2.png`)).status).toBe(201);
    const full = await post(quota, `${quota.sb.assetsUrl}/q3.png`);
    expect(full.status).toBe(409);
    expect(full.body).toEqual({ error: 'Image library limit reached. Current: 2, Maximum: 2.' });
    await settled(quota, 'q1.png');
    expect((await remove(quota, 'q1.png')).status).toBe(204);
    expect((await post(quota, `${quota.sb.assetsUrl}/q3.png`)).status).toBe(201);
  });
});

describe('AssetDirectory for the catalog', () => {
  it('an image exists from creation on (any status but Dv); a deleted one does not', async () => {
    const directory = fast.sb.services.dam as unknown as AssetDirectory;
    expect(directory.imageExists('dir.png')).toBe(false);
    await post(fast, `${fast.sb.assetsUrl}/dir.png`);
    expect(directory.imageExists('dir.png')).toBe(true);
    await settled(fast, 'dir.png');
    await remove(fast, 'dir.png');
    expect(directory.imageExists('dir.png')).toBe(false);
  });
});
