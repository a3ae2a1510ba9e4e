// A webhook receiver on a loopback port for a test file's notifications: it answers 200 and keeps what
// it received, in order.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface ReceivedHook {
  path: string;
  /** The delivery id header (one id for every attempt of one delivery). */
  delivery: string;
  body: Record<string, unknown>;
}

export interface WebhookReceiver {
  /** The hook's URL (known once the file's tests start). */
  readonly url: string;
  readonly received: ReceivedHook[];
}

export function useWebhookReceiver(): WebhookReceiver {
  const received: ReceivedHook[] = [];
  let http: Server | undefined;
  let url = '';
  beforeAll(async () => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push({
          path: req.url ?? '',
          delivery: String(req.headers['x-catalog-io-delivery']),
          body: JSON.parse(body) as Record<string, unknown>,
        });
        res.writeHead(200).end();
      });
    });
    http = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  });
  return {
    get url() {
      return url;
    },
    received,
  };
}

/** What `what` gives once it gives something (checked every 200 ms), or an error after `ms`. */
export async function until<T>(
  what: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 60_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await what();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}
