/**
 * Vitest globalSetup of the cluster tier (vitest.cluster.config.ts): a real Temporal cluster —
 * the server built from its Go module, on PostgreSQL — for the whole run, set up for ll-loop
 * with `ll-loop cluster setup` as a user would, and named to every test in TEMPORAL_ADDRESS.
 * Teardown stops the checkout workers the tests' commands started, the server and PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { runCliBinary } from '../support/cli.js';
import { checkoutWorkersOf } from '../support/processes.js';
import { startCluster, stopCluster } from '../cluster/support/cluster.js';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function setup(): Promise<() => Promise<void>> {
  process.env.LL_TEST_RUN_ID ??= randomUUID();
  const testRunId = process.env.LL_TEST_RUN_ID;
  const log = (m: string) => console.log(`[cluster] ${m}`);
  const state = await startCluster(log);
  try {
    const project = mkdtempSync(join(tmpdir(), 'll-loop-cluster-setup-'));
    mkdirSync(join(project, '.loops'));
    const setupRun = await runCliBinary(['cluster', 'setup'], {
      cwd: project,
      env: { ...process.env, TEMPORAL_ADDRESS: state.address, TEMPORAL_NAMESPACE: 'default' },
      timeoutMs: 120_000,
    });
    if (setupRun.code !== 0)
      throw new Error(`ll-loop cluster setup failed (${setupRun.code}): ${setupRun.stdout}${setupRun.stderr}`);
    log(setupRun.stdout.trim().split('\n').join(' · '));
    rmSync(project, { recursive: true, force: true });
  } catch (err) {
    await stopCluster(state);
    throw err;
  }
  process.env.TEMPORAL_ADDRESS = state.address;
  // The integration tier's setup (next in the list) reuses it as the test server.
  process.env.TEMPORAL_TEST_ADDRESS = state.address;
  return async () => {
    for (const pid of checkoutWorkersOf(testRunId)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await stopCluster(state);
  };
}
