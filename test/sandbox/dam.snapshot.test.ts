// snapshot()/restore(): plain JSON, and an image still Up when the snapshot was taken finishes
// processing after the restore.
import { describe, expect, it } from 'vitest';
import { monotonicNow, resolveOptions, type ServiceContext } from '../../src/sandbox/context.js';
import { createDamService, type DamService } from '../../src/sandbox/dam/index.js';
import type { SandboxRequest } from '../../src/sandbox/http.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fx = useSandbox({ seed: 'demo', processingMs: 600_000 });

function getRequest(path: string): SandboxRequest {
  return {
    method: 'GET',
    path,
    rawPath: path,
    query: new URLSearchParams(),
    headers: {},
    body: Buffer.alloc(0),
    readOnly: false,
    origin: 'http://127.0.0.1:1',
    json: () => undefined,
  };
}

describe('snapshot and restore', () => {
  it('round-trips through JSON; an Up image is processed after restore; asset URLs follow the new host', async () => {
    const created = await call(fx.sb.damUrl, '/images', {
      method: 'POST',
      key: fx.sb.apiKey,
      body: { url: `${fx.sb.assetsUrl}/pending.png?w=21&h=13`, tags: ['x'] },
    });
    expect(created.status).toBe(201);
    const state = JSON.parse(JSON.stringify((fx.sb.services.dam as DamService).snapshot()));

    const ctx: ServiceContext = {
      options: resolveOptions({ seed: 'empty', processingMs: 5 }),
      urls: {
        origin: 'http://127.0.0.1:1',
        catalogUrl: 'http://127.0.0.1:1/catalog',
        damUrl: 'http://127.0.0.1:1/dam',
        assetsUrl: 'http://127.0.0.1:1/assets',
      },
      markDirty: () => {},
      now: monotonicNow,
    };
    const restored = createDamService(ctx);
    try {
      restored.restore(state);
      expect(restored.imageExists('pending.png')).toBe(true);
      let value: { status: string; width: number; height: number; tags: string[] } | undefined;
      for (let i = 0; i < 200; i++) {
        const res = await restored.handle(getRequest('/images(pending.png)'));
        value = (res.body as { value: typeof value }).value;
        if (value?.status !== 'Up') break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(value).toMatchObject({ status: 'Ok', width: 21, height: 13, tags: ['x'] });

      const demoImage = (state.images as Array<{ reference: string }>)[0]!.reference;
      const demo = await restored.handle(getRequest(`/images(${demoImage})`));
      expect((demo.body as { value: { originalUrl: string } }).value.originalUrl).toMatch(
        /^http:\/\/127\.0\.0\.1:1\/assets\//,
      );
      const sameNextId = await restored.handle(getRequest('/images'));
      expect((sameNextId.body as { '@count': number })['@count']).toBe(state.images.length);
    } finally {
      await restored.close();
    }
  });

  it('ignores a state it does not recognise', () => {
    const dam = createDamService({
      options: resolveOptions({ seed: 'empty' }),
      urls: { origin: '', catalogUrl: '', damUrl: '', assetsUrl: 'http://127.0.0.1:1/assets' },
      markDirty: () => {},
      now: monotonicNow,
    });
    dam.restore({ version: 99 });
    expect(dam.snapshot()).toEqual({ version: 1, nextId: 1, images: [], files: [] });
    return dam.close();
  });
});
