import { defineConfig } from 'vitest/config';

/**
 * One Temporal dev server and one workflow bundle per test run, shared by every file of the tiers
 * that need them: the first project to start sets them up, the next reuses them
 * (tests/setup/*.ts), and the last teardown stops them.
 */
const SERVER_AND_BUNDLE = ['tests/setup/temporal-server.ts', 'tests/setup/workflow-bundle.ts'];

export default defineConfig({
  test: {
    // No globalSetup here: the root config's setup would run for every project, unit included.
    reporters: ['default', './tests/setup/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores, three forks: integration and e2e files spend most of their time waiting on the
    // server, timers and child processes (a pool test: ~35 s of CPU in ~250 s), so a third file in
    // flight uses time two would leave idle; more than that and the CPU-heavy files (unit collect,
    // replay, long-loop) starve the waiting ones.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
    projects: [
      // The pure core and everything that needs no server, no bundle and no built package.
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      // Every committed history (tests/fixtures/histories/) replayed with today's bundle: no server.
      {
        extends: true,
        test: {
          name: 'replay',
          include: ['tests/replay/**/*.test.ts'],
          globalSetup: ['tests/setup/workflow-bundle.ts'],
        },
      },
      // Workflows and activities against the real dev server, with real processes.
      {
        extends: true,
        test: { name: 'integration', include: ['tests/integration/**/*.test.ts'], globalSetup: SERVER_AND_BUNDLE },
      },
      // The built `ll-loop` binary as a user runs it.
      { extends: true, test: { name: 'e2e', include: ['tests/e2e/**/*.test.ts'], globalSetup: SERVER_AND_BUNDLE } },
    ],
  },
});
