import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster`: the built `ll-loop` against a real Temporal cluster (the server built
 * from its Go module on PostgreSQL, tests/setup/cluster.ts). Not part of `npm test`: it needs Go
 * and PostgreSQL, and the first run builds the server.
 */
export default defineConfig({
  test: {
    include: ['tests/cluster/**/*.test.ts'],
    globalSetup: ['tests/setup/cluster.ts'],
    reporters: ['default', './tests/setup/summary-reporter.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The fault tests kill and restart the one server every file uses: one file at a time.
    fileParallelism: false,
    pool: 'forks',
  },
});
