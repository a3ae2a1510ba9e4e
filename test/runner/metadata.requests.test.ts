// What the tenant's `$metadata` costs each live command, counted by the sandbox (`/_sandbox/stats`):
// every command reads `/$metadata` (every standard resource under `$defs`); the custom-entity list and
// the custom entities' own documents only when the command touches custom entities. An unchanged
// nightly re-import costs its import state's 2 requests and that one read. The same command with
// `--schemas DIR` (no `$metadata` read at all) gives the difference, so the count is not guessed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call, sandboxFlags, useSandbox, useTargetSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';

const demo = useSandbox({ seed: 'demo', remoteAssets: 'synthetic' });
const target = useTargetSandbox(demo, { remoteAssets: 'synthetic' });
const dir = mkdtempSync(join(tmpdir(), 'catalog-io-metadata-'));
const home = process.cwd();
const schemas = join(dir, 'schemas');
const figures: string[] = [];

beforeAll(async () => {
  process.chdir(dir);
  await run(['schema', 'pull', '--out', schemas, ...sandboxFlags(demo.sb)]);
});
afterAll(() => {
  process.chdir(home);
  rmSync(dir, { recursive: true, force: true });
  if (figures.length > 0)
    console.log(['requests per command (total, of which $metadata):', ...figures].join('\n'));
});

async function total(sb: SandboxHandle): Promise<number> {
  return ((await call(sb.origin, '/_sandbox/stats')).body as { total: number }).total;
}

async function run(args: string[]): Promise<void> {
  const out = memoryOutput();
  const code = await main(args, out);
  expect(code, [...out.stderr, ...out.stdout].join('\n')).toBe(0);
}

/** Requests the command sent to `sb` (the stats request itself is not counted by the sandbox). */
async function counted(args: string[], sb: SandboxHandle = demo.sb): Promise<number> {
  const before = await total(sb);
  await run(args);
  return (await total(sb)) - before;
}

/** The command live and with `--schemas` (its `$metadata` reads are the difference); `again` runs first. */
async function measured(name: string, args: string[]): Promise<{ live: number; metadata: number }> {
  const live = await counted([...args, ...sandboxFlags(demo.sb, { rateLimit: 'off' })]);
  const offline = await counted([
    ...args,
    '--schemas',
    schemas,
    ...sandboxFlags(demo.sb, { rateLimit: 'off' }),
  ]);
  figures.push(`  ${name.padEnd(44)} ${String(live).padStart(4)} ${String(live - offline).padStart(4)}`);
  return { live, metadata: live - offline };
}

const WOO = [
  `${REALWORLD}/woocommerce_sample_products.csv`,
  '--profile',
  join(home, 'samples', 'profiles', 'woocommerce.json'),
];
const PRODUCTS = [
  join(home, 'samples', 'products.csv'),
  '--profile',
  join(home, 'samples', 'profiles', 'products.json'),
];

