// A loopback fault proxy: a tiny listen(0) HTTP server in front of the sandbox that passes requests
// through, or, for a while and for the paths a test names, answers a status (429 storms, 500s, 502s),
// holds requests without answering (a hang), or stops listening altogether (connections refused).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';

export type Fault =
  | { kind: 'pass' }
  /** Answer this status (with Retry-After when given) instead of passing the request on. */
  | { kind: 'status'; status: number; retryAfterSeconds?: number; paths?: RegExp }
  /** Accept and never answer. */
  | { kind: 'hang'; paths?: RegExp }
  /** Stop listening: every new connection is refused, open ones are reset. */
  | { kind: 'refuse' }
  /**
   * Each request as `answer` says: passed on (`pass`), passed on with the service's answer lost and a
   * 500 given instead (`lose`: the write is made, the client cannot know), or answered this status.
   */
  | { kind: 'script'; answer: (method: string, path: string) => 'pass' | 'lose' | number };

export interface FaultProxy {
  /** The proxy's origin, `http://127.0.0.1:PORT`. */
  origin: string;
  /** `url` with the sandbox's origin replaced by the proxy's. */
  via(url: string): string;
  set(fault: Fault): Promise<void>;
  /** Answers by status ('hang' for held requests) while a fault was on. */
  faulted: Record<string, number>;
  /** Requests passed through to the sandbox. */
  passed: number;
  close(): Promise<void>;
}

export interface FaultProxyOptions {
  /**
   * Links in the sandbox's JSON answers (an export's `@nextLink`) name the proxy instead of the sandbox,
   * so a client that follows them stays behind the proxy. Off by default: answers are passed as sent.
   */
  rewriteLinks?: boolean;
}

export async function faultProxy(target: string, options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let fault: Fault = { kind: 'pass' };
  const sockets = new Set<Socket>();
  const faulted: Record<string, number> = {};
  let passed = 0;
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const scripted = fault.kind === 'script' ? fault.answer(req.method ?? 'GET', path) : 'pass';
    if (typeof scripted === 'number') {
      faulted[scripted] = (faulted[scripted] ?? 0) + 1;
      req.resume();
      res.writeHead(scripted, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `fault proxy: ${scripted}` }));
      return;
    }
    const applies = fault.kind !== 'pass' && (!('paths' in fault) || !fault.paths || fault.paths.test(path));
    if (applies && fault.kind === 'status') {
      faulted[fault.status] = (faulted[fault.status] ?? 0) + 1;
      req.resume();
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      res.writeHead(fault.status, headers);
      res.end(JSON.stringify({ statusCode: fault.status, message: `fault proxy: ${fault.status}` }));
      return;
    }
    if (applies && fault.kind === 'hang') {
      faulted.hang = (faulted.hang ?? 0) + 1;
      req.resume();
      return;
    }
    passed += 1;
    const out = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path,
        headers: req.headers,
        agent,
      },
      (answer) => {
        if (scripted === 'lose') {
          // The service did it; its answer never reaches the client.
          faulted.lost = (faulted.lost ?? 0) + 1;
          answer.resume();
          answer.on('end', () => {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: 'fault proxy: the answer was lost' }));
          });
          return;
        }
        if (options.rewriteLinks && /json/.test(String(answer.headers['content-type'] ?? ''))) {
          const chunks: Buffer[] = [];
          answer.on('data', (c: Buffer) => chunks.push(c));
          answer.on('end', () => {
            const body = Buffer.from(
              Buffer.concat(chunks).toString('utf8').replaceAll(upstream.origin, origin),
            );
            const { 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = answer.headers;
            res.writeHead(answer.statusCode ?? 502, { ...headers, 'content-length': String(body.length) });
            res.end(body);
          });
          answer.on('error', () => res.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  let listening = true;

  const stopListening = () =>
    new Promise<void>((resolve) => {
      listening = false;
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  const listenAgain = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        listening = true;
        resolve();
      });
    });

  return {
    origin,
    via: (url) => {
      const u = new URL(url);
      return `${origin}${u.pathname}${u.search}`;
    },
    faulted,
    get passed() {
      return passed;
    },
    async set(next) {
      const before = fault;
      fault = next;
      if (next.kind === 'refuse' && listening) await stopListening();
      else if (next.kind !== 'refuse' && !listening) await listenAgain();
      // Requests held by a hang are let go (reset) when the hang ends.
      if (before.kind === 'hang' && next.kind !== 'hang') for (const s of sockets) s.destroy();
    },
    async close() {
      fault = { kind: 'pass' };
      agent.destroy();
      if (listening) await stopListening();
    },
  };
}

/**
 * A fault proxy for a test file: started before its tests in front of `target()` (read then, when the
 * file's sandbox is up), closed after them, and set back to `pass` with its counts cleared after each
 * test, so a fault one test left on never reaches the next. What it returns stands for the running proxy.
 */
export function useFaultProxy(target: () => string, options: FaultProxyOptions = {}): FaultProxy {
  let running: FaultProxy | undefined;
  const proxy = (): FaultProxy => {
    if (!running) throw new Error('the fault proxy is not started yet (use it inside a test)');
    return running;
  };
  beforeAll(async () => {
    running = await faultProxy(target(), options);
  });
  afterAll(async () => {
    await running?.close();
  });
  afterEach(async () => {
    if (!running) return;
    await running.set({ kind: 'pass' });
    for (const k of Object.keys(running.faulted)) delete running.faulted[k];
  });
  return {
    get origin() {
      return proxy().origin;
    },
    via: (url) => proxy().via(url),
    set: (fault) => proxy().set(fault),
    get faulted() {
      return proxy().faulted;
    },
    get passed() {
      return proxy().passed;
    },
    close: () => proxy().close(),
  };
}
