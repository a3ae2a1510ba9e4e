// The sandbox's state on disk: a write is answered once it is in the fsync'd write log, so SIGKILL
// right after the answers loses none of them; a write appends its own size, not the state's; the log
// is folded into a new snapshot once it outgrows it; start-up replays the log.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedBulkProducts } from '../../src/sandbox/catalog/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { cliEntry } from '../helpers/cli-entry.js';
import { call } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-io-persist-'));
  dirs.push(dir);
  return dir;
}

function logBytes(dataDir: string): number {
  return readdirSync(dataDir)
    .filter((n) => /^writes\.\d+\.log$/.test(n))
    .reduce((sum, n) => sum + statSync(join(dataDir, n)).size, 0);
}

/** Every product (following @nextLink), with the fields asked for. */
async function allProducts<T>(catalogUrl: string, key: string, select: string): Promise<T[]> {
  const out: T[] = [];
  let url: string | undefined = `${catalogUrl}/Products?$select=${select}`;
  while (url) {
    const res = await call(url, '', { key });
    const body = res.body as { value: T[]; '@nextLink'?: string };
    out.push(...body.value);
    url = body['@nextLink'];
  }
  return out;
}

/** `catalog-io sandbox` as a child process; resolves with its URLs once it listens. */
async function sandboxProcess(
  dataDir: string,
): Promise<{ child: ChildProcess; catalogUrl: string; apiKey: string }> {
  const child = spawn(
    process.execPath,
    [...cliEntry(), 'sandbox', '--json', '--port', '0', '--seed', 'empty', '--data-dir', dataDir],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let buffered = '';
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const nl = buffered.indexOf('\n');
      if (nl !== -1) resolve(buffered.slice(0, nl));
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited early with ${code}`)));
  });
  const info = JSON.parse(line) as { catalogUrl: string; apiKey: string };
  return { child, ...info };
}

describe('durability: kill -9 after an answer', () => {
  it('keeps every acknowledged create, update and delete, and their changelog', async () => {
    const dataDir = tempDir();
    const { child, catalogUrl, apiKey } = await sandboxProcess(dataDir);
    const created: number[] = [];
    try {
      // 8 writers at once, as an import sends them: their fsyncs are shared.
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < 120) {
            const i = next++;
            const res = await call(catalogUrl, '/Products', {
              method: 'POST',
              key: apiKey,
              body: { prod_ref: `KILL-${i}`, prod_title: `Title ${i}` },
            });
            expect(res.status).toBe(201);
            created.push(Number(/\((\d+)\)$/.exec(res.headers.get('location')!)![1]));
          }
        }),
      );
      const patched = await call(catalogUrl, `/Products(${created[0]})`, {
        method: 'PATCH',
        key: apiKey,
        body: { prod_title: 'Changed just before the kill' },
      });
      expect(patched.status).toBe(204);
      const deleted = await call(catalogUrl, `/Products(${created[1]})`, { method: 'DELETE', key: apiKey });
      expect(deleted.status).toBe(204);
    } finally {
      // No chance to flush anything: the process is gone the moment the last answer arrived.
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }

    const sb = await startSandbox({ port: 0, seed: 'empty', dataDir });
    try {
      expect(sb.restored).toBe(true);
      const rows = await allProducts<{ prod_id: number; prod_title: string }>(
        sb.catalogUrl,
        sb.apiKey,
        'prod_id,prod_title',
      );
      expect(rows).toHaveLength(119);
      expect(new Set(rows.map((r) => r.prod_id))).toEqual(new Set(created.filter((id) => id !== created[1])));
      expect(rows.find((r) => r.prod_id === created[0])?.prod_title).toBe('Changed just before the kill');
      const changelog = await call(sb.catalogUrl, `/Products(${created[0]})/Changelog`, { key: sb.apiKey });
      const entries = (changelog.body as { value: Array<{ operation: string; attribute_id: string }> }).value;
      expect(entries.filter((e) => e.operation === 'modified').map((e) => e.attribute_id)).toContain(
        'prod_title',
      );
      // A new record never reuses an id handed out before the kill.
      const again = await call(sb.catalogUrl, '/Products', {
        method: 'POST',
        key: sb.apiKey,
        body: { prod_ref: 'AFTER-RESTART', prod_title: 'x' },
      });
      const newId = Number(/\((\d+)\)$/.exec(again.headers.get('location')!)![1]);
      expect(newId).toBeGreaterThan(Math.max(...created));
    } finally {
      await sb.close();
    }
  }, 180_000);
});

describe('the write log', () => {
  it('appends the size of a write, not of the state, and leaves the snapshot alone', async () => {
    const dataDir = tempDir();
    const sb = await startSandbox({ port: 0, seed: 'empty', dataDir });
    try {
      seedBulkProducts(sb.services.catalog, 5000);
      // Seeding without HTTP is logged like any change; a write then waits for it to be on disk.
      const first = await call(sb.catalogUrl, '/Products(1)', {
        method: 'PATCH',
        key: sb.apiKey,
        body: { prod_title: 'First' },
      });
      expect(first.status).toBe(204);
      const snapshot = statSync(join(dataDir, 'state.json'));
      const before = logBytes(dataDir);
      const res = await call(sb.catalogUrl, '/Products(2)', {
        method: 'PATCH',
        key: sb.apiKey,
        body: { prod_title: 'Second' },
      });
      expect(res.status).toBe(204);
      const grown = logBytes(dataDir) - before;
      expect(grown).toBeGreaterThan(0);
      // One record and its changelog entry: a few hundred bytes at 5,000 products.
      expect(grown).toBeLessThan(2000);
      expect(statSync(join(dataDir, 'state.json')).mtimeMs).toBe(snapshot.mtimeMs);
    } finally {
      await sb.close();
    }
  });

  it('is folded into a new snapshot once it outgrows it, and every write survives the restart', async () => {
    const dataDir = tempDir();
    const sb = await startSandbox({ port: 0, seed: 'empty', dataDir, compactLogBytes: 20_000 });
    const generations = new Set<string>();
    try {
      for (let i = 0; i < 150; i++) {
        const res = await call(sb.catalogUrl, '/Products', {
          method: 'POST',
          key: sb.apiKey,
          body: { prod_ref: `COMPACT-${i}`, prod_title: `Title ${i}` },
        });
        expect(res.status).toBe(201);
        for (const n of readdirSync(dataDir)) if (n.startsWith('writes.')) generations.add(n);
      }
      const del = await call(sb.catalogUrl, '/Products(3)', { method: 'DELETE', key: sb.apiKey });
      expect(del.status).toBe(204);
    } finally {
      await sb.close();
    }
    // The log moved on to new generations, and the old ones were removed.
    expect(generations.size).toBeGreaterThan(2);
    expect(readdirSync(dataDir).filter((n) => n.startsWith('writes.')).length).toBeLessThanOrEqual(2);

    const again = await startSandbox({ port: 0, seed: 'empty', dataDir });
    try {
      const rows = await allProducts<{ prod_ref: string }>(again.catalogUrl, again.apiKey, 'prod_ref');
      const refs = rows.map((r) => r.prod_ref);
      expect(refs).toHaveLength(149);
      expect(refs).not.toContain('COMPACT-2');
      expect(refs).toContain('COMPACT-149');
      // Each creation's changelog entries once, even when a snapshot and the log both held them.
      const log = await call(again.catalogUrl, '/Products(1)/Changelog', { key: again.apiKey });
      const entries = (log.body as { value: Array<{ attribute_id: string; operation: string }> }).value;
      const titles = entries.filter((e) => e.attribute_id === 'prod_title' && e.operation === 'created');
      expect(titles).toHaveLength(1);
    } finally {
      await again.close();
    }
  });
});
