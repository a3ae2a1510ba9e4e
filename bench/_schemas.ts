// The demo tenant's schemas for the validation benchmarks, pulled once from an in-process sandbox into
// `dir`; the cases then read no network.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pullSandboxSchemas } from '../test/helpers/pulled-schemas.js';

export async function pulledSchemas(dir: string): Promise<string> {
  if (!existsSync(join(dir, 'index.json'))) await pullSandboxSchemas(dir);
  return dir;
}
