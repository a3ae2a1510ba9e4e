// POST /images: every URL, content, size, dimension and tag rule of the DAM spec, with its exact message.
import { describe, expect, it } from 'vitest';
import { call, useSandbox } from '../helpers/sandbox.js';

const fx = useSandbox({ seed: 'empty', processingMs: 10 });

async function postImage(body: unknown) {
  return call(fx.sb.damUrl, '/images', { method: 'POST', key: fx.sb.apiKey, body });
}

/** Expects the DAM's body-check 400 with exactly these messages. */
async function expectBodyErrors(body: unknown, messages: string[]) {
  const res = await postImage(body);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ validationFailures: { error: messages } });
}

const asset = (path: string) => `${fx.sb.assetsUrl}/${path}`;

describe('POST /images: success', () => {
  it('answers 201 with the reference only and Location = absolute URL of /images(<reference>)', async () => {
    const res = await postImage({ url: asset('created.png') });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ value: { reference: 'created.png' } });
    expect(res.headers.get('location')).toBe(`${fx.sb.damUrl}/images(created.png)`);
    const read = await call(fx.sb.damUrl, '/images(created.png)', { key: fx.sb.apiKey });
    expect(read.status).toBe(200);
  });

  it('takes the reference from the decoded filename of the URL path', async () => {
    const res = await postImage({ url: asset('folder/summer%20shoe.png?w=10&h=10') });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ value: { reference: 'summer shoe.png' } });
    const read = await call(fx.sb.damUrl, `/images(${encodeURIComponent('summer shoe.png')})`, {
      key: fx.sb.apiKey,
    });
    expect((read.body as { value: { reference: string } }).value.reference).toBe('summer shoe.png');
  });

  it('creates the image Up with every field of the record, id set, measurements 0 and thumbnails empty', async () => {
    await postImage({ url: asset('fields.gif'), tags: ['summer', 'sale'] });
    const read = await call(fx.sb.damUrl, '/images(fields.gif)', { key: fx.sb.apiKey });
    const value = (read.body as { value: Record<string, unknown> }).value;
    expect(Object.keys(value).sort()).toEqual(
      [
        'id',
        'reference',
        'numLinks',
        'status',
        'modifiedOn',
        'createdOn',
        'fileType',
        'tags',
        'originalUrl',
        'thumbnailUrl',
        'thumbnailMediumUrl',
        'thumbnailPreviewUrl',
        'width',
        'height',
        'sizeInBytes',
      ].sort(),
    );
    expect(Number.isInteger(value.id)).toBe(true);
    expect(value.fileType).toBe('gif');
    expect(value.tags).toEqual(['summer', 'sale']);
    expect(value.originalUrl).toBe(asset('fields.gif'));
    expect(value.createdOn).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(value.numLinks).toBe(0);
  });

  it('does not cross-check the Content-Type against the extension: a .jpg serving image/png is a jpg', async () => {
    const res = await postImage({ url: asset('cross.jpg?type=image/png') });
    expect(res.status).toBe(201);
    const read = await call(fx.sb.damUrl, '/images(cross.jpg)', { key: fx.sb.apiKey });
    expect((read.body as { value: { fileType: string } }).value.fileType).toBe('jpg');
  });

  it('accepts every image extension of the spec table, each served in its own format', async () => {
    for (const ext of ['jpg', 'jpeg', 'png', 'gif', 'tif', 'tiff', 'psd', 'webp']) {
      const res = await postImage({ url: asset(`every-format.${ext}?w=20&h=30`) });
      expect(res.status, ext).toBe(201);
    }
  });

  it('accepts application/octet-stream for psd', async () => {
    const res = await postImage({ url: asset('generic.psd?type=application/octet-stream') });
    expect(res.status).toBe(201);
  });

  it('accepts a filename of exactly 255 characters, extension excluded', async () => {
    const res = await postImage({ url: asset(`${'n'.repeat(255)}.png`) });
    expect(res.status).toBe(201);
  });

  it('accepts an image of exactly 30000 px wide', async () => {
    const res = await postImage({ url: asset('wide-ok.png?w=30000&h=1') });
    expect(res.status).toBe(201);
  });
});

