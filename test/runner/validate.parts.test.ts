// Validate in parts on worker threads (runner/validate-parts/) against validate on one thread: on every
// sample, the real-world feeds that have a profile, the hostile CSV and generated files (bad rows,
// duplicates across part boundaries, quoted line breaks, CRLF, a byte-order mark, refs in no order),
// with parts of a few hundred bytes so boundaries are many, the report, the rejects and the summary are
// the same byte for byte. A file that ends inside a quote fails alike (coded error, exit code, the
// lines before it); SIGINT ends a run in parts as it ends one on a single thread.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCatalogIoError } from '../../src/errors.js';
import { loadProfile } from '../../src/mappers/profile.js';
import type { Profile } from '../../src/mappers/profile-types.js';
import type { ReaderOptions } from '../../src/readers/index.js';
import { type ValidateFileResult, validateFile } from '../../src/runner/validate.js';
import type { TenantModel } from '../../src/schema/model.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { pulledSandboxModel } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';

const SAMPLES = join(import.meta.dirname, '../../samples');
const HOSTILE = join(import.meta.dirname, '../fixtures/hostile');
let dir: string;
let schemas: string;
let model: TenantModel;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-parts-'));
  schemas = join(dir, 'schemas');
  model = await pulledSandboxModel(schemas);
}, 60_000);

process.env.CATALOG_IO_VALIDATE_WAIT_THREADS = '1';

afterAll(() => {
  delete process.env.CATALOG_IO_VALIDATE_WAIT_THREADS;
  delete process.env.CATALOG_IO_VALIDATE_PARTS;
  delete process.env.CATALOG_IO_VALIDATE_PART_BYTES;
});

interface Outcome {
  result?: Omit<ValidateFileResult, 'parts' | 'threadParts'>;
  parts?: number;
  threadParts?: number;
  error?: { code: string; message: string };
  report: string;
  rejects: string;
}

let runs = 0;

/** One validate run, in parts (`partBytes`) or on one thread: its result or coded error, and its files. */
async function run(
  source: string,
  profile: Profile,
  partBytes: number | undefined,
  readerOptions: ReaderOptions = {},
): Promise<Outcome> {
  process.env.CATALOG_IO_VALIDATE_PARTS = partBytes === undefined ? 'off' : 'on';
  process.env.CATALOG_IO_VALIDATE_PART_BYTES = String(partBytes ?? 0);
  const n = runs++;
  const reportFile = join(dir, `report-${n}.csv`);
  const rejectsFile = join(dir, `rejects-${n}.csv`);
  const outcome: Outcome = { report: '', rejects: '' };
  try {
    const { parts, threadParts, ...result } = await validateFile({
      source,
      model,
      profile,
      reportFile,
      rejectsFile,
      readerOptions,
    });
    outcome.result = result;
    if (parts !== undefined) outcome.parts = parts;
    if (threadParts !== undefined) outcome.threadParts = threadParts;
  } catch (err) {
    if (!isCatalogIoError(err)) throw err;
    outcome.error = { code: err.code, message: err.message };
  }
  if (existsSync(reportFile)) outcome.report = await readFile(reportFile, 'utf8');
  if (existsSync(rejectsFile)) outcome.rejects = await readFile(rejectsFile, 'utf8');
  return outcome;
}

/** The same in parts of each size as on one thread; the parts run's count of parts. */
async function expectSame(
  source: string,
  profile: Profile,
  sizes = [211, 4096],
  readerOptions: ReaderOptions = {},
): Promise<number[]> {
  const single = await run(source, profile, undefined, readerOptions);
  expect(single.parts).toBeUndefined();
  const counts: number[] = [];
  for (const size of sizes) {
    const { parts, threadParts, ...inParts } = await run(source, profile, size, readerOptions);
    expect(inParts).toEqual(single);
    counts.push(parts ?? 0);
    // A file checked in parts had parts checked by the part thread (it is ready before the first part).
    if (parts !== undefined && parts > 3) expect(threadParts).toBeGreaterThan(0);
  }
  return counts;
}

