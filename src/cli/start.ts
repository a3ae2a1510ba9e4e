// The shipped CLI's first module (`dist/bin/run.js`, what `bin/catalog-io.js` imports): runs the
// bundle beside it with its code cache (launch.ts). Only Node's own modules load before the bundle.
import { fileURLToPath } from 'node:url';
import { launch } from './launch.js';

launch(fileURLToPath(new URL('./cli.cjs', import.meta.url)));
