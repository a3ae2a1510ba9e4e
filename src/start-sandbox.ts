// The library's startSandbox: the simulator's (which imports nothing of the client), with its refusals
// (an option of the wrong kind, a port in use) given as the library's coded errors. The CLI and the
// embedded sandbox start it through here too, so a port in use is turned into an error in one place.
import { CatalogIoError, isCatalogIoError } from './errors.js';
import { resolveOptions, type SandboxOptions } from './sandbox/context.js';
import { type SandboxHandle, startSandbox as startSimulator } from './sandbox/index.js';

/** A port in use, in the words of whoever chose it: the library names its `port` option, the CLI --port. */
export type PortInUseWords = (port: number, host: string) => string;

const optionWords: PortInUseWords = (port, host) =>
  `startSandbox: port ${port} on ${host} is already in use: pick another port (0 = any free port)`;

/**
 * Starts the sandbox tenant (catalog, DAM and asset host on one origin). An option it cannot start with
 * (`seed: 'nope'`, `rateLimit: 'abc'`, a port out of range) or a port in use is a CatalogIoError
 * `CONFIG_INVALID` naming the option and what it takes.
 */
export function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  return startSandboxSaying(options, optionWords);
}

/**
 * startSandbox with a port in use said in the caller's words. That error is CONFIG_INVALID with the
 * port in `details.portInUse` (see isPortInUse) and the listen error as its cause.
 */
export async function startSandboxSaying(
  options: SandboxOptions,
  portInUse: PortInUseWords,
): Promise<SandboxHandle> {
  try {
    return await startSimulator(options);
  } catch (err) {
    if (err instanceof Error && err.name === 'SandboxStartError')
      throw new CatalogIoError('CONFIG_INVALID', err.message, { cause: err });
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      // The options were accepted by now, so resolving them again only fills in the defaults.
      const { port, host } = resolveOptions(options);
      throw new CatalogIoError('CONFIG_INVALID', portInUse(port, host), { cause: err, portInUse: port });
    }
    throw err;
  }
}

/** Whether startSandbox refused because the port asked for is in use. */
export function isPortInUse(err: unknown): err is CatalogIoError {
  return isCatalogIoError(err, 'CONFIG_INVALID') && err.details.portInUse !== undefined;
}
