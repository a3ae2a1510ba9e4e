// Where the team's shared folder is: beside the checkout (`../shared`, as on CI), or the path given in
// CATALOG_IO_SHARED. The real-world feed files live in its `data/realworld/`.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));

function sharedDir(): string {
  const candidates = [process.env.CATALOG_IO_SHARED, resolve(repo, '..', 'shared'), '/work/shared'];
  const found = candidates.find((dir): dir is string => !!dir && existsSync(join(dir, 'data', 'realworld')));
  if (!found) {
    throw new Error(
      `The shared folder with data/realworld/ was not found beside ${repo}; set CATALOG_IO_SHARED`,
    );
  }
  return found;
}

export const REALWORLD = join(sharedDir(), 'data', 'realworld');
