/**
 * What a test run left running, found by its id: every process whose environment carries
 * `LL_TEST_RUN_ID=<id>` (the dev servers, checkout workers and action spawners its tests started
 * all inherit it). A run that ends normally stops them in its teardown and its files' `afterAll`;
 * a run interrupted (Ctrl-C, SIGTERM) ends its forks before either runs, and left a dozen servers
 * and workers behind for good. tools/vitest-swept.mjs sweeps after vitest, however it ended.
 *
 * Linux only (it reads /proc); elsewhere it finds nothing and an interrupted run may leave
 * processes behind, as before.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The pids, other than this process, whose environment carries this test run's id. */
export function processesOfTestRun(testRunId) {
  const mark = `LL_TEST_RUN_ID=${testRunId}`;
  const found = [];
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(mark)) found.push(Number(name));
    } catch {
      // gone, a kernel thread, or another user's
    }
  }
  return found;
}

/** SIGKILL every process of the test run still there; returns how many there were. */
export function sweepTestRun(testRunId) {
  const pids = processesOfTestRun(testRunId);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
  return pids.length;
}
