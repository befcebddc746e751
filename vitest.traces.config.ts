import { defineConfig } from 'vitest/config';

/**
 * `npm run test:traces`: runs traced with OpenTelemetry, checked in a real Jaeger v2 (built from
 * its Go module into `.cache/`, tests/support/jaeger.ts; tests/setup/jaeger.ts builds it once,
 * before the files start). Not part of `npm test`, like the cluster tier: it needs Go, and the
 * first build takes minutes (docs/decisions.md, "Traces"). CI runs it after the cluster tier.
 * The files run their own embedded servers and Jaeger; the shared setup is kept for the run's id
 * (its teardown stops the checkout workers the files' commands started) and the Temporal CLI.
 */
export default defineConfig({
  test: {
    include: ['tests/traces/**/*.test.ts'],
    globalSetup: ['tests/setup/jaeger.ts', 'tests/setup/temporal-server.ts'],
    reporters: ['default', './tests/setup/summary-reporter.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    pool: 'forks',
  },
});
