// The library's startSandbox refuses an option it cannot start with, and a port in use, with a coded
// CONFIG_INVALID naming the option and what it takes (it started silently, or threw a raw EADDRINUSE).
import { describe, expect, it } from 'vitest';
import { isCatalogIoError } from '../../src/errors.js';
import { startSandbox } from '../../src/index.js';

describe('startSandbox options', () => {
  it('refuses a bad seed, rate limit, port or rate with CONFIG_INVALID naming the option', async () => {
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ seed: 'nope' }, 'startSandbox: seed must be one of demo, empty; found "nope"'],
      [{ rateLimit: 'abc' }, 'startSandbox: rateLimit must be { requests: N, windowSeconds: S }'],
      [{ rateLimit: { requests: 0, windowSeconds: 10 } }, 'startSandbox: rateLimit must be'],
      [{ port: 70_000 }, 'startSandbox: port must be a whole number from 0 to 65535; found 70000'],
      [{ faultRate: 2 }, 'startSandbox: faultRate must be a number from 0 to 1; found 2'],
      [{ remoteAssets: 'maybe' }, 'startSandbox: remoteAssets must be one of live, synthetic'],
    ];
    for (const [options, message] of refused) {
      const err = await startSandbox({ port: 0, ...options } as never).then(
        async (sb) => {
          await sb.close();
          return 'started';
        },
        (e: unknown) => e,
      );
      expect(isCatalogIoError(err, 'CONFIG_INVALID'), `${JSON.stringify(options)}: ${String(err)}`).toBe(
        true,
      );
      expect((err as Error).message).toContain(message);
    }
  });

  it('a port in use is CONFIG_INVALID saying so, not a raw EADDRINUSE', async () => {
    const first = await startSandbox({ port: 0, seed: 'empty' });
    try {
      const port = Number(new URL(first.origin).port);
      const err = await startSandbox({ port, seed: 'empty' }).catch((e: unknown) => e);
      expect(isCatalogIoError(err, 'CONFIG_INVALID'), String(err)).toBe(true);
      expect((err as Error).message).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
    } finally {
      await first.close();
    }
  });
});
