// A live command reads only the `$metadata` documents its entities need (live.ts): the model built
// from that reduced set is, for every entity it holds, the model built from every document (what
// validation and import use: languages, paths, id and reference fields, fields, the schema itself),
// and a document the tenant does not give under `$defs` is still read on its own.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Clients, createClients } from '../../src/api/index.js';
import { buildTenantModel } from '../../src/schema/build.js';
import { LiveSchemas } from '../../src/schema/live.js';
import { TenantModels } from '../../src/schema/load.js';
import type { EntityModel, TenantModel } from '../../src/schema/model.js';
import { fetchRawSchemas } from '../../src/schema/raw.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let clients: Clients;
let full: TenantModel;
/** Paths the catalog was asked for through the counting proxy (below the catalog URL). */
const seen: string[] = [];
let proxyClients: Clients;
const proxy = createServer();
/** When set, the proxy answers `/$metadata` with these `$defs` entries taken out. */
let withoutDefs: string[] = [];

beforeAll(async () => {
  const sb = fixture.sb;
  const upstream = new URL(sb.catalogUrl);
  proxy.on('request', (req, res) => {
    const local = decodeURIComponent(req.url ?? '').slice(upstream.pathname.length);
    seen.push(local);
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        if (local !== '/$metadata' || withoutDefs.length === 0) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        // A tenant whose `/$metadata` lacks some resources under `$defs`.
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            value: { $defs: Record<string, unknown> };
          };
          for (const name of withoutDefs) delete doc.value.$defs[name];
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(doc));
        });
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  const options = { damUrl: sb.damUrl, apiKey: sb.apiKey, rateLimit: null };
  clients = createClients({ catalogUrl: sb.catalogUrl, ...options });
  proxyClients = createClients({ catalogUrl: `http://127.0.0.1:${port}${upstream.pathname}`, ...options });
  full = buildTenantModel(await fetchRawSchemas(clients.catalog));
});
afterAll(async () => {
  await clients?.transport.close();
  await proxyClients?.transport.close();
  await new Promise((resolve) => proxy.close(resolve));
});

/** What validation and import read of an entity (its `field()` lookup answers from `fields`). */
function used(e: EntityModel | undefined) {
  if (!e) return undefined;
  const { field: _field, ...rest } = e;
  return rest;
}

function expectSameEntities(reduced: TenantModel, names: string[]): void {
  expect(reduced.languages).toEqual(full.languages);
  expect(reduced.baseLanguage).toBe(full.baseLanguage);
  for (const name of names) {
    expect(reduced.entity(name), name).toBeDefined();
    expect(used(reduced.entity(name)), name).toEqual(used(full.entity(name)));
    for (const f of full.entity(name)!.fields) expect(reduced.entity(name)!.field(f.name)).toEqual(f);
  }
}

async function metadataRead(run: () => Promise<unknown>): Promise<string[]> {
  seen.length = 0;
  await run();
  return seen.filter((p) => p.endsWith('/$metadata')).sort();
}

describe('the model from the documents a command needs', () => {
  it('products, variants and categories from /$metadata alone: one request, the same entities', async () => {
    let reduced: TenantModel | undefined;
    const read = await metadataRead(async () => {
      reduced = buildTenantModel(await new LiveSchemas(proxyClients.catalog).raw(['products', 'Variants']));
    });
    expect(read).toEqual(['/$metadata']);
    expectSameEntities(reduced!, ['products', 'variants', 'categories']);
    expect(reduced!.entities.map((e) => e.name)).toEqual(['products', 'variants', 'categories']);
  });

  it('one custom entity: the list and its own document besides /$metadata', async () => {
    let reduced: TenantModel | undefined;
    const read = await metadataRead(async () => {
      reduced = buildTenantModel(
        await new LiveSchemas(proxyClients.catalog).raw(['products', 'custom:Store Locations']),
      );
    });
    expect(read).toEqual(
      ['/$metadata', '/CustomEntities/$metadata', "/CustomEntities('Store Locations')/$metadata"].sort(),
    );
    expectSameEntities(reduced!, ['products', 'variants', 'categories', 'custom:Store Locations']);
  });

  it('everything: every custom entity document, and the whole model equal to the one from all documents', async () => {
    let reduced: TenantModel | undefined;
    const read = await metadataRead(async () => {
      reduced = buildTenantModel(await new LiveSchemas(proxyClients.catalog).raw('all'));
    });
    const customs = full.entities.filter((e) => e.kind === 'custom');
    expect(customs.length).toBeGreaterThan(0);
    expect(read).toEqual(
      [
        '/$metadata',
        '/CustomEntities/$metadata',
        ...customs.map((e) => `/CustomEntities('${e.denominator}')/$metadata`),
      ].sort(),
    );
    expect(reduced!.entities.map((e) => e.name)).toEqual(full.entities.map((e) => e.name));
    expectSameEntities(
      reduced!,
      full.entities.map((e) => e.name),
    );
  });

  it('a name that is not an entity reads every custom entity, so the error can list them all', async () => {
    const read = await metadataRead(() => new LiveSchemas(proxyClients.catalog).raw(['no-such-thing']));
    expect(read).toHaveLength(2 + full.entities.filter((e) => e.kind === 'custom').length);
  });

  it('a resource missing under $defs is read from its own document, with the same model', async () => {
    withoutDefs = ['Variant'];
    try {
      let reduced: TenantModel | undefined;
      const read = await metadataRead(async () => {
        reduced = buildTenantModel(await new LiveSchemas(proxyClients.catalog).raw(['products']));
      });
      expect(read).toEqual(['/$metadata', '/Variants/$metadata']);
      expectSameEntities(reduced!, ['products', 'variants', 'categories']);
    } finally {
      withoutDefs = [];
    }
  });

  it('one connection reads each document once across scopes', async () => {
    const models = new TenantModels({ client: proxyClients.catalog });
    const read = await metadataRead(async () => {
      await models.model(['products']);
      await models.model(['custom:Suppliers']);
      await models.model('all');
      await models.model(['variants']);
    });
    const customs = full.entities.filter((e) => e.kind === 'custom');
    expect(read).toHaveLength(2 + customs.length);
    expect(new Set(read).size).toBe(read.length);
  });
});
