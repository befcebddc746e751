import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // One Temporal dev server and one workflow bundle per test run, shared by all files.
    globalSetup: ['tests/setup/temporal-server.ts', 'tests/setup/workflow-bundle.ts'],
    reporters: ['default', './tests/setup/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: integration files start workers and processes; keep parallelism modest.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