const SAMPLE_PROFILES: Record<string, Profile | string> = {
  'products.csv': 'products.json',
  'variants-per-row.csv': 'variants-per-row.json',
  'categories.csv': { entity: 'categories' },
  'store-locations.csv': { entity: 'custom:Store Locations' },
  'supplier-update.csv': { entity: 'variants' },
};

async function profileOf(named: Profile | string, folder = join(SAMPLES, 'profiles')): Promise<Profile> {
  return typeof named === 'string' ? loadProfile(join(folder, named)) : named;
}

describe('validate in parts gives what validate on one thread gives', () => {
  for (const [file, profile] of Object.entries(SAMPLE_PROFILES)) {
    it(`samples/${file}`, async () => {
      await expectSame(join(SAMPLES, file), await profileOf(profile));
    });
  }

  for (const [file, profile] of [
    ['vendure_product-import-multi-languages.csv', 'vendure.json'],
    ['woocommerce_sample_products.csv', 'woocommerce.json'],
  ] as const) {
    it(`realworld ${file}`, async () => {
      await expectSame(join(REALWORLD, file), await profileOf(profile));
    });
  }

  it('the hostile CSV (invalid UTF-8)', async () => {
    await expectSame(join(HOSTILE, 'invalid-utf8.csv'), { entity: 'products' });
  });

  const products: Profile = {
    entity: 'products',
    columns: {
      sku: 'prod_ref',
      name: 'prod_title',
      name_fr: { field: 'prod_title', culture: 'fr' },
      description: 'prod_description',
      released: 'prod_release_date',
      launch: 'prod_launch_at',
      weight: 'prod_weight',
      tags: 'prod_tags',
    },
  };

  /** Rows with a bad value now and then, a ref used again near and far, quoted line breaks, short and long rows. */
  function feed(rows: number, options: { eol?: string; bom?: boolean; shuffled?: boolean } = {}): string {
    const eol = options.eol ?? '\n';
    const lines = ['sku,name,name_fr,description,released,launch,weight,tags'];
    for (let i = 0; i < rows; i++) {
      const n = options.shuffled ? (i * 7919) % 100_003 : i;
      // Every 53rd row repeats the ref of a row a few lines up (often across a part boundary), every 500th
      // the first row's.
      const sku = i % 500 === 499 ? 'SKU-0' : i % 53 === 52 ? `SKU-${n - 3}` : `SKU-${n}`;
      const bad = i % 37 === 36;
      const description =
        i % 5 === 0 ? `"Line one of ${i}, with ""quotes""${eol}line two${eol}line three"` : `Plain ${i}`;
      const released = bad ? '2025-02-30' : `20${10 + (i % 15)}-0${1 + (i % 9)}-1${i % 10}`;
      const launch = i % 41 === 40 ? 'soon' : `2024-03-0${1 + (i % 9)}T10:0${i % 10}:00Z`;
      const weight = i % 43 === 42 ? '"1,2O"' : `"${i % 100},5"`;
      const tags = i % 47 === 46 ? `a|${'t'.repeat(60)}` : `t${i % 7}|t${i % 11}`;
      if (i % 61 === 60) {
        lines.push(`${sku},Short ${i}`);
        continue;
      }
      if (i % 67 === 66) lines.push('');
      // Every 71st row ends in an extra delimiter: an empty cell beyond the header, dropped with a note.
      const extra = i % 71 === 70 ? ',' : '';
      lines.push(
        `${sku},"Shirt ""${i}"", cotton",Chemise ${i},${description},${released},${launch},${weight},${tags}${extra}`,
      );
    }
    return `${options.bom ? '\uFEFF' : ''}${lines.join(eol)}${eol}`;
  }

  for (const [name, options] of [
    ['LF', {}],
    ['CRLF', { eol: '\r\n' }],
    ['a byte-order mark', { bom: true }],
    ['refs in no order', { shuffled: true }],
  ] as const) {
    it(`a generated file: ${name}`, async () => {
      const source = join(dir, `feed-${name.replace(/\W+/g, '-')}.csv`);
      await writeFile(source, feed(3000, options));
      const counts = await expectSame(source, products, [211, 1500, 16384]);
      // The file was really cut: many parts at the smallest size.
      expect(counts[0]).toBeGreaterThan(100);
      const single = await run(source, products, undefined);
      expect(single.result!.outcomes.invalid).toBeGreaterThan(250);
      expect(single.result!.topErrors.some((e) => e.message.includes('duplicate reference'))).toBe(true);
      expect(single.result!.notes.some((n) => n.includes('fewer cells than the header'))).toBe(true);
      expect(single.result!.notes.some((n) => n.includes('more cells than the header (9 of 8'))).toBe(true);
    }, 60_000);
  }

  it('a file with lines above its header (--header-row 3) and semicolons', async () => {
    const source = join(dir, 'semicolons.csv');
    const body = feed(800).replaceAll(',', ';').replaceAll('"1;', '"1,');
    await writeFile(source, `Supplier export;2025\n\n${body}`);
    const counts = await expectSame(source, products, [211, 2048], { headerRow: 3 });
    expect(counts[0]).toBeGreaterThan(50);
  }, 60_000);

  it('a file ending inside a quote: the same coded error after the same lines', async () => {
    const source = join(dir, 'unclosed.csv');
    await writeFile(source, `${feed(400)}SKU-X,"never closed,x,y\n`);
    await expectSame(source, products, [211, 4096]);
    const single = await run(source, products, undefined);
    expect(single.error?.code).toBe('CSV_QUOTE_NOT_CLOSED');
    expect(single.report.split('\r\n').length).toBeGreaterThan(400);
  }, 60_000);
});

