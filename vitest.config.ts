import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/cluster needs the real control plane: npm run test:cluster runs it.
    exclude: ['test/live/**', 'test/packaging/**', 'test/cluster/**', 'node_modules/**'],
    // The duration up front, and no process-warning lines from the library's fallback in a passing run.
    globalSetup: ['test/setup/announce.ts'],
    setupFiles: ['test/setup/process-warnings.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The heap figures of the 1,000-cycle test are taken after a full collection.
    execArgv: ['--expose-gc'],
  },
});
