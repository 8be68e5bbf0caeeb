import { defineConfig } from 'vitest/config';
import { backendOf } from './test/cluster/backend.ts';

// The tests of the real tier (test/cluster): run through `npm run test:cluster`, which starts the
// control plane and passes its kubeconfig in OTS_CLUSTER_KUBECONFIG. Tests about the simulator's
// own seams (`*.simulator-tier.test.ts`) run only on a tier whose openshift-apiserver is the
// simulator; test:cluster starts one for them after the real one.
const simulatorBacked = backendOf(process.env.OTS_CLUSTER_KUBECONFIG)?.backend === 'simulator';

export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    exclude: simulatorBacked ? [] : ['test/cluster/**/*.simulator-tier.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