describe('the $metadata a live command reads', () => {
  it("an unchanged re-import without images costs its state's 2 requests and /$metadata", async () => {
    // The sample's valid rows (its line 4 is invalid on purpose): prices and stock, no image.
    const lines = readFileSync(join(home, 'samples', 'supplier-update.csv'), 'utf8').split('\n');
    writeFileSync(join(dir, 'update.csv'), [...lines.slice(0, 3), ''].join('\n'));
    const feed = [join(dir, 'update.csv'), '--entity', 'variants', '--quiet'];
    await run(['import', ...feed, ...sandboxFlags(demo.sb, { rateLimit: 'off' })]);
    await run(['import', ...feed, ...sandboxFlags(demo.sb, { rateLimit: 'off' })]);
    const { live, metadata } = await measured('import variants (supplier update), unchanged', [
      'import',
      ...feed,
    ]);
    expect(metadata).toBe(1);
    expect(live).toBe(2 + 1);
  });

  it('an unchanged re-import of products reads /$metadata only', async () => {
    await run(['import', ...PRODUCTS, '--quiet', ...sandboxFlags(demo.sb, { rateLimit: 'off' })]);
    await run(['import', ...PRODUCTS, '--quiet', ...sandboxFlags(demo.sb, { rateLimit: 'off' })]);
    const { metadata } = await measured('import products (images), unchanged', [
      'import',
      ...PRODUCTS,
      '--quiet',
    ]);
    expect(metadata).toBe(1);
  });

  it("an import of a custom entity reads /$metadata, the list and that entity's document", async () => {
    const feed = [
      join(home, 'samples', 'store-locations.csv'),
      '--entity',
      'custom:Store Locations',
      '--quiet',
    ];
    await run(['import', ...feed, ...sandboxFlags(demo.sb, { rateLimit: 'off' })]);
    const { metadata } = await measured('import custom:Store Locations, unchanged', ['import', ...feed]);
    expect(metadata).toBe(3);
  });

  it('an unchanged re-import of products with variants (the WooCommerce feed): one read', async () => {
    await run(['import', ...WOO, '--quiet', ...sandboxFlags(demo.sb, { rateLimit: 'off' })]);
    await run(['import', ...WOO, '--quiet', ...sandboxFlags(demo.sb, { rateLimit: 'off' })]);
    const { metadata } = await measured('import WooCommerce (variants), unchanged', [
      'import',
      ...WOO,
      '--quiet',
    ]);
    expect(metadata).toBe(1);
  });

  it('validate, connected (references checked): one read', async () => {
    const { metadata } = await measured('validate --check-refs', [
      'validate',
      ...WOO,
      '--check-refs',
      '--quiet',
    ]);
    expect(metadata).toBe(1);
  });

  it('profile init, connected: one read', async () => {
    const { metadata } = await measured('profile init', [
      'profile',
      'init',
      `${REALWORLD}/woocommerce_sample_products.csv`,
      '--entity',
      'products',
      '--out',
      join(dir, 'drafted.json'),
    ]);
    expect(metadata).toBe(1);
  });

  it('an export of one custom entity reads its list and its own document', async () => {
    const out = join(dir, 'stores.csv');
    const { metadata } = await measured('export custom:Store Locations', [
      'export',
      'custom:Store Locations',
      '--out',
      out,
      '--quiet',
    ]);
    expect(metadata).toBe(3);
  });

  it('an export of everything reads every custom entity document', async () => {
    const out = join(dir, 'everything.xlsx');
    const { metadata } = await measured('export everything', ['export', '--out', out, '--quiet']);
    const customs = await customCount(demo.sb);
    expect(metadata).toBe(2 + customs);
  });

  it("copy reads /$metadata, the custom-entity list and each custom entity's document, once a side", async () => {
    // The source's catalog behind a loopback proxy that counts the paths asked for.
    const seen: string[] = [];
    const upstream = new URL(demo.sb.catalogUrl);
    const proxy = createServer((req, res) => {
      seen.push(decodeURIComponent(req.url ?? '').slice(upstream.pathname.length));
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const from = [
        '--from-catalog-url',
        `http://127.0.0.1:${port}${upstream.pathname}`,
        '--from-dam-url',
        demo.sb.damUrl,
      ];
      const to = ['--to-catalog-url', target.sb.catalogUrl, '--to-dam-url', target.sb.damUrl];
      const keys = ['--from-api-key', demo.sb.apiKey, '--to-api-key', target.sb.apiKey];
      const pace = ['--from-rate-limit', 'off', '--to-rate-limit', 'off'];
      const before = await total(target.sb);
      await run(['copy', ...from, ...to, ...keys, ...pace, '--json']);
      figures.push(
        `  ${'copy (source / target), into an empty tenant'.padEnd(44)} ${seen.length} / ${(await total(target.sb)) - before}`,
      );
      const metadata = seen.filter((p) => p.split('?')[0]!.endsWith('/$metadata')).sort();
      const customs = await customCount(demo.sb);
      expect(metadata).toEqual(
        [
          '/$metadata',
          '/CustomEntities/$metadata',
          ...(await denominators(demo.sb)).map((d) => `/CustomEntities('${d}')/$metadata`),
        ].sort(),
      );
      expect(metadata).toHaveLength(2 + customs);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

async function denominators(sb: SandboxHandle): Promise<string[]> {
  const res = await call(sb.catalogUrl, '/CustomEntities/$metadata', { key: sb.apiKey });
  return (res.body as { value: { 'x-denominators': string[] } }).value['x-denominators'];
}

async function customCount(sb: SandboxHandle): Promise<number> {
  return (await denominators(sb)).length;
}
