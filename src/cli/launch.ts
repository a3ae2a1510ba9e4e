// What `bin/catalog-io.js` starts (as `dist/bin/run.js`, scripts/bundle.mjs): the CLI's one-file bundle
// (`cli.cjs`), compiled with the code cache the build made for it. Compiling our modules and the
// libraries every run loads took about a third of a short run's start (validate of a small file:
// 0.16 s, 0.11 s with the cache); Node 20 has no compile cache of its own (Node 22's
// `module.enableCompileCache` is the same idea). The cache holds V8's bytecode of the functions a
// sample validate ran, made by the build (`npm run build`) beside the bundle: nothing is written at run
// time. A cache made for another bundle, another Node or other V8 flags is not used: V8 checks its
// version and flags, and the first line of the bundle names the build the cache was made from.
import { isAscii } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** Whether the cache was used: `absent` (none, or made for another build), `rejected` (by V8), `off`. */
export type CacheUse = 'used' | 'absent' | 'rejected' | 'off';

/** Environment: `off` runs the bundle without its cache (to compare, or if a cache ever misbehaves). */
export const CACHE_ENV = 'CATALOG_IO_CODE_CACHE';
/** Environment, for the build only: run, then write the cache of what ran to this path. */
export const WRITE_CACHE_ENV = 'CATALOG_IO_WRITE_CODE_CACHE';

/** The bundle's first line: `// build <id>`, the id the cache file starts with (then a line break). */
const BUILD_PREFIX = '// build ';

/**
 * Runs the CommonJS bundle at `bundle` as Node would `require` it, with the code cache beside it
 * (`<bundle>.cache`) when that was made for this build. Returns how the cache was used.
 */
export function launch(bundle: string): CacheUse {
  const bytes = readFileSync(bundle);
  // The build escapes every character past ASCII: read as Latin-1, the same text without decoding UTF-8
  // (3 ms of every start instead of 7).
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const build = source.startsWith(BUILD_PREFIX)
    ? source.slice(BUILD_PREFIX.length, source.indexOf('\n'))
    : '';
  const writeTo = process.env[WRITE_CACHE_ENV];
  const off = process.env[CACHE_ENV] === 'off' || writeTo !== undefined;
  const cached = off || build === '' ? undefined : cacheFor(`${bundle}.cache`, build);
  // The wrapper starts on the bundle's first line, so stack traces keep the bundle's line numbers.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cached && { cachedData: cached }),
  });
  const use: CacheUse = off ? 'off' : !cached ? 'absent' : script.cachedDataRejected ? 'rejected' : 'used';
  if (writeTo !== undefined) {
    // After the run, so the cache holds the functions it compiled, not only the top level.
    process.once('exit', () => {
      writeFileSync(writeTo, Buffer.concat([Buffer.from(`${build}\n`), script.createCachedData()]));
    });
  }
  const module = { exports: {} };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return use;
}

/** The cache's bytes when the file is there and was made for `build`. */
function cacheFor(path: string, build: string): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return undefined;
  }
  const head = Buffer.from(`${build}\n`);
  return file.subarray(0, head.length).equals(head) ? file.subarray(head.length) : undefined;
}
