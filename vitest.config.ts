import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/temp-root.ts'],
    setupFiles: ['test/helpers/work-folder.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: more workers only add contention.
    maxWorkers: 2,
  },
});
