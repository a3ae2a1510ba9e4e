// The library's startSandbox: the simulator's (which imports nothing of the client), with its refusals
// (an option of the wrong kind, a port in use) given as the library's coded errors.
import { CatalogIoError } from './errors.js';
import type { SandboxOptions } from './sandbox/context.js';
import { type SandboxHandle, startSandbox as startSimulator } from './sandbox/index.js';

/**
 * Starts the sandbox tenant (catalog, DAM and asset host on one origin). An option it cannot start with
 * (`seed: 'nope'`, `rateLimit: 'abc'`, a port out of range) or a port in use is a CatalogIoError
 * `CONFIG_INVALID` naming the option and what it takes.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  try {
    return await startSimulator(options);
  } catch (err) {
    if (err instanceof Error && err.name === 'SandboxStartError')
      throw new CatalogIoError('CONFIG_INVALID', err.message, { cause: err.cause ?? err });
    throw err;
  }
}
