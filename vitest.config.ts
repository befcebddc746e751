import { defineConfig } from 'vitest/config';
import LongestFirstSequencer, { SERVER_TIERS } from './tests/setup/sequencer.js';

/**
 * One Temporal dev server and one workflow bundle per test run (tests/setup/*.ts), shared by every
 * file of the `server` project below and stopped by its teardown.
 */
const SERVER_AND_BUNDLE = ['tests/setup/temporal-server.ts', 'tests/setup/workflow-bundle.ts'];

/**
 * How many test files run at once: LL_TEST_FORKS (a whole number from 1), else 4. The files of
 * the server tiers mostly wait (on servers, deadlines, processes): with two forks the 2-core
 * machine was busy 1.35 cores on average, with three 1.58–1.72, with four 1.93, and four passed
 * beside a busy loop (docs/decisions.md, "Tests and the bench").
 */
function testForks(): number {
  const n = Number(process.env.LL_TEST_FORKS);
  return Number.isInteger(n) && n >= 1 ? n : 4;
}

export default defineConfig({
  test: {
    // No globalSetup here: the root config's setup would run for every project, unit included.
    reporters: ['default', './tests/setup/summary-reporter.ts'],
    // Long files first when vitest does not know the durations (tests/setup/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    poolOptions: {
      // One process per fork for all its files (not one per file): every integration file loaded
      // the Temporal SDK, the worker's native core and our modules again, 63 s of the tier's 400 s
      // CPU (337 -> 290 s wall alone). The files restore what they change (process.env) and shut
      // down the workers and servers they start; the servers of the run stay shared as before.
      // As many forks at least as at most, so that tinypool ends none before the run ends: it ends
      // a fork that falls idle while there are more than `minForks`, and with three forks and one
      // such ending the run failed on "Terminating worker thread" (an unhandled rejection) with
      // one file never run.
      forks: { maxForks: testForks(), minForks: testForks(), isolate: false },
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
      // The three tiers that need the dev server or the workflow bundle, in ONE project: vitest
      // runs a pool's projects one after another (it waits for every file of one to end, then
      // recycles the forks), so as three projects the forks idled at each boundary behind the
      // tier's last long file, and a third fork was terminated in that recycling. As one project
      // the forks take the next file of any tier as soon as they are free. The tiers stay folders
      // (`npm run test:e2e` and the like name theirs):
      // - tests/e2e: the built `ll-loop` binary as a user runs it;
      // - tests/integration: workflows and activities against the real dev server, with real
      //   processes; quick actions started by the action spawner as in an installed worker
      //   (tests/setup/action-spawner.ts);
      // - tests/replay: every committed history (tests/fixtures/histories/) replayed with today's
      //   bundle, no server.
      {
        extends: true,
        test: {
          name: 'server',
          include: SERVER_TIERS.map((tier) => `tests/${tier}/**/*.test.ts`),
          // At most two tests of a `describe.concurrent` at once (vitest's default: 5). Each of
          // those e2e tests starts checkout workers and runs; five at once beside two other forks
          // overloaded a 2-core machine until their waits timed out.
          maxConcurrency: 2,
          globalSetup: [...SERVER_AND_BUNDLE, 'tests/setup/action-spawner.ts'],
        },
      },
    ],
  },
});
