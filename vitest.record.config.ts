import { defineConfig } from 'vitest/config';

/** `npm run record-histories`: the recorder only, with the dev server and bundle of a test run. */
export default defineConfig({
  test: {
    include: ['tests/replay/record-histories.rec.ts'],
    globalSetup: ['tests/setup/temporal-server.ts', 'tests/setup/workflow-bundle.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
