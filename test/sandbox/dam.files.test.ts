// /files: the sandbox's documented choices for non-image files (extensions, size limit, record,
// statuses, queryable fields), created from real documents served by the asset host.
import { describe, expect, it } from 'vitest';
import type { AssetDirectory } from '../../src/sandbox/context.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fx = useSandbox({ seed: 'empty' });
const small = useSandbox({ seed: 'empty', fileQuota: 2 });

function post(url: unknown, tags?: string[]) {
  return call(fx.sb.damUrl, '/files', { method: 'POST', key: fx.sb.apiKey, body: { url, tags } });
}

function file(reference: string, init: { method?: string; body?: unknown } = {}) {
  return call(fx.sb.damUrl, `/files(${encodeURIComponent(reference)})`, { ...init, key: fx.sb.apiKey });
}

describe('POST /files', () => {
  it('201 with the reference and Location; the record is usable at once', async () => {
    const res = await post(`${fx.sb.assetsUrl}/care.pdf`, ['guide']);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ value: { reference: 'care.pdf' } });
    expect(res.headers.get('location')).toBe(`${fx.sb.damUrl}/files(care.pdf)`);
    const read = await file('care.pdf');
    const value = (read.body as { value: Record<string, unknown> }).value;
    expect(Object.keys(value).sort()).toEqual(
      [
        'reference',
        'fileType',
        'contentType',
        'sizeInBytes',
        'tags',
        'originalUrl',
        'createdOn',
        'modifiedOn',
      ].sort(),
    );
    expect(value).toMatchObject({
      reference: 'care.pdf',
      fileType: 'pdf',
      contentType: 'application/pdf',
      tags: ['guide'],
    });
    expect(value.sizeInBytes).toBeGreaterThan(0);
    expect((fx.sb.services.dam as unknown as AssetDirectory).fileExists('care.pdf')).toBe(true);
  });

  it('accepts the documented file extensions', async () => {
    for (const ext of ['csv', 'txt', 'zip', 'json', 'xml']) {
      expect((await post(`${fx.sb.assetsUrl}/doc-${ext}.${ext}`)).status, ext).toBe(201);
    }
  });

  it('refuses other extensions, images included, listing the allowed ones', async () => {
    const res = await post(`${fx.sb.assetsUrl}/photo.png`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      validationFailures: {
        error: [
          "File extension 'png' is not allowed. Allowed extensions: pdf, csv, txt, zip, doc, docx, xls, xlsx, json, xml",
        ],
      },
    });
  });

  it('the URL rules of images apply: required, host, probe, Content-Type present, empty file', async () => {
    const errors = async (url: unknown) =>
      ((await post(url)).body as { validationFailures: { error: string[] } }).validationFailures.error;
    expect(await errors(undefined)).toEqual(['URL is required']);
    expect(await errors('http://192.168.0.2/a.pdf')).toEqual(["URL host '192.168.0.2' is not allowed."]);
    expect(await errors(`${fx.sb.assetsUrl}/a.pdf?status=410`)).toEqual([
      'URL is not accessible. HTTP status: 410 Gone',
    ]);
    expect(await errors(`${fx.sb.assetsUrl}/a.pdf?type=none`)).toEqual([
      'URL does not return a valid Content-Type header',
    ]);
    expect(await errors(`${fx.sb.assetsUrl}/a.pdf?empty=1`)).toEqual(['The uploaded file is empty']);
  });

  it('any Content-Type is accepted for a file on creation (octet-stream included)', async () => {
    expect((await post(`${fx.sb.assetsUrl}/generic.zip?type=application/octet-stream`)).status).toBe(201);
  });

  it('size limit 100 MB (104,857,600 bytes)', async () => {
    const res = await post(`${fx.sb.assetsUrl}/big.pdf?size=104857601`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      validationFailures: { error: ['File size (100.00 MB) exceeds maximum allowed size of 100 MB'] },
    });
  });

  it('duplicate reference (409)', async () => {
    const res = await post(`${fx.sb.assetsUrl}/other/care.pdf`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "A file with the filename 'care.pdf' already exists" });
  });

  it('file library quota (409), a slot freed by a delete', async () => {
    const postSmall = (name: string) =>
      call(small.sb.damUrl, '/files', {
        method: 'POST',
        key: small.sb.apiKey,
        body: { url: `${small.sb.assetsUrl}/${name}` },
      });
    expect((await postSmall('q1.txt')).status).toBe(201);
    expect((await postSmall('q2.txt')).status).toBe(201);
    const res = await postSmall('q3.txt');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'File library limit reached. Current: 2, Maximum: 2.' });
    const del = await call(small.sb.damUrl, '/files(q1.txt)', { method: 'DELETE', key: small.sb.apiKey });
    expect(del.status).toBe(204);
    expect((await postSmall('q3.txt')).status).toBe(201);
  });
});

