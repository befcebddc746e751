import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './tests/setup/sequencer.js';

/**
 * One Temporal dev server and one workflow bundle per test run, shared by every file of the tiers
 * that need them: the first project to start sets them up, the next reuses them
 * (tests/setup/*.ts), and the last teardown stops them.
 */
const SERVER_AND_BUNDLE = ['tests/setup/temporal-server.ts', 'tests/setup/workflow-bundle.ts'];

/**
 * How many test files run at once: LL_TEST_FORKS (a whole number from 1), else 2. Three fail: with
 * `isolate: false` vitest runs the projects one after another in the forks pool and recycles the
 * forks between them, and with three that recycling terminated a fork holding a queued file
 * (tinypool's "Terminating worker thread": no integration file ran; docs/decisions.md).
 */
function testForks(): number {
  const n = Number(process.env.LL_TEST_FORKS);
  return Number.isInteger(n) && n >= 1 ? n : 2;
}

export default defineConfig({
  test: {
    // No globalSetup here: the root config's setup would run for every project, unit included.
    reporters: ['default', './tests/setup/summary-reporter.ts'],
    // Long files first when vitest does not know the durations (tests/setup/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: integration files start workers and processes; keep parallelism modest. Those
    // files mostly wait (a pool test: ~37 s of CPU in ~250 s), so an idle 2-core machine gains from
    // LL_TEST_FORKS=3; in CI and on a shared, loaded one a third fork turned waits into timeouts.
    pool: 'forks',
    poolOptions: {
      // One process per fork for all its files (not one per file): every integration file loaded
      // the Temporal SDK, the worker's native core and our modules again, 63 s of the tier's 400 s
      // CPU (337 -> 290 s wall alone). The files restore what they change (process.env) and shut
      // down the workers and servers they start; the servers of the run stay shared as before.
      forks: { maxForks: testForks(), minForks: 1, isolate: false },
      // Only the unit tier runs on threads (below): one thread, its files sharing one module
      // cache, beside the forks. Those files need no isolation (no mocks, no globals of their
      // own); a fresh process and module graph per file cost two thirds of the tier's CPU: 106 s
      // on two forks, 47 s on one shared thread, 44 s wall instead of 59 s.
      threads: { isolate: false, maxThreads: 1, minThreads: 1 },
    },
    projects: [
      // The pure core and everything that needs no server, no bundle and no built package.
      // Its own pool (vitest runs the pools side by side): the forks keep to the tiers that wait.
      {
        extends: true,
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], pool: 'threads' },
      },
      // Every committed history (tests/fixtures/histories/) replayed with today's bundle: no server.
      {
        extends: true,
        test: {
          name: 'replay',
          include: ['tests/replay/**/*.test.ts'],
          globalSetup: ['tests/setup/workflow-bundle.ts'],
        },
      },
      // Workflows and activities against the real dev server, with real processes; quick actions
      // started by the action spawner as in an installed worker (tests/setup/action-spawner.ts).
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: [...SERVER_AND_BUNDLE, 'tests/setup/action-spawner.ts'],
        },
      },
      // The built `ll-loop` binary as a user runs it.
      { extends: true, test: { name: 'e2e', include: ['tests/e2e/**/*.test.ts'], globalSetup: SERVER_AND_BUNDLE } },
    ],
  },
});
