// The CLI as a child process against a service that accepts connections and never answers (and one
// that sends headers, then nothing): it ends by itself, exit 2, with one line that names the request,
// what happened and what to raise, and never the key. A generous limit on the child bounds its time.
// Tries with no answer make the service unreachable: after five, the run waits for it up to
// --outage-budget (here 3 s) instead of trying on.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { cliEntry } from '../helpers/cli-entry.js';

const KEY = 'cli-hang-secret-key-0001';
/** Far above what the run needs (budget 3 s plus start-up on a loaded machine): a hang fails the test. */
const CHILD_LIMIT_MS = 90_000;

let server: http.Server;
let url: string;

beforeAll(async () => {
  // /stall/...: headers, then silence; anything else: silence from the start.
  server = http.createServer((req, res) => {
    req.resume();
    if (req.url?.startsWith('/stall')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"value"');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function runBounded(
  args: string[],
): Promise<{ code: number | null; stderr: string; ms: number; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [...cliEntry(), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.resume();
    const limit = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, CHILD_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, stderr, ms: Date.now() - started, killed });
    });
  });
}

describe('a service that hangs, seen from the command line', () => {
  // Two child processes, each waiting on its own timers (no answer, the outage budget): they wait
  // side by side, not one after the other.
  it.concurrent.for<[string, string]>([
    ['never answers', '/catalog'],
    ['sends headers, then stalls the body', '/stall/catalog'],
  ])(
    '%s: exit 2 with which request, what happened and what to raise',
    { timeout: CHILD_LIMIT_MS + 10_000 },
    async ([, base], { expect }) => {
      const run = await runBounded([
        'validate',
        'samples/products.csv',
        '--catalog-url',
        `${url}${base}`,
        '--api-key',
        KEY,
        '--timeout',
        '700',
        '--retry-budget',
        '30000',
        '--outage-budget',
        '3000',
      ]);
      expect(run.killed).toBe(false);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        /Catalog API GET \/\$metadata: the service could not be reached \(no answer within 700 ms\) since \d\d:\d\d:\d\d, longer than the 3 s waited; raise --outage-budget/,
      );
      expect(run.stderr).toContain('[API_UNREACHABLE]');
      // Bounded by the outage budget (plus the five tries that opened the circuit), not the retry budget.
      expect(run.ms).toBeLessThan(5 * 700 + 3_000 + 20_000);
      expect(run.stderr).not.toContain(KEY);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    },
  );
});
