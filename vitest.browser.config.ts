import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the built `ll-loop ui` page and the Temporal Web UI in a real browser
 * (Debian's Chromium, driven by playwright-core; tests/support/chromium.ts). Not part of
 * `npm test`, like the cluster tier: it needs a system package (installed on demand only where
 * the tests run as root), and Chromium rendering the pages was a sixth of the suite's CPU on two
 * cores (docs/decisions.md, "Tests and the bench"). CI runs it after `npm test`.
 *
 * The files run their own embedded servers; the shared setup is kept for the run's id, by which
 * its teardown stops the checkout workers the files' commands started, and for finding (or
 * installing) the Temporal CLI once; tests/setup/chromium.ts installs Chromium once, before the
 * forks start.
 */
export default defineConfig({
  test: {
    include: ['tests/browser/**/*.test.ts'],
    globalSetup: ['tests/setup/chromium.ts', 'tests/setup/temporal-server.ts'],
    reporters: ['default', './tests/setup/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 2 } },
  },
});
