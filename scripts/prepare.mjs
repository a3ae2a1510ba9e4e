// npm runs `prepare` after `npm ci`/`npm install`, and npx runs it again each time it links this
// checkout's bin. Build on install; under npx, skip the build when dist/ is already there, so
// `npx catalog-io ...` starts at once instead of compiling first.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const underNpx = process.env.npm_command === 'exec';
if (!(underNpx && existsSync('dist/bin/run.js'))) execSync('npm run build', { stdio: 'inherit' });
