// A real redis-server per test file: a free loopback port, a temporary folder, nothing saved; killed
// after the file's tests. Without redis-server on this machine the tests that need it are skipped
// with a loud message, except on CI (CI set), where its absence fails them.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export const redisInstalled = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** Whether tests that need Redis run here; says loudly when they do not. */
export function redisTestsRun(file: string): boolean {
  if (redisInstalled || process.env.CI) return true;
  console.warn(
    `\n*** SKIPPED: ${file} needs redis-server, which is not installed (apt-get install redis-server). On CI these tests never skip. ***\n`,
  );
  return false;
}

export interface RedisFixture {
  /** `redis://127.0.0.1:PORT`; available inside tests. */
  readonly url: string;
  /** FLUSHALL: every key gone, as an operator's mistake would do. */
  flush(): Promise<void>;
  /** Kills the server (SIGKILL: nothing saved) and, after `downMs`, starts a fresh one on the same port. */
  restart(downMs?: number): Promise<void>;
  /** Kills the server for good (until `start()`). */
  stop(): Promise<void>;
  /** Starts a fresh server on the same port after `stop()`. */
  start(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function useRedis(): RedisFixture {
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  let url: string | undefined;
  let port = 0;
  const start = async () => {
    const server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir!],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = server;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      server.on('error', reject);
      server.on('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
      server.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('Ready to accept connections')) resolve();
      });
    });
    server.removeAllListeners('exit');
  };
  const stop = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'redis-'));
    port = await freePort();
    await start();
    url = `redis://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get url() {
      if (!url) throw new Error('redis-server not started yet: use it inside a test or hook');
      return url;
    },
    async flush() {
      const result = spawnSync('redis-cli', ['-p', String(port), 'FLUSHALL'], { encoding: 'utf8' });
      if (result.stdout.trim() !== 'OK') throw new Error(`FLUSHALL failed: ${result.stdout}${result.stderr}`);
    },
    async restart(downMs = 0) {
      await stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    stop,
    start,
  };
}
