// startSandbox(): the catalog API, the DAM API and a static asset host in one process, on one origin,
// under three path prefixes. The sandbox follows the spec, never the client: it imports nothing
// from the rest of src/.
import { createAssetHost } from './assets/index.js';
import { createCatalogService } from './catalog/index.js';
import { monotonicNow, resolveOptions, type SandboxOptions, type ServiceContext } from './context.js';
import { createDamService } from './dam/index.js';
import type { SandboxService } from './http.js';
import { Persistence } from './persist.js';
import { PREFIX, SandboxServer } from './server.js';

export type { SandboxOptions } from './context.js';

export interface SandboxHandle {
  catalogUrl: string;
  damUrl: string;
  assetsUrl: string;
  apiKey: string;
  readOnlyKey: string;
  /** The origin; request counters are at `<origin>/_sandbox/stats`. */
  origin: string;
  /** Whether the state was restored from an earlier run's snapshot. */
  restored: boolean;
  /** Set when a saved state existed but could not be read (the sandbox then started from its seed). */
  notice?: string;
  /** The services themselves, for tests and benchmarks that build large tenants without HTTP. */
  services: { catalog: SandboxService; dam: SandboxService };
  /** Stops the server and background work, logging any change not yet logged. */
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const resolved = resolveOptions(options);
  const server = new SandboxServer(resolved);
  // A port in use is the listen error as it is: the library's startSandbox says it in the caller's words.
  const origin = await server.listen();
  const urls = {
    origin,
    catalogUrl: origin + PREFIX.catalog,
    damUrl: origin + PREFIX.dam,
    assetsUrl: origin + PREFIX.assets,
  };

  let persistence: Persistence | undefined;
  const ctx: ServiceContext = {
    options: resolved,
    urls,
    markDirty: () => persistence?.markDirty(),
    now: monotonicNow,
  };
  const create = () => {
    const dam = createDamService(ctx);
    const catalog: SandboxService = createCatalogService(ctx, dam);
    return { dam, catalog, assets: createAssetHost(ctx) };
  };
  let services = create();

  let restored = false;
  let notice: string | undefined;
  // A state folder that cannot be made or read (a read-only place) ends the start: the server goes too.
  const dataDir = resolved.dataDir;
  try {
    if (dataDir) startPersistence(dataDir);
  } catch (err) {
    await services.dam.close?.();
    await server.close();
    throw err;
  }
  function startPersistence(dataDir: string): void {
    persistence = new Persistence(dataDir, services, resolved.compactLogBytes);
    if (!resolved.reset) {
      try {
        restored = persistence.load();
      } catch (err) {
        // A snapshot this version cannot read: start from the seed rather than refuse to start.
        void services.dam.close?.();
        services = create();
        persistence = new Persistence(dataDir, services, resolved.compactLogBytes);
        notice = `The saved state in ${dataDir} could not be read (${(err as Error).message}); started from the ${resolved.seed} seed`;
      }
    }
    persistence.start();
    const durable = persistence;
    server.durable = () => durable.commit();
  }
  const { catalog, dam, assets } = services;
  server.mount({ catalog, dam, assets });

  let closed = false;
  return {
    ...urls,
    apiKey: resolved.apiKey,
    readOnlyKey: resolved.readOnlyKey,
    restored,
    ...(notice !== undefined && { notice }),
    services: { catalog, dam },
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      await dam.close?.();
      await catalog.close?.();
      await assets.close?.();
      await persistence?.close();
    },
  };
}
