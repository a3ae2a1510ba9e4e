// The import state's memory does not grow with the catalog: 300,000 records written, then read back
// in a scattered order, each in a child process (known-state.child.ts) talking real HTTP to the
// sandbox, holding 5 to 8 MB of heap and buffers at any time (the earlier whole map of them held
// 40 MB reading and 78 MB writing).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTableHeader } from '../../src/runs/state-store.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../runner/import.support.js';

const RECORDS = 300_000;
/** The page cache is 4 MB; the rest is slack, far below what the records themselves would take. */
const HELD_LIMIT_MB = 20;
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const CHILD = join(import.meta.dirname, 'known-state.child.ts');

const fixture = useSandbox({ seed: 'empty' });

interface Measured {
  note: string | null;
  vouched: number;
  wrongIds: number;
  ownWrites: number[] | null;
  peakHeldMb: number;
  maxRssMb: number;
}

function child(phase: 'write' | 'read', stateDir: string): Promise<Measured> {
  const { sb } = fixture;
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', '--import', TSX, CHILD], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PHASE: phase,
        RECORDS: String(RECORDS),
        STATE_DIR: stateDir,
        CATALOG_URL: sb.catalogUrl,
        DAM_URL: sb.damUrl,
        CATALOG_API_KEY: sb.apiKey,
      },
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c) => {
      out += c;
    });
    proc.stderr.on('data', (c) => {
      err += c;
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the ${phase} child exited with ${code}: ${err}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as Measured);
    });
  });
}

describe('import state memory', () => {
  it(`writes and reads back ${RECORDS.toLocaleString('en')} records in bounded memory`, {
    timeout: 240_000,
  }, async () => {
    const stateDir = join(tempDir('state-memory'), '.catalog-io');
    const written = await child('write', stateDir);
    expect(written.note).toBe('no state from an earlier run');
    expect(written.ownWrites).toEqual([1_000_000, 1_000_000 + RECORDS / 2, 1_000_000 + RECORDS - 1]);
    const header = readTableHeader(join(stateDir, 'state', 'memory', 'products.state'));
    expect(header?.live).toBe(RECORDS);

    const read = await child('read', stateDir);
    expect(read.note).toBeNull();
    expect(read.vouched).toBe(RECORDS);
    expect(read.wrongIds).toBe(0);
    expect(written.peakHeldMb).toBeLessThan(HELD_LIMIT_MB);
    expect(read.peakHeldMb).toBeLessThan(HELD_LIMIT_MB);
    // The whole process, tsx and the client included (about 190 MB): a sanity bound.
    expect(written.maxRssMb).toBeLessThan(300);
    expect(read.maxRssMb).toBeLessThan(300);
  });
});