describe('POST /images: URL rules (400)', () => {
  it('URL is required: missing, empty or blank', async () => {
    await expectBodyErrors({}, ['URL is required']);
    await expectBodyErrors({ url: '' }, ['URL is required']);
    await expectBodyErrors({ url: '   ' }, ['URL is required']);
  });

  it('URL longer than 2048 characters', async () => {
    const url = asset(`${'a'.repeat(2100)}.png`);
    await expectBodyErrors({ url }, ['URL exceeds maximum length of 2048 characters']);
  });

  it('URL not absolute', async () => {
    await expectBodyErrors({ url: 'images/shoe.png' }, ['URL is not valid']);
  });

  it('scheme other than HTTP/HTTPS', async () => {
    await expectBodyErrors({ url: 'ftp://example.com/shoe.png' }, ['URL must use HTTP or HTTPS protocol']);
  });

  it('no extension in the filename', async () => {
    await expectBodyErrors({ url: asset('photo') }, [
      'Could not determine file type from URL. Please ensure the URL contains a filename with an extension.',
    ]);
  });

  it('unsupported extension', async () => {
    await expectBodyErrors({ url: asset('photo.bmp') }, [
      "File extension 'bmp' is not allowed. Allowed extensions: jpg, jpeg, png, gif, tif, tiff, psd, webp",
    ]);
  });

  it('filename over 255 characters, extension excluded', async () => {
    await expectBodyErrors({ url: asset(`${'n'.repeat(256)}.png`) }, [
      'File name exceeds maximum length of 255 characters',
    ]);
  });

  it('non-public hosts: loopback, private ranges, link-local and the metadata endpoint, localhost', async () => {
    const hosts = [
      '127.0.0.1',
      '127.1.2.3',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.10',
      '169.254.169.254',
      '169.254.1.1',
      '[::1]',
      '[fc00::1]',
      '[fd12:3456::1]',
      'localhost',
      'api.localhost',
    ];
    for (const host of hosts) {
      await expectBodyErrors({ url: `http://${host}:9/x.png` }, [`URL host '${host}' is not allowed.`]);
    }
  });

  it('the sandbox asset host is allowed only on its own host:port', async () => {
    const port = new URL(fx.sb.assetsUrl).port;
    const otherPort = String(Number(port) === 65535 ? 1 : Number(port) + 1);
    await expectBodyErrors({ url: `http://127.0.0.1:${otherPort}/assets/x.png` }, [
      "URL host '127.0.0.1' is not allowed.",
    ]);
  });
});

describe('POST /images: an outside host is never contacted', () => {
  it('answers the transport-failure 500 with a support code, and creates nothing', async () => {
    const res = await postImage({ url: 'http://example.com/x.jpg' });
    expect(res.status).toBe(500);
    expect((res.body as { error: string }).error).toMatch(
      /'example\.com' could not be reached\. Support code: DAM-[0-9A-F]{8}$/,
    );
    const read = await call(fx.sb.damUrl, '/images(x.jpg)', { key: fx.sb.apiKey });
    expect(read.status).toBe(404);
  });

  it('a public address outside the private ranges passes the host rule but is not contacted either', async () => {
    const res = await postImage({ url: 'https://172.32.0.1/x.png' });
    expect(res.status).toBe(500);
    expect((res.body as { error: string }).error).toContain('Support code:');
  });
});