describe('the CLI, in parts', () => {
  it('a file ending inside a quote: the same message and exit code as on one thread', async () => {
    const source = join(dir, 'unclosed-cli.csv');
    await writeFile(
      source,
      `sku,name\n${Array.from({ length: 2000 }, (_, i) => `S${i},n${i}`).join('\n')}\nS-X,"open\n`,
    );
    const args = ['validate', source, '--schemas', schemas, '--entity', 'products'];
    const single = await runCliProcess(args, {
      env: { CATALOG_IO_VALIDATE_PARTS: 'off' },
      timeoutMs: 60_000,
    });
    const inParts = await runCliProcess(args, {
      env: {
        CATALOG_IO_VALIDATE_PARTS: 'on',
        CATALOG_IO_VALIDATE_PART_BYTES: '1000',
        CATALOG_IO_VALIDATE_WAIT_THREADS: '1',
      },
      timeoutMs: 60_000,
    });
    expect(single.stderr).toContain('Quote not closed');
    expect(single.code).not.toBe(0);
    expect(inParts.code).toBe(single.code);
    expect(inParts.stderr).toBe(single.stderr);
    expect(inParts.stderr).not.toMatch(/\n\s+at /);
  }, 90_000);

  it('SIGINT during a run in parts ends it as on one thread: by the signal, no stack trace', async () => {
    const source = join(dir, 'large.csv');
    const rows = Array.from({ length: 400_000 }, (_, i) => `S${i},Name ${i},"a, b",${i % 100}`);
    await writeFile(source, `sku,name,description,stock\n${rows.join('\n')}\n`);
    const ends: Array<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> = [];
    for (const mode of ['off', 'on']) {
      const report = join(dir, `interrupted-${mode}.csv`);
      const child = spawn(
        process.execPath,
        [
          '--import',
          pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href,
          join(import.meta.dirname, '../../src/cli/run.ts'),
          'validate',
          source,
          '--schemas',
          schemas,
          '--entity',
          'products',
          '--report',
          report,
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, CATALOG_IO_VALIDATE_PARTS: mode, CATALOG_IO_VALIDATE_PART_BYTES: '65536' },
        },
      );
      let stderr = '';
      child.stderr!.on('data', (c) => {
        stderr += c;
      });
      const closed = once(child, 'close');
      // Signalled once rows are being written: the report has its first lines.
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && !(existsSync(report) && statSync(report).size > 0)) {
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGINT');
      const [code, signal] = (await closed) as [number | null, NodeJS.Signals | null];
      ends.push({ code, signal, stderr });
    }
    expect(ends[1]!.code).toBe(ends[0]!.code);
    expect(ends[1]!.signal).toBe(ends[0]!.signal);
    expect(ends[0]!.code === 130 || ends[0]!.signal === 'SIGINT').toBe(true);
    for (const end of ends) expect(end.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});
