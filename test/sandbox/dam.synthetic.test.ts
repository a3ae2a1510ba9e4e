// `remoteAssets: 'synthetic'`: URLs on hosts the sandbox cannot reach get a small generated file of
// the named type (real bytes, so dimensions and Content-Type rules still apply); `dead.` hosts and
// `/404/` paths answer 404; loopback stays refused; the default stays `live`. Also from the CLI.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli-child.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const synthetic = useSandbox({ seed: 'empty', processingMs: 5, remoteAssets: 'synthetic' });
const live = useSandbox({ seed: 'empty', processingMs: 5 });

type Fx = typeof synthetic;

function post(fx: Fx, kind: 'images' | 'files', url: string) {
  return call(fx.sb.damUrl, `/${kind}`, { method: 'POST', key: fx.sb.apiKey, body: { url } });
}

async function settledImage(fx: Fx, reference: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 500; i++) {
    const res = await call(fx.sb.damUrl, `/images(${encodeURIComponent(reference)})`, { key: fx.sb.apiKey });
    expect(res.status).toBe(200);
    const image = (res.body as { value: Record<string, unknown> }).value;
    if (image.status !== 'Up') return image;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`image ${reference} still processing`);
}

describe('remoteAssets: synthetic', () => {
  it('registers an image from any public host as a generated file of its extension', async () => {
    for (const [url, type] of [
      ['https://cdn.example.com/products/images/beauty/1.png', 'png'],
      ['https://shop.example.org/wp-content/uploads/2017/12/hoodie-2.jpg', 'jpg'],
      ['http://img.example.net/a/b/front.webp?v=3', 'webp'],
      ['https://172.32.0.1/x/anim.gif', 'gif'],
    ] as const) {
      const res = await post(synthetic, 'images', url);
      expect(res.status, res.text).toBe(201);
      const reference = (res.body as { value: { reference: string } }).value.reference;
      const image = await settledImage(synthetic, reference);
      expect(image).toMatchObject({ status: 'Ok', fileType: type, width: 64, height: 64, originalUrl: url });
      expect(image.sizeInBytes).toBeGreaterThan(0);
    }
  });

  it('registers files with the Content-Type of their extension, also types the asset host does not make', async () => {
    for (const [url, contentType] of [
      ['https://docs.example.com/manuals/guide.pdf', 'application/pdf'],
      ['https://docs.example.com/manuals/old.doc', 'application/msword'],
      ['https://docs.example.com/sheets/prices.xls', 'application/vnd.ms-excel'],
    ] as const) {
      const res = await post(synthetic, 'files', url);
      expect(res.status, res.text).toBe(201);
      const reference = (res.body as { value: { reference: string } }).value.reference;
      const read = await call(synthetic.sb.damUrl, `/files(${encodeURIComponent(reference)})`, {
        key: synthetic.sb.apiKey,
      });
      expect(read.body).toMatchObject({ value: { contentType, originalUrl: url } });
    }
  });

  it('a dead. host and a /404/ path answer 404, and nothing is created', async () => {
    for (const url of ['https://dead.example.com/gone.jpg', 'https://cdn.example.com/404/missing.png']) {
      const res = await post(synthetic, 'images', url);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        validationFailures: { error: ['URL is not accessible. HTTP status: 404 Not Found'] },
      });
    }
    for (const reference of ['gone.jpg', 'missing.png']) {
      const read = await call(synthetic.sb.damUrl, `/images(${reference})`, { key: synthetic.sb.apiKey });
      expect(read.status).toBe(404);
    }
  });

  it('the static rules still come first: loopback hosts and unknown extensions are refused', async () => {
    const loopback = await post(synthetic, 'images', 'http://127.0.0.1:9/x.png');
    expect(loopback.body).toEqual({
      validationFailures: { error: ["URL host '127.0.0.1' is not allowed."] },
    });
    const noExtension = await post(synthetic, 'images', 'https://cdn.example.com/png/photo');
    expect(noExtension.status).toBe(400);
  });

  it('a replacement without an extension takes its type from a path segment, else keeps the current one', async () => {
    expect((await post(synthetic, 'images', 'https://cdn.example.com/base.png')).status).toBe(201);
    await settledImage(synthetic, 'base.png');
    const patch = (url: string) =>
      call(synthetic.sb.damUrl, '/images(base.png)', {
        method: 'PATCH',
        key: synthetic.sb.apiKey,
        body: { url },
      });
    // A path segment naming jpg: the generated file is a JPEG, which does not match the png asset.
    const mismatch = await patch('https://cdn.example.com/jpg/photo');
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain('Content-Type image/jpeg');
    const kept = await patch('https://cdn.example.com/render?id=7');
    expect(kept.status, kept.text).toBe(200);
    expect(await settledImage(synthetic, 'base.png')).toMatchObject({
      status: 'Ok',
      originalUrl: 'https://cdn.example.com/render?id=7',
    });
  });
});

describe('remoteAssets: live (the default)', () => {
  it('answers the transport-failure 500 for the same URL', async () => {
    const res = await post(live, 'images', 'https://cdn.example.com/products/images/beauty/1.png');
    expect(res.status).toBe(500);
    expect(res.text).toContain("'cdn.example.com' could not be reached");
  });
});

describe('catalog-io sandbox --remote-assets synthetic', () => {
  it('starts a sandbox whose DAM registers remote URLs', async () => {
    const dataDir = mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'sandbox-synthetic-'));
    const cli = startCli([
      'sandbox',
      '--port',
      '0',
      '--json',
      '--seed',
      'empty',
      '--data-dir',
      dataDir,
      '--remote-assets',
      'synthetic',
    ]);
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let text = '';
        cli.child.stdout!.on('data', (chunk) => {
          text += chunk;
          const end = text.indexOf('\n');
          if (end >= 0) resolve(text.slice(0, end));
        });
        cli.done.then((run) => reject(new Error(`sandbox ended early: ${run.stderr}`)), reject);
      });
      const { damUrl, apiKey } = JSON.parse(line) as { damUrl: string; apiKey: string };
      const res = await call(damUrl, '/images', {
        method: 'POST',
        key: apiKey,
        body: { url: 'https://cdn.example.com/shoe.jpg' },
      });
      expect(res.status, res.text).toBe(201);
    } finally {
      cli.child.kill('SIGTERM');
      expect((await cli.done).code).toBe(0);
    }
  });
});