describe('PATCH /files(<reference>)', () => {
  it('never 409 for processing: tags can change right after creation; 200 with the record', async () => {
    expect((await post(`${fx.sb.assetsUrl}/fresh.csv`, ['a'])).status).toBe(201);
    const res = await file('fresh.csv', { method: 'PATCH', body: { tags: ['b', 'c'] } });
    expect(res.status).toBe(200);
    expect((res.body as { value: { tags: string[] } }).value.tags).toEqual(['b', 'c']);
  });

  it('url replaces the content when the Content-Type matches the file type', async () => {
    const res = await file('fresh.csv', {
      method: 'PATCH',
      body: { url: `${fx.sb.assetsUrl}/any-name.csv?size=5000` },
    });
    expect(res.status).toBe(200);
    expect((res.body as { value: { sizeInBytes: number } }).value.sizeInBytes).toBe(5000);
    const mismatch = await file('fresh.csv', {
      method: 'PATCH',
      body: { url: `${fx.sb.assetsUrl}/doc.pdf` },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toEqual({
      validationFailures: {
        error: [
          "URL returns Content-Type application/pdf, which does not match the file's file type 'csv'. Expected: text/csv, application/csv, text/plain",
        ],
      },
    });
  });

  it('404 for an unknown file', async () => {
    const res = await file('missing.pdf', { method: 'PATCH', body: { tags: ['x'] } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "File 'missing.pdf' was not found" });
  });
});

describe('DELETE /files(<reference>)', () => {
  it('204, then 404', async () => {
    await post(`${fx.sb.assetsUrl}/gone.txt`);
    expect((await file('gone.txt', { method: 'DELETE' })).status).toBe(204);
    expect((await file('gone.txt')).status).toBe(404);
    expect((await file('gone.txt', { method: 'DELETE' })).status).toBe(404);
    expect((fx.sb.services.dam as unknown as AssetDirectory).fileExists('gone.txt')).toBe(false);
  });
});

describe('GET /files', () => {
  it('filters on reference, fileType, sizeInBytes, createdOn, modifiedOn (names case-insensitive)', async () => {
    const res = await call(
      fx.sb.damUrl,
      `/files?$filter=${encodeURIComponent("FILETYPE eq 'pdf' and sizeInBytes gt 0")}`,
      {
        key: fx.sb.apiKey,
      },
    );
    expect(res.status).toBe(200);
    const body = res.body as { value: Array<{ reference: string }>; '@count': number };
    expect(body.value.map((f) => f.reference)).toEqual(['care.pdf']);
    expect(body['@count']).toBe(1);
  });

  it('refuses a field that is not queryable', async () => {
    const res = await call(fx.sb.damUrl, `/files?$filter=${encodeURIComponent("status eq 'Ok'")}`, {
      key: fx.sb.apiKey,
    });
    expect(res.status).toBe(400);
    expect(Object.keys((res.body as { validationFailures: object }).validationFailures)).toEqual(['$filter']);
  });
});
