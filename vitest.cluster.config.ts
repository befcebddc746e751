import { defineConfig } from 'vitest/config';

/**
 * Integration files that hold for any Temporal server, run again on the cluster: lifecycle
 * commands, scope locks and `--queue`, failed runs and `list --failed`, schedules (overlap,
 * backfill), sub-loops, and upgrades from the committed histories.
 */
const ON_ANY_SERVER = [
  'lifecycle-commands',
  'scope-lock-cli',
  'scope-locks',
  'close-as-outcome',
  'schedules',
  'subloops',
  'upgrade',
].map((name) => `tests/integration/${name}.test.ts`);

/**
 * `npm run test:cluster`: ll-loop against a real Temporal cluster (the server built from its Go
 * module, on PostgreSQL; tests/setup/cluster.ts), which the integration tier's setup reuses as its
 * server (TEMPORAL_TEST_ADDRESS). Not part of `npm test`: it needs Go and PostgreSQL, and the
 * first run builds the server.
 */
export default defineConfig({
  test: {
    include: ['tests/cluster/**/*.test.ts', ...ON_ANY_SERVER],
    globalSetup: ['tests/setup/cluster.ts', 'tests/setup/temporal-server.ts', 'tests/setup/workflow-bundle.ts'],
    reporters: ['default', './tests/setup/summary-reporter.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The fault tests kill and restart the one server every file uses: one file at a time.
    fileParallelism: false,
    pool: 'forks',
  },
});
