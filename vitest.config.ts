import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/live/**', 'test/packaging/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The heap figures of the 1,000-cycle test are taken after a full collection.
    execArgv: ['--expose-gc'],
  },
});
