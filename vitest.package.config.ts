import { defineConfig } from 'vitest/config';

// The packaging test: needs `npm run build` first and installs from the npm registry.
export default defineConfig({
  test: {
    include: ['test/packaging/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
