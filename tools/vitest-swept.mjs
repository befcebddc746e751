#!/usr/bin/env node
/**
 * `node tools/vitest-swept.mjs <vitest arguments>`: vitest, then the sweep of whatever its tests
 * left running (tools/test-run-sweep.mjs), however it ended: `npm test` and the browser and
 * cluster tiers run vitest through it. Exits with vitest's code.
 *
 * The test run's id is always a fresh one, set in vitest's environment only: one taken from this
 * process's environment would be carried by the shell that exported it, and the sweep would stop
 * the shell.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sweepTestRun } from './test-run-sweep.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const testRunId = randomUUID();
const child = spawn(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, LL_TEST_RUN_ID: testRunId },
});
// A signal to this process alone (not the terminal's, which reaches vitest too) is passed on.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('error', (err) => {
  process.stderr.write(`error: could not start vitest: ${err.message}\nfix: run "npm install"\n`);
  process.exitCode = 1;
});
child.on('close', (code, signal) => {
  // After a normal end, nothing (the teardowns stopped it all: one left is a test that leaks, and
  // is said); after an interrupted one, what the tests had started.
  const left = sweepTestRun(testRunId);
  if (left > 0)
    process.stderr.write(`\n[tests] stopped ${left} process${left === 1 ? '' : 'es'} the tests left running\n`);
  process.exitCode = code ?? (signal ? 1 : 0);
});
