// A sandbox in a process of its own for the whole-process import benchmark: `--data-dir DIR` keeps
// state on disk (write log), without it state lives in memory. Prints its origin as one JSON line and
// runs until SIGTERM. Not a benchmark itself (bench/run.ts skips files starting with `_`).
import { startSandbox } from '../src/sandbox/index.js';

const dirAt = process.argv.indexOf('--data-dir');
const dataDir = dirAt === -1 ? undefined : process.argv[dirAt + 1];
const sb = await startSandbox({ port: 0, seed: 'empty', ...(dataDir && { dataDir, reset: true }) });
process.stdout.write(
  `${JSON.stringify({ origin: sb.origin, catalogUrl: sb.catalogUrl, damUrl: sb.damUrl })}\n`,
);
process.on('SIGTERM', () => {
  void sb.close().then(() => process.exit(0));
});