describe('POST /images: probe and content rules (400)', () => {
  it('HEAD answers non-2xx', async () => {
    await expectBodyErrors({ url: asset('gone.png?status=404') }, [
      'URL is not accessible. HTTP status: 404 Not Found',
    ]);
    await expectBodyErrors({ url: asset('down.png?status=503') }, [
      'URL is not accessible. HTTP status: 503 Service Unavailable',
    ]);
  });

  it('a redirect is rejected, never followed', async () => {
    await expectBodyErrors({ url: asset('moved.png?redirect=1') }, [
      'URL is not accessible. HTTP status: 302 Found',
    ]);
  });

  it('no Content-Type header', async () => {
    await expectBodyErrors({ url: asset('untyped.png?type=none') }, [
      'URL does not return a valid Content-Type header',
    ]);
  });

  it('application/octet-stream for a non-PSD file', async () => {
    await expectBodyErrors({ url: asset('generic.png?type=application/octet-stream') }, [
      'URL returns generic Content-Type (application/octet-stream) for non-PSD file. Extension detected: png',
    ]);
  });

  it('Content-Type not an image type', async () => {
    await expectBodyErrors({ url: asset('page.png?type=text/html') }, [
      'URL does not return an image Content-Type. Received: text/html. Allowed types: image/jpeg, image/png, image/gif, image/tiff, image/x-tiff, image/webp, image/vnd.adobe.photoshop, image/photoshop, image/psd, application/octet-stream',
    ]);
  });

  it('empty file', async () => {
    await expectBodyErrors({ url: asset('void.png?empty=1') }, ['The uploaded file is empty']);
  });

  it('dimensions unreadable from the actual bytes', async () => {
    await expectBodyErrors({ url: asset('broken.png?corrupt=1') }, [
      'Could not read image dimensions from the uploaded file. Ensure it is a valid image in a supported format.',
    ]);
  });

  it('too wide', async () => {
    await expectBodyErrors({ url: asset('wide.png?w=30001&h=1') }, [
      'Image width (30001px) exceeds maximum allowed width of 30000px',
    ]);
  });

  it('too tall', async () => {
    await expectBodyErrors({ url: asset('tall.png?w=1&h=30001') }, [
      'Image height (30001px) exceeds maximum allowed height of 30000px',
    ]);
  });

  it('larger than 250 MB (262,144,000 bytes), counted on the bytes', async () => {
    await expectBodyErrors({ url: asset('huge.png?size=262144001') }, [
      'Image file size (250.00 MB) exceeds maximum allowed size of 250 MB',
    ]);
  });
});

describe('POST /images: tags', () => {
  it('no empty or whitespace-only tag', async () => {
    await expectBodyErrors({ url: asset('tagged.png'), tags: ['ok', ''] }, [
      'Tags cannot contain empty values',
    ]);
    await expectBodyErrors({ url: asset('tagged.png'), tags: ['  '] }, ['Tags cannot contain empty values']);
  });

  it('the comma-joined list must fit in 64 KB', async () => {
    await expectBodyErrors({ url: asset('tagged.png'), tags: ['x'.repeat(65_537)] }, [
      'Tags exceed the maximum length of 64 KB',
    ]);
    const fits = await postImage({ url: asset('tags-fit.png'), tags: ['x'.repeat(65_536)] });
    expect(fits.status).toBe(201);
  });

  it('tags must be an array of strings', async () => {
    await expectBodyErrors({ url: asset('tagged.png'), tags: 'summer' }, [
      'Tags must be an array of strings',
    ]);
    await expectBodyErrors({ url: asset('tagged.png'), tags: [1] }, ['Tags must be an array of strings']);
  });

  it('URL and tag problems are reported together', async () => {
    await expectBodyErrors({ tags: [''] }, ['URL is required', 'Tags cannot contain empty values']);
  });

  it('a tag containing a comma comes back as several tags; tags are case-sensitive', async () => {
    await postImage({ url: asset('comma.png'), tags: ['red,blue', 'Red'] });
    const read = await call(fx.sb.damUrl, '/images(comma.png)', { key: fx.sb.apiKey });
    expect((read.body as { value: { tags: string[] } }).value.tags).toEqual(['red', 'blue', 'Red']);
  });
});

describe('POST /images: body', () => {
  it('invalid JSON is a body error', async () => {
    const res = await call(fx.sb.damUrl, '/images', { method: 'POST', key: fx.sb.apiKey, body: '{"url":' });
    expect(res.status).toBe(400);
    expect((res.body as { validationFailures: { error: string[] } }).validationFailures.error[0]).toMatch(
      /not valid JSON/,
    );
  });

  it('a body that is not an object', async () => {
    await expectBodyErrors(['x'], ['The request body must be a JSON object']);
  });
});

describe('POST /images: conflicts (409)', () => {
  it('duplicate reference', async () => {
    expect((await postImage({ url: asset('dup.png') })).status).toBe(201);
    const again = await postImage({ url: asset('elsewhere/dup.png?w=5&h=5') });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: "An image with the filename 'dup.png' already exists" });
  });
});
