// Starts a worker thread from the module next to the caller: the compiled `.js` file (in the bundle too,
// where every chunk sits in `dist/bin/`), or, run from TypeScript sources (tsx, vitest), the `.ts` file
// after registering tsx's loader, which a worker's entry does not get from its parent.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `here`: the caller's `import.meta.url`; `name`: the thread's module without its extension. */
export function startThread(here: string, name: string, options: WorkerOptions): Worker {
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), options);
  const entry = new URL(`./${name}.ts`, here).href;
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
