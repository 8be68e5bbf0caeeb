import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/cluster needs the real control plane: npm run test:cluster runs it.
    exclude: ['test/live/**', 'test/packaging/**', 'test/cluster/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The heap figures of the 1,000-cycle test are taken after a full collection.
    execArgv: ['--expose-gc'],
  },
});
