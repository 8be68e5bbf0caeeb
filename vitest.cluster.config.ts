import { defineConfig } from 'vitest/config';

// The tests of the real tier (test/cluster): run through `npm run test:cluster`, which starts the
// control plane and passes its kubeconfig in OTS_CLUSTER_KUBECONFIG.
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
