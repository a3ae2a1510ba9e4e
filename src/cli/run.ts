// Process entry point: run the CLI with this process's arguments and exit with its code. Bundled as
// CommonJS (scripts/bundle.mjs, launch.ts), hence no top-level await.
import { main } from './main.js';

// A reader that stopped reading (`| head`) has all it wanted: end quietly, as cat and grep do, instead
// of an unhandled EPIPE. With stderr closed there is nobody left to tell anything.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});
process.stderr.on('error', () => undefined);
// A file size limit (`ulimit -f`) fails the write that passes it (EFBIG), which the run reports like a
// full disk, instead of ending the process at once with nothing said and nothing closed.
process.on('SIGXFSZ', () => undefined);

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // A command that failed is over: whatever it left open (a server it started, a socket) must not keep
  // the process alive, which a scheduler would see as a hang. Its output is flushed first.
  if (code === 2) setTimeout(() => process.exit(2), 1000).unref();
});
