import { defineConfig } from 'vitest/config';

// The live suite: run through `npm run test:live`, which refuses to start without an explicit
// kubeconfig or context and prints the summary.
export default defineConfig({
  test: {
    include: ['test/live/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
